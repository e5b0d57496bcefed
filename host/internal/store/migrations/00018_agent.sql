-- The agent (package agent): personal chat sessions and their blocks,
-- feedback on blocks and generations, inline generation records (so they
-- can be rated), and fine-tuning jobs. Portable DDL; times are epoch ms.

-- +goose Up
CREATE TABLE chat_sessions (
    -- client-generated or server-generated; unique across workspaces
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    user_id       TEXT NOT NULL,
    title         TEXT NOT NULL,
    model         TEXT NOT NULL,
    message_count BIGINT NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX chat_sessions_by_user ON chat_sessions (workspace_id, user_id, updated_at);

CREATE TABLE chat_blocks (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL,
    workspace_id  TEXT NOT NULL,
    -- order within the session
    seq           BIGINT NOT NULL,
    -- user, assistant, tool
    role          TEXT NOT NULL,
    -- text, tool_call, tool_result, proposal
    type          TEXT NOT NULL,
    -- JSON value
    content       TEXT NOT NULL,
    model         TEXT,
    tool_name     TEXT,
    tool_call_id  TEXT,
    -- proposals: the action, its JSON arguments, the token confirming it,
    -- and when it was confirmed (set once: a token schedules once)
    action        TEXT,
    args          TEXT,
    confirm_token TEXT,
    confirmed_at  BIGINT,
    created_at    BIGINT NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE UNIQUE INDEX chat_blocks_confirm_token ON chat_blocks (confirm_token);

CREATE TABLE feedback (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    -- chat_block, job, generation
    target_kind  TEXT NOT NULL,
    target_id    TEXT NOT NULL,
    rating       TEXT NOT NULL,
    comment      TEXT,
    created_at   BIGINT NOT NULL
);
CREATE INDEX feedback_by_target ON feedback (workspace_id, target_kind, target_id);

CREATE TABLE generations (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    model        TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);

CREATE TABLE fine_tuning_jobs (
    id               TEXT PRIMARY KEY,
    workspace_id     TEXT NOT NULL,
    provider         TEXT NOT NULL,
    provider_job_id  TEXT NOT NULL,
    base_model       TEXT NOT NULL,
    -- queued, running, succeeded, failed, cancelled
    status           TEXT NOT NULL,
    fine_tuned_model TEXT,
    error            TEXT,
    created_at       BIGINT NOT NULL,
    finished_at      BIGINT
);
CREATE INDEX fine_tuning_jobs_by_workspace ON fine_tuning_jobs (workspace_id, created_at);

-- +goose Down
DROP TABLE fine_tuning_jobs;
DROP TABLE generations;
DROP TABLE feedback;
DROP TABLE chat_blocks;
DROP TABLE chat_sessions;
