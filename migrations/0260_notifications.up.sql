-- Notifications. An event is written in the transaction of the state
-- change it tells of (an outbox): the portal's dispatcher later fans it out
-- to the user's webhooks and e-mail, each delivery a River job, and marks
-- it dispatched in the same transaction, so nothing is lost or doubled.
CREATE TABLE notify_events (
    id            bigserial PRIMARY KEY,
    user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type          text NOT NULL,
    data          jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    dispatched_at timestamptz
);
CREATE INDEX notify_events_pending_idx ON notify_events (id) WHERE dispatched_at IS NULL;
CREATE INDEX notify_events_created_idx ON notify_events (created_at);

-- A user's webhooks: an endpoint, its signing secret, the event types it
-- hears of. A hook that keeps failing is switched off (disabled_at) with
-- the reason shown on the account page.
CREATE TABLE webhooks (
    id               bigserial PRIMARY KEY,
    user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url              text NOT NULL,
    secret           text NOT NULL,
    events           text[] NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    failures         integer NOT NULL DEFAULT 0,
    failing_since    timestamptz,
    disabled_at      timestamptz,
    disabled_reason  text NOT NULL DEFAULT ''
);
CREATE INDEX webhooks_user_idx ON webhooks (user_id);

-- One event's delivery to one hook, with its last attempt.
CREATE TABLE webhook_deliveries (
    id              bigserial PRIMARY KEY,
    webhook_id      bigint NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        bigint NOT NULL REFERENCES notify_events (id) ON DELETE CASCADE,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'retrying', 'delivered', 'failed', 'skipped')),
    attempts        integer NOT NULL DEFAULT 0,
    status_code     integer,
    error           text NOT NULL DEFAULT '',
    attempted_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_recent_idx ON webhook_deliveries (webhook_id, id DESC);

-- A user's e-mail for notifications: nothing is sent before the address
-- is verified. unsubscribe_token authenticates the one-click unsubscribe
-- link; verify_token_hash the pending verification link.
CREATE TABLE notify_email (
    user_id            bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    address            text NOT NULL,
    verified_at        timestamptz,
    verify_token_hash  bytea,
    verify_sent_at     timestamptz,
    unsubscribe_token  text NOT NULL UNIQUE,
    events             text[] NOT NULL DEFAULT '{}',
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX notify_email_verify_idx ON notify_email (verify_token_hash) WHERE verify_token_hash IS NOT NULL;
