ALTER TABLE bots DROP CONSTRAINT bots_retired_disabled;
ALTER TABLE bots DROP COLUMN retired_at;
ALTER TABLE bots DROP COLUMN paused;
