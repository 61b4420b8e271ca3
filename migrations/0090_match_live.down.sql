DROP TRIGGER matches_events ON matches;
DROP FUNCTION match_events_notify();
DROP TABLE match_live_rounds;
