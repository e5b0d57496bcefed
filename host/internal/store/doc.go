// Package store is Herald's SQL store: one schema and one set of queries that
// run on embedded SQLite (modernc.org/sqlite, WAL) and on CockroachDB or
// PostgreSQL (pgx v5, every transaction through cockroach-go's retry helper).
//
// Queries are written once in the dialect both backends accept: $N
// placeholders, TEXT/BIGINT/BOOLEAN columns, times as epoch milliseconds,
// JSON as TEXT, ids generated in Go. Where the dialects must differ (row
// locking), the Store exposes the fragment through a method, never a second
// query.
//
// `Store` over either backend: repositories per area (`workspace.go`,
// `voice.go`, …) and `Tx`; raw SQL stays inside the package. Goose
// migrations embedded (`migrations/`), `storetest` to run a test on every
// backend (and `storetest.Exec/Query/QueryRow` for a test's fixtures and raw
// looks at stored rows).
package store
