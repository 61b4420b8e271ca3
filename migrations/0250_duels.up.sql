-- Duels: many unranked games between two bot versions of one owner (or a
-- house bot), played in pairs of seeds until a sequential test decides
-- which is better or max_games are played. Every game is a match of kind
-- 'duel' with duel_id and its place in the duel's schedule (duel_game);
-- the score columns are the games counted so far, in schedule order.
CREATE TABLE duels (
    id           bigserial PRIMARY KEY,
    owner_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game         text NOT NULL,
    map_size     integer NOT NULL,
    a_bot_id     bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    a_version_id bigint NOT NULL REFERENCES bot_versions (id) ON DELETE CASCADE,
    b_bot_id     bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    b_version_id bigint NOT NULL REFERENCES bot_versions (id) ON DELETE CASCADE,
    master_seed  bigint NOT NULL,
    max_games    integer NOT NULL CHECK (max_games >= 2 AND max_games % 2 = 0),
    delta        double precision NOT NULL,
    status       text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished', 'failed')),
    verdict      text NOT NULL DEFAULT '' CHECK (verdict IN ('', 'A better', 'B better', 'undecided')),
    wins_a       integer NOT NULL DEFAULT 0,
    wins_b       integer NOT NULL DEFAULT 0,
    draws        integer NOT NULL DEFAULT 0,
    error        text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);
-- One running duel per user.
CREATE UNIQUE INDEX duels_one_running_key ON duels (owner_id) WHERE status = 'running';
CREATE INDEX duels_owner_idx ON duels (owner_id, id DESC);

ALTER TABLE matches DROP CONSTRAINT matches_kind_check;
ALTER TABLE matches ADD CONSTRAINT matches_kind_check
    CHECK (kind IN ('challenge', 'ladder', 'placement', 'battle', 'duel'));
ALTER TABLE matches ADD COLUMN duel_id bigint REFERENCES duels (id) ON DELETE CASCADE;
ALTER TABLE matches ADD COLUMN duel_game integer;
CREATE UNIQUE INDEX matches_duel_game_key ON matches (duel_id, duel_game) WHERE duel_id IS NOT NULL;
