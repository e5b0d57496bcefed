-- Post scheduler (package schedule): schedules, destination connections and
-- saved webhooks. Portable: same DDL on SQLite, PostgreSQL, CockroachDB.
-- Times are epoch milliseconds; contentToExport is JSON text; credentials are
-- sealed with AES-256-GCM under HERALD_SECRET_KEY and never stored in clear.

-- +goose Up
CREATE TABLE schedules (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    export_to      TEXT NOT NULL,
    -- draft, pending, publishing, published, failed, cancelled
    status         TEXT NOT NULL,
    -- null for drafts created without a time
    when_to_export BIGINT,
    webhook_id     TEXT,
    content        TEXT NOT NULL,
    -- blob key of a re-hosted image, so exports can pass its bytes
    image_key      TEXT,
    -- the publish job of the current pending period
    job_id         TEXT,
    attempts       INTEGER NOT NULL DEFAULT 0,
    last_error     TEXT,
    external_id    TEXT,
    external_url   TEXT,
    -- set when an attempt claims the schedule (pending -> publishing)
    claimed_at     BIGINT,
    published_at   BIGINT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);

-- Lists page through a workspace newest first.
CREATE INDEX schedules_by_workspace ON schedules (workspace_id, created_at, id);
-- The reconciler looks for due unfinished schedules.
CREATE INDEX schedules_due ON schedules (status, when_to_export);

CREATE TABLE destination_connections (
    workspace_id TEXT NOT NULL,
    destination  TEXT NOT NULL,
    -- AES-256-GCM sealed JSON object of credential values
    sealed       TEXT NOT NULL,
    -- comma-separated names of the stored fields (never values)
    fields       TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, destination)
);

CREATE TABLE webhooks (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    name         TEXT NOT NULL,
    -- scheme://host/path of the endpoint, for display; the full URL (which
    -- may carry a token) is only in sealed
    display_url  TEXT NOT NULL,
    -- AES-256-GCM sealed JSON {"url": ..., "secret": "whsec_..."}
    sealed       TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    deleted_at   BIGINT
);

CREATE INDEX webhooks_by_workspace ON webhooks (workspace_id, created_at);

-- +goose Down
DROP TABLE webhooks;
DROP TABLE destination_connections;
DROP TABLE schedules;
