DROP TRIGGER bot_versions_build_events ON bot_versions;
DROP FUNCTION build_events_notify();
DROP TABLE build_live_log;
