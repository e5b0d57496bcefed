-- The last check of a destination connection's credentials against the
-- remote (package schedule, CheckConnection): when, the result ("ok",
-- "failed", "skipped", "unsupported"), why it failed, and the remote
-- account the credentials belong to. One column per statement: SQLite
-- adds one at a time.

-- +goose Up
ALTER TABLE destination_connections ADD COLUMN checked_at BIGINT;
ALTER TABLE destination_connections ADD COLUMN check_result TEXT NOT NULL DEFAULT '';
ALTER TABLE destination_connections ADD COLUMN check_message TEXT NOT NULL DEFAULT '';
ALTER TABLE destination_connections ADD COLUMN check_account TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE destination_connections DROP COLUMN check_account;
ALTER TABLE destination_connections DROP COLUMN check_message;
ALTER TABLE destination_connections DROP COLUMN check_result;
ALTER TABLE destination_connections DROP COLUMN checked_at;
