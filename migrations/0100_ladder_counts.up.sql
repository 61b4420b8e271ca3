-- The ladder's per-bot counters, kept by triggers as seats are recorded and
-- matches change status, so the matchmaker's read costs the number of bots
-- and not the number of matches ever played.
--
-- ladder_day_games: a bot's ladder and placement matches (canceled ones
-- too) created on one UTC day; a row of an earlier day reads as zero.
CREATE TABLE ladder_day_games (
    bot_id    bigint PRIMARY KEY REFERENCES bots (id) ON DELETE CASCADE,
    day       date NOT NULL,
    games     integer NOT NULL
);

-- ladder_version_games: a bot version's ladder and placement matches that
-- were not canceled (placement needs only the first few).
CREATE TABLE ladder_version_games (
    bot_version_id bigint PRIMARY KEY REFERENCES bot_versions (id) ON DELETE CASCADE,
    games          integer NOT NULL
);

CREATE FUNCTION ladder_count_seat() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    m record;
BEGIN
    SELECT kind, status, (created_at AT TIME ZONE 'UTC')::date AS day INTO m
    FROM matches WHERE id = NEW.match_id;
    IF m.kind NOT IN ('ladder', 'placement') THEN
        RETURN NULL;
    END IF;
    INSERT INTO ladder_day_games AS c (bot_id, day, games) VALUES (NEW.bot_id, m.day, 1)
    ON CONFLICT (bot_id) DO UPDATE SET
        games = CASE WHEN c.day = EXCLUDED.day THEN c.games + 1
                     WHEN c.day > EXCLUDED.day THEN c.games
                     ELSE 1 END,
        day = greatest(c.day, EXCLUDED.day);
    IF m.status <> 'canceled' THEN
        INSERT INTO ladder_version_games AS v (bot_version_id, games) VALUES (NEW.bot_version_id, 1)
        ON CONFLICT (bot_version_id) DO UPDATE SET games = v.games + 1;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER match_players_ladder_count AFTER INSERT ON match_players
    FOR EACH ROW EXECUTE FUNCTION ladder_count_seat();

-- A match canceled (or brought back) moves its versions' counts.
CREATE FUNCTION ladder_count_cancel() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v bigint;
    d integer := CASE WHEN NEW.status = 'canceled' THEN -1 ELSE 1 END;
BEGIN
    FOR v IN SELECT bot_version_id FROM match_players WHERE match_id = NEW.id LOOP
        INSERT INTO ladder_version_games AS g (bot_version_id, games) VALUES (v, greatest(d, 0))
        ON CONFLICT (bot_version_id) DO UPDATE SET games = greatest(g.games + d, 0);
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER matches_ladder_cancel AFTER UPDATE OF status ON matches
    FOR EACH ROW
    WHEN (NEW.kind IN ('ladder', 'placement') AND (OLD.status = 'canceled') <> (NEW.status = 'canceled'))
    EXECUTE FUNCTION ladder_count_cancel();

-- Recounts both tables from the matches: for bulk loads that bypass the
-- triggers, and for the existing history below.
CREATE FUNCTION ladder_counts_rebuild() RETURNS void LANGUAGE sql AS $$
    DELETE FROM ladder_day_games;
    DELETE FROM ladder_version_games;
    INSERT INTO ladder_day_games (bot_id, day, games)
    SELECT p.bot_id, (now() AT TIME ZONE 'UTC')::date, count(*)
    FROM matches m JOIN match_players p ON p.match_id = m.id
    WHERE m.kind IN ('ladder', 'placement')
      AND m.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    GROUP BY p.bot_id;
    INSERT INTO ladder_version_games (bot_version_id, games)
    SELECT p.bot_version_id, count(*)
    FROM matches m JOIN match_players p ON p.match_id = m.id
    WHERE m.kind IN ('ladder', 'placement') AND m.status <> 'canceled'
    GROUP BY p.bot_version_id;
$$;

SELECT ladder_counts_rebuild();
