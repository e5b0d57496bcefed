-- AI credits: one row per workspace and calendar month (UTC, "2006-01").

-- +goose Up
CREATE TABLE ai_credit_usage (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    month        TEXT NOT NULL,
    used         INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, month)
);

-- +goose Down
DROP TABLE ai_credit_usage;
