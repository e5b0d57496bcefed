-- Posts and repeat rules of the post scheduler. A post is what a person
-- plans: one or more schedules (one per destination, each with its own
-- variant of contentToExport), published and retried independently. Every
-- schedule belongs to a post; those stored before posts existed get a post
-- of their own here. A repeat rule creates its occurrences ahead of time,
-- each a post of its own: the unique (rule_id, occurrence_at) makes two
-- hosts that create the same occurrence insert it once.

-- +goose Up
CREATE TABLE posts (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    -- the calendar's label: contentToExport.title, else the text's start
    title          TEXT NOT NULL,
    -- null for a draft without a time
    when_to_export BIGINT,
    rule_id        TEXT,
    occurrence_at  BIGINT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
-- The calendar reads a workspace's posts between two times.
CREATE INDEX posts_calendar ON posts (workspace_id, when_to_export);
-- One post per occurrence of a rule (null rule ids never conflict).
CREATE UNIQUE INDEX posts_occurrence ON posts (rule_id, occurrence_at);

ALTER TABLE schedules ADD COLUMN post_id TEXT;
CREATE INDEX schedules_by_post ON schedules (post_id);

INSERT INTO posts (id, workspace_id, user_id, title, when_to_export, created_at, updated_at)
    SELECT id, workspace_id, user_id, '', when_to_export, created_at, updated_at FROM schedules;
UPDATE schedules SET post_id = id;

CREATE TABLE schedule_rules (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    -- JSON: frequency, weekdays, monthDay, timeZone, until, count and the
    -- first occurrence
    rule           TEXT NOT NULL,
    -- JSON: the post's title and its schedules as they are copied into each
    -- occurrence (destination, webhook, contentToExport, image key)
    template       TEXT NOT NULL,
    -- occurrences created so far, and the time of the next one (null: the
    -- rule has ended or was cancelled)
    created_count  INTEGER NOT NULL DEFAULT 0,
    next_at        BIGINT,
    cancelled_at   BIGINT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX schedule_rules_due ON schedule_rules (next_at);
CREATE INDEX schedule_rules_by_workspace ON schedule_rules (workspace_id, created_at);

-- +goose Down
DROP TABLE schedule_rules;
DROP INDEX schedules_by_post;
ALTER TABLE schedules DROP COLUMN post_id;
DROP TABLE posts;
