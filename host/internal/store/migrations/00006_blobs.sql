-- Blobs stored in the database, for distributed mode: every host can serve
-- every object. Bytes are base64 TEXT so that the DDL is the same on SQLite,
-- PostgreSQL and CockroachDB.

-- +goose Up
CREATE TABLE blobs (
    key        TEXT PRIMARY KEY,
    mime       TEXT NOT NULL,
    size       BIGINT NOT NULL,
    data       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE blobs;
