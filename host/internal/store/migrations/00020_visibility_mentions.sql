-- Mentions a reader would agree with (issue 23): the judge's verdicts on
-- sentence-initial brand names that are ordinary words, and whether an
-- answer's text was cut when stored, per answer (visibility_answer_mentions);
-- the evidence of a completed report, computed once and read as stored
-- (visibility_evidence). Portable: same DDL on SQLite, PostgreSQL, CockroachDB.

-- +goose Up
CREATE TABLE visibility_answer_mentions (
    report_id    TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    engine       TEXT NOT NULL,
    -- the prompt's index, as in visibility_answers
    item         TEXT NOT NULL,
    -- JSON [{brand, sentence, namesBrand, model}]
    verdicts     TEXT NOT NULL,
    -- the engine's text was longer than the cap and was cut
    truncated    BOOLEAN NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (report_id, engine, item)
);

CREATE TABLE visibility_evidence (
    report_id       TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL,
    -- the mention rules the evidence was computed with
    scoring_version INTEGER NOT NULL,
    -- JSON: per answer every tracked brand (mentioned, position, cited, verdicts)
    body            TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);

-- +goose Down
DROP TABLE visibility_evidence;
DROP TABLE visibility_answer_mentions;
