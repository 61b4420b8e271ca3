DROP TRIGGER notify_events_announce ON notify_events;
DROP FUNCTION notify_events_announce();
