-- Durable job queue (package jobs). The row is the truth; Redis only
-- carries wake-ups. Portable: same DDL on SQLite, PostgreSQL, CockroachDB.
-- Times are epoch milliseconds; data and result are JSON text.

-- +goose Up
CREATE TABLE jobs (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    queue         TEXT NOT NULL,
    name          TEXT NOT NULL,
    -- waiting, delayed (retry backoff or future run time), active, completed, failed
    state         TEXT NOT NULL,
    data          TEXT NOT NULL,
    progress      INTEGER NOT NULL DEFAULT 0,
    result        TEXT,
    failed_reason TEXT,
    attempts_made INTEGER NOT NULL DEFAULT 0,
    max_attempts  INTEGER NOT NULL,
    -- the job may start at or after run_at
    run_at        BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    processed_on  BIGINT,
    finished_on   BIGINT,
    -- the worker holding an active job, until lease_until unless renewed
    lease_owner   TEXT,
    lease_until   BIGINT
);

-- Claims read only jobs that can run, in run-time order.
CREATE INDEX jobs_ready ON jobs (queue, run_at, id) WHERE state IN ('waiting', 'delayed');
-- The rescuer looks for active jobs whose lease expired.
CREATE INDEX jobs_leased ON jobs (lease_until) WHERE state = 'active';
-- Pruning removes finished jobs by age.
CREATE INDEX jobs_finished ON jobs (finished_on) WHERE state IN ('completed', 'failed');

-- +goose Down
DROP TABLE jobs;
