-- A bot that keeps failing leaves the ladder. match_players.fault records
-- how a seat lost by its own failure (crash, timeout or forfeit), decided
-- once when the result is recorded; bots.fault_streak counts its ranked
-- matches lost that way in a row, and fault_stopped_at/fault_stop_reason
-- say when and why the matchmaker stopped pairing it. A new built version
-- or its owner clears the stop.
ALTER TABLE match_players ADD COLUMN fault text CHECK (fault IN ('crash', 'timeout', 'forfeit'));
ALTER TABLE bots ADD COLUMN fault_streak integer NOT NULL DEFAULT 0;
ALTER TABLE bots ADD COLUMN fault_stopped_at timestamptz;
ALTER TABLE bots ADD COLUMN fault_stop_reason text NOT NULL DEFAULT '';
CREATE INDEX bots_fault_stopped_idx ON bots (fault_stopped_at) WHERE fault_stopped_at IS NOT NULL;
