-- Ratings a contestant can trust: ranked two-player matches come in pairs
-- with the seats swapped, rating events name the method that computed
-- them, a failed match says whether the platform failed it, and the
-- nightly check of the ratings against their history is kept.

-- pair_id is the id of a pair's first half, on both halves; NULL for a
-- match that stands alone.
ALTER TABLE matches ADD COLUMN pair_id bigint REFERENCES matches (id) ON DELETE SET NULL;
CREATE INDEX matches_pair_idx ON matches (pair_id) WHERE pair_id IS NOT NULL;

-- fault is 'platform' for a match that failed because of the platform (a
-- worker lost, a build artifact missing, a sandbox that refused, bots
-- timed out on an overloaded machine): never rated, listed with its
-- reason (error). Bot faults are part of a finished match's result.
ALTER TABLE matches ADD COLUMN fault text NOT NULL DEFAULT '' CHECK (fault IN ('', 'platform'));
CREATE INDEX matches_platform_fault_idx ON matches (id DESC) WHERE fault = 'platform';

-- glicko2 for two-player games, wenglin (Plackett–Luce) for free-for-alls;
-- history is replayed with the method each event was computed by.
ALTER TABLE rating_events ADD COLUMN method text NOT NULL DEFAULT 'glicko2' CHECK (method IN ('glicko2', 'wenglin'));
-- The day's rating events of one ladder.
CREATE INDEX rating_events_ladder_created_idx ON rating_events (ladder, created_at, id);

-- Each run of the nightly check that recomputes the ratings from history.
CREATE TABLE rating_checks (
    id          bigserial PRIMARY KEY,
    checked_at  timestamptz NOT NULL DEFAULT now(),
    matches     integer NOT NULL,
    bots        integer NOT NULL,
    differences integer NOT NULL,
    -- detail names the first bots that differ, for the alarm on /admin.
    detail      text NOT NULL DEFAULT '',
    error       text NOT NULL DEFAULT ''
);
