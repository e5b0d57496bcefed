-- Events and their deliveries. An event row is written in the transaction
-- of the change it reports, together with one delivery row per active
-- subscription that asked for its type (the outbox), so an event exists
-- exactly when its change does. Deliverers on every host claim due
-- deliveries (FOR UPDATE SKIP LOCKED on PostgreSQL, the single writer on
-- SQLite) under a lease, so each delivery has one attempt sequence.

-- +goose Up
CREATE TABLE event_subscriptions (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    display_url TEXT NOT NULL,
    format TEXT NOT NULL,
    -- The event types, comma-delimited with a comma at both ends
    -- (",report.completed,schedule.failed,"), so the fan-out matches a type
    -- with one LIKE on every backend.
    events TEXT NOT NULL,
    -- Sealed JSON {url, secret, previous}: the URL may carry a token.
    sealed TEXT NOT NULL,
    previous_until BIGINT,
    state TEXT NOT NULL,
    paused_reason TEXT,
    failing_since BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX event_subscriptions_workspace ON event_subscriptions (workspace_id, state);

CREATE TABLE events (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    type TEXT NOT NULL,
    -- Set for events that must happen once per thing (credits.low of a
    -- month, connection expiring before a given expiry).
    dedupe_key TEXT,
    data TEXT NOT NULL,
    link TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX events_dedupe ON events (workspace_id, dedupe_key);
CREATE INDEX events_workspace_created ON events (workspace_id, created_at);

CREATE TABLE event_deliveries (
    -- The webhook-id of every attempt: the event id and the subscription id.
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    lease_owner TEXT,
    lease_until BIGINT NOT NULL DEFAULT 0,
    response_code INTEGER,
    error TEXT,
    last_attempt_at BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX event_deliveries_due ON event_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX event_deliveries_subscription ON event_deliveries (subscription_id, created_at);
-- A claim reads back what it took by its owner token.
CREATE INDEX event_deliveries_lease ON event_deliveries (lease_owner) WHERE lease_owner IS NOT NULL;

-- +goose Down
DROP TABLE event_deliveries;
DROP TABLE events;
DROP TABLE event_subscriptions;
