-- Web analytics connections (Google Analytics 4): a workspace's sealed
-- credentials per analytics source, the one-time OAuth states of connects
-- under way (the SHA-256 of the state, never the state; the PKCE verifier
-- sealed), and which property of the source belongs to which tracked site.

-- +goose Up
CREATE TABLE analytics_connections (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    method TEXT NOT NULL,
    account TEXT NOT NULL DEFAULT '',
    sealed TEXT NOT NULL,
    expires_at BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, source)
);

CREATE TABLE analytics_oauth_states (
    state_hash TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    sealed_verifier TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX analytics_oauth_states_expiry ON analytics_oauth_states (expires_at);

CREATE TABLE analytics_site_properties (
    site_id TEXT NOT NULL REFERENCES traffic_sites(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    property_id TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (site_id, source)
);
CREATE INDEX analytics_site_properties_workspace ON analytics_site_properties (workspace_id, source);

-- +goose Down
DROP TABLE analytics_site_properties;
DROP TABLE analytics_oauth_states;
DROP TABLE analytics_connections;
