-- Many hosts, one truth (issue 28).
-- plan_versions: the plans and per-workspace caps every host applies; each
-- apply (herald plans apply, SIGHUP, the first start) adds a version and
-- hosts watch the highest. body is JSON (package plans), digest its SHA-256
-- so an unchanged file adds no version.
-- concurrency_leases: slots of "at most N at once" rules across hosts when
-- Redis is not configured (package lease): a row per taken slot, free again
-- when released or when expires_at (epoch ms) passes without renewal, so a
-- host that dies frees its slots within the lease.
-- Portable: same DDL on SQLite, PostgreSQL, CockroachDB.

-- +goose Up
CREATE TABLE plan_versions (
    version    BIGINT PRIMARY KEY,
    body       TEXT NOT NULL,
    digest     TEXT NOT NULL,
    source     TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE concurrency_leases (
    name       TEXT NOT NULL,
    slot       INTEGER NOT NULL,
    holder     TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (name, slot)
);

-- +goose Down
DROP TABLE concurrency_leases;
DROP TABLE plan_versions;
