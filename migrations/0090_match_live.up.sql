-- The rounds of a running match as the worker plays them: each round's
-- public files, for the portal's live viewer. They go once the match ends
-- (its replay zip has them all) or starts another attempt.
CREATE TABLE match_live_rounds (
    match_id   bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seq        integer NOT NULL CHECK (seq >= 0),
    name       text NOT NULL,
    files      jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (match_id, seq)
);

-- Every change of a match's status or attempt is announced on the
-- match_events channel, whoever makes it (worker, organiser, sweeper), so
-- portals on other machines follow matches without polling.
CREATE FUNCTION match_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status OR NEW.attempt IS DISTINCT FROM OLD.attempt THEN
        DELETE FROM match_live_rounds WHERE match_id = NEW.id;
        PERFORM pg_notify('match_events', json_build_object('match', NEW.id, 'status', NEW.status)::text);
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER matches_events AFTER UPDATE OF status, attempt ON matches
    FOR EACH ROW EXECUTE FUNCTION match_events_notify();
