-- Samples: a report or a tracker's run asks each prompt on each engine
-- `samples` times (the plan's report_samples or tracker_samples, fixed when
-- the run is queued, so a plan change applies to the next run only). The
-- answers of sample k > 1 are stored under item "<prompt>#<k>". A tracker
-- may ask fewer samples than its plan (NULL: the plan's).
-- Portable: same DDL on SQLite, PostgreSQL, CockroachDB.

-- +goose Up
ALTER TABLE visibility_reports ADD COLUMN samples INTEGER NOT NULL DEFAULT 1;
ALTER TABLE visibility_trackers ADD COLUMN samples INTEGER;

-- +goose Down
ALTER TABLE visibility_trackers DROP COLUMN samples;
ALTER TABLE visibility_reports DROP COLUMN samples;
