-- Discovered brands: per prompt answer, the brands and products the judge
-- model says it names ([{name, domain}] as JSON), stored with the answer
-- like its sentiment so that a report's discovered brands and positions
-- among all brands reproduce from stored data. NULL: not judged (no judge
-- model, or it failed). Portable: same DDL on SQLite, PostgreSQL,
-- CockroachDB.

-- +goose Up
ALTER TABLE visibility_answers ADD COLUMN discovered TEXT;

-- +goose Down
ALTER TABLE visibility_answers DROP COLUMN discovered;
