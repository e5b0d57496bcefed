-- AI crawler hits read from server and CDN logs (POST /v1/ai-traffic/logs,
-- package traffic, docs/CRAWLERS.md). Portable DDL, times in epoch ms,
-- days are UTC epoch days.

-- +goose Up
-- A site's ingest secret, stored as its SHA-256 (hex); one per site, a
-- rotation replaces it.
CREATE TABLE traffic_ingest_secrets (
    site_id     TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL
);

-- Raw crawler lines, kept as long as raw traffic events. ip is what the
-- plan's log_ip_storage allows ('' for none).
CREATE TABLE crawler_hits (
    site_id    TEXT NOT NULL,
    day        BIGINT NOT NULL,
    id         TEXT NOT NULL,
    at         BIGINT NOT NULL,
    bot        TEXT NOT NULL,
    operator   TEXT NOT NULL,
    verified   BOOLEAN NOT NULL,
    method     TEXT NOT NULL,
    path       TEXT NOT NULL,
    status     INTEGER NOT NULL,
    ip         TEXT NOT NULL,
    user_agent TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (site_id, day, id)
);

-- Crawler hits by day and bot, verified and claimed apart (stats).
CREATE TABLE crawler_daily (
    site_id  TEXT NOT NULL,
    day      BIGINT NOT NULL,
    bot      TEXT NOT NULL,
    verified BIGINT NOT NULL,
    claimed  BIGINT NOT NULL,
    PRIMARY KEY (site_id, day, bot)
);

-- Crawler hits per page and operator, in the nested blocks of days that
-- traffic_pages uses (spans 1, 8, 64, 512), so the pages view of any
-- window reads a few blocks.
CREATE TABLE crawler_pages (
    site_id  TEXT NOT NULL,
    span     BIGINT NOT NULL,
    period   BIGINT NOT NULL,
    path     TEXT NOT NULL,
    operator TEXT NOT NULL,
    verified BIGINT NOT NULL,
    claimed  BIGINT NOT NULL,
    PRIMARY KEY (site_id, span, period, path, operator)
);

-- Log lines a site posted per UTC day, against the plan's
-- log_lines_per_day; counted in the transaction that stores them.
CREATE TABLE crawler_ingest_days (
    site_id TEXT NOT NULL,
    day     BIGINT NOT NULL,
    lines   BIGINT NOT NULL,
    PRIMARY KEY (site_id, day)
);

-- Range files loaded by `herald crawlers ranges load`; of each name the
-- newest created wins over the shipped file.
CREATE TABLE crawler_ranges (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    operator   TEXT NOT NULL,
    source     TEXT NOT NULL,
    created    BIGINT NOT NULL,
    body       TEXT NOT NULL,
    loaded_at  BIGINT NOT NULL
);

-- AI visits landing on a page, per AI source, in the same blocks: the
-- pages view's aiVisits per source.
CREATE TABLE traffic_page_sources (
    site_id TEXT NOT NULL,
    span    BIGINT NOT NULL,
    period  BIGINT NOT NULL,
    path    TEXT NOT NULL,
    source  TEXT NOT NULL,
    visits  BIGINT NOT NULL,
    PRIMARY KEY (site_id, span, period, path, source)
);

-- +goose Down
DROP TABLE traffic_page_sources;
DROP TABLE crawler_ranges;
DROP TABLE crawler_ingest_days;
DROP TABLE crawler_pages;
DROP TABLE crawler_daily;
DROP TABLE crawler_hits;
DROP TABLE traffic_ingest_secrets;
