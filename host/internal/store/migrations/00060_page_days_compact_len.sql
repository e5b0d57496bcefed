-- The pages view's rollups: compact_len is the length of a page_days row's
-- days when a write last compacted it (0: never). The writer that appends
-- to a row compacts it, under the row lock its upsert already holds, once
-- days has grown past twice that length and some slack; reads never write.
-- Portable: same DDL on SQLite, PostgreSQL, CockroachDB.

-- +goose Up
ALTER TABLE page_days ADD COLUMN compact_len BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE page_days DROP COLUMN compact_len;
