-- Destination connections made with OAuth 2.0 (LinkedIn): the states of
-- authorizations in progress, each used once, and the expiry of a
-- connection's access token and refresh token, so that a connection about
-- to expire is announced and a post to an expired one fails before any
-- attempt. The tokens themselves stay in the sealed credentials.

-- +goose Up
CREATE TABLE oauth_states (
    -- SHA-256 (hex) of the state parameter; the value itself is never stored
    state_hash   TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    destination  TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    -- set when the callback consumed the state: a replay finds it used
    used_at      BIGINT
);
CREATE INDEX oauth_states_expiry ON oauth_states (expires_at);

ALTER TABLE destination_connections ADD COLUMN expires_at BIGINT;
ALTER TABLE destination_connections ADD COLUMN refresh_expires_at BIGINT;
CREATE INDEX destination_connections_expiry ON destination_connections (expires_at);

-- +goose Down
DROP INDEX destination_connections_expiry;
ALTER TABLE destination_connections DROP COLUMN refresh_expires_at;
ALTER TABLE destination_connections DROP COLUMN expires_at;
DROP TABLE oauth_states;
