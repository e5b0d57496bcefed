-- AI visibility reports (package visibility). Every answer an engine gave is
-- kept (visibility_answers), so every score can be recomputed from them and
-- a report interrupted by a crash resumes without asking again.
-- Portable: same DDL on SQLite, PostgreSQL, CockroachDB. Times are epoch
-- milliseconds; input, engines, brands, site and result are JSON text.

-- +goose Up
CREATE TABLE visibility_reports (
    id               TEXT PRIMARY KEY,
    workspace_id     TEXT NOT NULL,
    job_id           TEXT,
    -- one-off reports (free audits, any site) stay out of the history
    one_off          BOOLEAN NOT NULL,
    refresh          BOOLEAN NOT NULL,
    -- queued, running, completed, failed
    state            TEXT NOT NULL,
    website_url      TEXT NOT NULL,
    input            TEXT NOT NULL,
    engines          TEXT NOT NULL,
    brands           TEXT,
    site             TEXT,
    result           TEXT,
    error            TEXT,
    -- AI credits reserved at queueing (prompts x engines); settled once,
    -- giving back what no engine answered or what came from the cache
    credits_month    TEXT NOT NULL,
    credits_reserved INTEGER NOT NULL,
    credits_settled  BOOLEAN NOT NULL DEFAULT FALSE,
    created_at       BIGINT NOT NULL,
    completed_at     BIGINT
);

CREATE INDEX visibility_reports_by_workspace ON visibility_reports (workspace_id, one_off, created_at);

CREATE TABLE visibility_answers (
    report_id    TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    -- prompt (a buyer prompt) or probe (an entity probe)
    kind         TEXT NOT NULL,
    engine       TEXT NOT NULL,
    -- the prompt's index or the probe's id
    item         TEXT NOT NULL,
    question     TEXT NOT NULL,
    text         TEXT NOT NULL,
    model        TEXT,
    citations    TEXT NOT NULL,
    -- set when the engine failed: the answer is missing
    error        TEXT,
    -- reused from an identical question asked at asked_at
    cached       BOOLEAN NOT NULL,
    asked_at     BIGINT NOT NULL,
    -- probes: the judge's verdict, the site fact and the judgement (JSON)
    verdict      TEXT,
    fact         TEXT,
    judgement    TEXT,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (report_id, kind, engine, item)
);

-- Identical questions within the cache window reuse answers.
CREATE INDEX visibility_answers_cache ON visibility_answers (workspace_id, engine, asked_at);

-- +goose Down
DROP TABLE visibility_answers;
DROP TABLE visibility_reports;
