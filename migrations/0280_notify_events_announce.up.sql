-- The notification dispatcher waits for new events on the notify_events
-- channel instead of looking for them every second: one notification per
-- inserting statement, sent when its transaction commits (Postgres folds
-- identical notifications of one transaction into one).
CREATE FUNCTION notify_events_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('notify_events', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER notify_events_announce AFTER INSERT ON notify_events
    FOR EACH STATEMENT EXECUTE FUNCTION notify_events_announce();
