-- The pages of every prompt answer's sources (its citations and the URLs
-- in its text), one row per answer and page, written with the answer: the
-- pages view reads the rows of one site's registrable domain instead of
-- every answer's text in its window. visibility_reports.answer_pages is
-- TRUE on reports whose answers write these rows (created from this
-- migration on); the answers of older reports are read for their sources
-- as before. Portable: same DDL on SQLite, PostgreSQL, CockroachDB.

-- +goose Up
CREATE TABLE visibility_answer_pages (
    workspace_id TEXT NOT NULL,
    -- the registrable domain of host (eTLD+1), the key reads go by
    domain       TEXT NOT NULL,
    host         TEXT NOT NULL,
    path         TEXT NOT NULL,
    report_id    TEXT NOT NULL,
    engine       TEXT NOT NULL,
    item         TEXT NOT NULL,
    PRIMARY KEY (report_id, engine, item, host, path)
);
-- report_id last: a read by the window's report ids takes each report's
-- pages of the domain as one range, statistics or not.
CREATE INDEX visibility_answer_pages_by_domain ON visibility_answer_pages (workspace_id, domain, report_id);
ALTER TABLE visibility_reports ADD COLUMN answer_pages BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE visibility_reports DROP COLUMN answer_pages;
DROP TABLE visibility_answer_pages;
