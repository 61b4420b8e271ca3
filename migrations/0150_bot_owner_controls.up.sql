-- A bot's owner controls its place on the ladder: paused bots are neither
-- matched nor chosen as opponents there, but stay on the leaderboard;
-- a retired bot is disabled by its owner (it leaves the leaderboard and
-- the ladder, keeps its matches) and retired_at tells it apart from a bot
-- an organiser disabled, which its owner cannot bring back.
ALTER TABLE bots ADD COLUMN paused boolean NOT NULL DEFAULT false;
ALTER TABLE bots ADD COLUMN retired_at timestamptz;
ALTER TABLE bots ADD CONSTRAINT bots_retired_disabled CHECK (retired_at IS NULL OR disabled);
