package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/pressly/goose/v3"
)

// pageDayDeltasMigration is migration 61: ingest appends per-batch
// increments to page_day_deltas (see page_day_deltas.go) instead of
// rewriting page_days rows, and a fold merges them into page_days once a
// minute. On PostgreSQL it also sets page_days' storage for rows that are
// updated in place: a fillfactor that leaves room on each page for HOT
// updates, and autovacuum once 1% of a table is dead instead of 20%
// (CockroachDB has no autovacuum and SQLite no storage parameters).
var pageDayDeltasMigration = goose.NewGoMigration(61, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
	d := migrationDialect(ctx, tx)
	suffix := ""
	if d == "sqlite" {
		suffix = " WITHOUT ROWID"
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE page_day_deltas (
    site_id TEXT NOT NULL,
    id      TEXT NOT NULL,
    path    TEXT NOT NULL,
    kind    TEXT NOT NULL,
    name    TEXT NOT NULL,
    day     BIGINT NOT NULL,
    a       BIGINT NOT NULL,
    b       BIGINT NOT NULL,
    PRIMARY KEY (site_id, id)
)`+suffix); err != nil {
		return fmt.Errorf("create page_day_deltas: %w", err)
	}
	if d == "postgres" {
		for _, ddl := range []string{
			`ALTER TABLE page_days SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0.01, toast.autovacuum_vacuum_scale_factor = 0.01)`,
			`ALTER TABLE page_day_deltas SET (autovacuum_vacuum_scale_factor = 0.01)`,
		} {
			if _, err := tx.ExecContext(ctx, ddl); err != nil {
				return fmt.Errorf("page_days storage: %w", err)
			}
		}
	}
	return nil
}}, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
	// Deltas not folded yet are merged into page_days first, so going
	// down loses no count.
	rows, err := tx.QueryContext(ctx, `SELECT site_id, path, kind, name, day, a, b FROM page_day_deltas`)
	if err != nil {
		return err
	}
	p := pageDays{}
	for rows.Next() {
		var k pageDaysKey
		var day, a, b int64
		if err := rows.Scan(&k.site, &k.path, &k.kind, &k.name, &day, &a, &b); err != nil {
			rows.Close()
			return err
		}
		p.add(k, day, a, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for k, days := range p {
		var buf []byte
		for _, day := range sortedDays(days) {
			buf = appendPageDay(buf, day, days[day].a, days[day].b)
		}
		last := sortedDays(days)[len(days)-1]
		if _, err := tx.ExecContext(ctx, `INSERT INTO page_days (site_id, path, kind, name, last_day, days) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (site_id, path, kind, name) DO UPDATE SET days = page_days.days || excluded.days,
			last_day = CASE WHEN excluded.last_day > page_days.last_day THEN excluded.last_day ELSE page_days.last_day END`,
			k.site, k.path, k.kind, k.name, last, string(buf)); err != nil {
			return err
		}
	}
	if migrationDialect(ctx, tx) == "postgres" {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE page_days RESET (fillfactor, autovacuum_vacuum_scale_factor, toast.autovacuum_vacuum_scale_factor)`); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `DROP TABLE page_day_deltas`)
	return err
}})

// migrationDialect tells the backends apart inside a migration: "sqlite"
// (no version()), "cockroach" or "postgres". A failed statement leaves a
// SQLite transaction usable, and version() exists on the other two.
func migrationDialect(ctx context.Context, tx *sql.Tx) string {
	var v string
	if tx.QueryRowContext(ctx, `SELECT version()`).Scan(&v) != nil {
		return "sqlite"
	}
	if strings.Contains(v, "CockroachDB") {
		return "cockroach"
	}
	return "postgres"
}
