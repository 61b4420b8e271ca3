-- The last run of each periodic job (battle, ladder and rescue ticks), so
-- operators can see that the season keeps running and be warned when a
-- tick stops recurring.
CREATE TABLE periodic_runs (
    name             text PRIMARY KEY,
    interval_ms      bigint NOT NULL,
    runs             bigint NOT NULL DEFAULT 0,
    last_started_at  timestamptz,
    last_finished_at timestamptz,
    last_error       text NOT NULL DEFAULT '',
    updated_at       timestamptz NOT NULL DEFAULT now()
);
