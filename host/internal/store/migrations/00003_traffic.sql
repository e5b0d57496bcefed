-- AI traffic tracking (package traffic). Portable: same DDL on SQLite,
-- PostgreSQL and CockroachDB. Times are epoch milliseconds; days are UTC
-- epoch days (ms / 86400000).
--
-- Raw events are the record; the rollup tables are what stats read, upserted
-- with ON CONFLICT in the same transaction as the events, so a report costs
-- the days it covers, never the events stored.

-- +goose Up
CREATE TABLE traffic_sites (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    site_key     TEXT NOT NULL UNIQUE,
    domain       TEXT NOT NULL,
    name         TEXT NOT NULL,
    is_active    BOOLEAN NOT NULL,
    created_at   BIGINT NOT NULL,
    UNIQUE (workspace_id, domain)
);

-- One row per visit (browser tab session). The last_* columns describe the
-- session's latest pageview, which engagement updates attach to.
CREATE TABLE traffic_sessions (
    site_id          TEXT NOT NULL,
    session_id       TEXT NOT NULL,
    source           TEXT NOT NULL,
    day              BIGINT NOT NULL,
    started_at       BIGINT NOT NULL,
    pageviews        BIGINT NOT NULL,
    duration_ms      BIGINT NOT NULL,
    engaged          BOOLEAN NOT NULL,
    last_event_id    TEXT NOT NULL,
    last_path        TEXT NOT NULL,
    last_day         BIGINT NOT NULL,
    last_duration_ms BIGINT NOT NULL,
    -- -1 until the pageview reports a scroll depth
    last_scroll      INTEGER NOT NULL,
    updated_at       BIGINT NOT NULL,
    PRIMARY KEY (site_id, session_id)
);

-- Pageviews (with their engagement) and AI crawler hits, as received. The
-- key leads with (site_id, day), which retention and per-site reads use, so
-- the table needs no second index (on SQLite every index is one more b-tree
-- written per event); id is a UUIDv7, unique on its own.
CREATE TABLE traffic_events (
    id           TEXT NOT NULL,
    site_id      TEXT NOT NULL,
    kind         TEXT NOT NULL,
    session_id   TEXT NOT NULL,
    day          BIGINT NOT NULL,
    path         TEXT NOT NULL,
    title        TEXT NOT NULL,
    referrer     TEXT NOT NULL,
    source       TEXT NOT NULL,
    bot          TEXT NOT NULL,
    utm_source   TEXT NOT NULL,
    utm_medium   TEXT NOT NULL,
    utm_campaign TEXT NOT NULL,
    user_agent   TEXT NOT NULL,
    duration_ms  BIGINT NOT NULL,
    scroll_depth INTEGER NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (site_id, day, id)
);

-- Visits by site, session start day and AI source ('' = not from an AI).
CREATE TABLE traffic_daily (
    site_id        TEXT NOT NULL,
    day            BIGINT NOT NULL,
    source         TEXT NOT NULL,
    visits         BIGINT NOT NULL,
    pageviews      BIGINT NOT NULL,
    engaged_visits BIGINT NOT NULL,
    duration_ms    BIGINT NOT NULL,
    scroll_sum     BIGINT NOT NULL,
    scroll_count   BIGINT NOT NULL,
    PRIMARY KEY (site_id, day, source)
);

-- Pages viewed in AI visits, by aligned blocks of span days (1, 4, 16, 64
-- and 256): period p of span s covers epoch days p*s to p*s+s-1. Blocks
-- nest, so any window is a signed sum of a few blocks (store/traffic_pages.go)
-- and a year of top pages reads a few blocks' rows, not 365 days' rows.
CREATE TABLE traffic_pages (
    site_id        TEXT NOT NULL,
    span           BIGINT NOT NULL,
    period         BIGINT NOT NULL,
    path           TEXT NOT NULL,
    ai_visits      BIGINT NOT NULL,
    ai_pageviews   BIGINT NOT NULL,
    ai_duration_ms BIGINT NOT NULL,
    PRIMARY KEY (site_id, span, period, path)
);

-- AI crawler hits by day and bot.
CREATE TABLE traffic_crawlers (
    site_id TEXT NOT NULL,
    day     BIGINT NOT NULL,
    bot     TEXT NOT NULL,
    hits    BIGINT NOT NULL,
    PRIMARY KEY (site_id, day, bot)
);

-- +goose Down
DROP TABLE traffic_crawlers;
DROP TABLE traffic_pages;
DROP TABLE traffic_daily;
DROP TABLE traffic_events;
DROP TABLE traffic_sessions;
DROP TABLE traffic_sites;
