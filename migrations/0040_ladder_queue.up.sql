-- The ladder's queue as the matchmaker left it at its last tick, so pages
-- show queue depth and a bot's place without redoing the matchmaking.
CREATE TABLE ladder_queue (
    game           text NOT NULL,
    bot_id         bigint NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    position       integer NOT NULL,
    games_today    integer NOT NULL,
    placement_left integer NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game, bot_id)
);
CREATE INDEX ladder_queue_bot_idx ON ladder_queue (bot_id);
