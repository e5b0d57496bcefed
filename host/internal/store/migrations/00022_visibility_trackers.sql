-- Visibility trackers (issue 26, VISIBILITY.md "Tracking"): a stored
-- report setup run at its slot, daily or weekly. Each run is a report
-- (visibility_reports.tracker_id). Exactly once per slot across hosts:
-- a host claims a slot with a conditional UPDATE of next_run_at and
-- inserts the (tracker_id, slot) row in the same transaction, so a second
-- host's claim of the same slot matches no row or violates the key.
-- Sentiment per answer and brand is stored with the answer (JSON), so a
-- report's sentiment reproduces from stored data. Portable DDL.

-- +goose Up
CREATE TABLE visibility_trackers (
    id               TEXT PRIMARY KEY,
    workspace_id     TEXT NOT NULL,
    website_url      TEXT NOT NULL,
    -- JSON: {websiteurl, competitors, prompts: [{text, tags}]}
    input            TEXT NOT NULL,
    -- JSON list of engines; [] means the configured engines at run time
    engines          TEXT NOT NULL,
    -- daily or weekly
    cadence          TEXT NOT NULL,
    active           BOOLEAN NOT NULL,
    -- the slot: minute of the UTC day, and the weekday (0 = Sunday) of
    -- weekly trackers, both from the creation time
    slot_minute      INTEGER NOT NULL,
    slot_weekday     INTEGER NOT NULL,
    -- the next slot to run (epoch ms); claimed by moving it forward
    next_run_at      BIGINT NOT NULL,
    last_run_at      BIGINT,
    last_report_id   TEXT,
    -- how late the last run started after its slot (ms)
    last_late_ms     BIGINT,
    last_skip_at     BIGINT,
    last_skip_reason TEXT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX visibility_trackers_by_workspace ON visibility_trackers (workspace_id, created_at);
CREATE INDEX visibility_trackers_due ON visibility_trackers (active, next_run_at);

-- One row per scheduled slot a tracker ran or skipped: the proof of "once
-- per slot" (runs started by the run route have no slot and no row).
CREATE TABLE visibility_tracker_runs (
    tracker_id   TEXT NOT NULL,
    -- the slot's time (epoch ms)
    slot         BIGINT NOT NULL,
    workspace_id TEXT NOT NULL,
    report_id    TEXT,
    -- set when the run was skipped (credits)
    skip_reason  TEXT,
    started_at   BIGINT NOT NULL,
    late_ms      BIGINT NOT NULL,
    -- the host that claimed it (diagnostics)
    host         TEXT NOT NULL,
    PRIMARY KEY (tracker_id, slot)
);

ALTER TABLE visibility_reports ADD COLUMN tracker_id TEXT;
CREATE INDEX visibility_reports_by_tracker ON visibility_reports (workspace_id, tracker_id, created_at);
ALTER TABLE visibility_answers ADD COLUMN sentiment TEXT;

-- +goose Down
ALTER TABLE visibility_answers DROP COLUMN sentiment;
DROP INDEX visibility_reports_by_tracker;
ALTER TABLE visibility_reports DROP COLUMN tracker_id;
DROP TABLE visibility_tracker_runs;
DROP TABLE visibility_trackers;
