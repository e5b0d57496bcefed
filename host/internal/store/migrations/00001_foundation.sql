-- Portable schema: runs unchanged on SQLite, PostgreSQL and CockroachDB.
-- Ids are UUIDv7 strings made in Go; times are epoch milliseconds.

-- +goose Up
CREATE TABLE workspaces (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    plan       TEXT NOT NULL,
    website    TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);

CREATE TABLE users (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    email        TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    UNIQUE (workspace_id, email)
);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    user_id      TEXT NOT NULL REFERENCES users (id),
    prefix       TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    revoked_at   BIGINT
);

CREATE TABLE brand_voices (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces (id),
    user_id        TEXT NOT NULL,
    scope          TEXT NOT NULL,
    name           TEXT NOT NULL,
    type           TEXT NOT NULL,
    url            TEXT,
    content        TEXT NOT NULL,
    fetch_interval TEXT,
    is_active      BOOLEAN NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE INDEX brand_voices_by_workspace ON brand_voices (workspace_id, is_active, created_at, id);

-- +goose Down
DROP TABLE brand_voices;
DROP TABLE api_keys;
DROP TABLE users;
DROP TABLE workspaces;
