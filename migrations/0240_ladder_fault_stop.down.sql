DROP INDEX bots_fault_stopped_idx;
ALTER TABLE bots DROP COLUMN fault_stop_reason;
ALTER TABLE bots DROP COLUMN fault_stopped_at;
ALTER TABLE bots DROP COLUMN fault_streak;
ALTER TABLE match_players DROP COLUMN fault;
