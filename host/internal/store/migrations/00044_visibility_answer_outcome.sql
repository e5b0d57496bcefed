-- An answer's outcome beside its error: '' is an answer (or, with error
-- set, a failure); 'no_answer' says the engine showed no answer for the
-- question, such as a Google search without an AI Overview. Such an answer
-- has no text and is counted apart: neither an answer that names nobody
-- nor a failure.
-- Portable: same DDL on SQLite, PostgreSQL, CockroachDB.

-- +goose Up
ALTER TABLE visibility_answers ADD COLUMN outcome TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE visibility_answers DROP COLUMN outcome;
