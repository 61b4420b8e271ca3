DROP TABLE rating_checks;
DROP INDEX rating_events_ladder_created_idx;
ALTER TABLE rating_events DROP COLUMN method;
DROP INDEX matches_platform_fault_idx;
ALTER TABLE matches DROP COLUMN fault;
DROP INDEX matches_pair_idx;
ALTER TABLE matches DROP COLUMN pair_id;
