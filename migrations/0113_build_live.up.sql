-- The log of a build in progress as the worker writes it, chunk by chunk,
-- for the bot page. The chunks go when the build's status changes (it
-- ended, or a new attempt started): bot_versions.build_log is the record.
CREATE TABLE build_live_log (
    version_id bigint NOT NULL REFERENCES bot_versions (id) ON DELETE CASCADE,
    seq        integer NOT NULL CHECK (seq >= 0),
    text       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (version_id, seq)
);

-- Every write of a version's build status is announced on the build_events
-- channel (a restarted build writes "building" again), so portals on other
-- machines follow builds without polling.
CREATE FUNCTION build_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM build_live_log WHERE version_id = NEW.id;
    PERFORM pg_notify('build_events', json_build_object('version', NEW.id, 'status', NEW.build_status)::text);
    RETURN NEW;
END $$;

CREATE TRIGGER bot_versions_build_events AFTER UPDATE OF build_status ON bot_versions
    FOR EACH ROW EXECUTE FUNCTION build_events_notify();
