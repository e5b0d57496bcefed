-- Targets of a post: the tracker whose prompts it is written for and the
-- prompts it targets (prompt ids or tags of that tracker, JSON list). Kept
-- beside schedules, one row per targeted schedule, so the impact of a
-- published post reads a tracker's targeted posts with one index.
-- Portable: same DDL on SQLite, PostgreSQL, CockroachDB.

-- +goose Up
CREATE TABLE schedule_targets (
    schedule_id    TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL,
    tracker_id     TEXT NOT NULL,
    target_prompts TEXT NOT NULL,
    created_at     BIGINT NOT NULL
);

CREATE INDEX schedule_targets_by_tracker ON schedule_targets (workspace_id, tracker_id);

-- +goose Down
DROP INDEX schedule_targets_by_tracker;
DROP TABLE schedule_targets;
