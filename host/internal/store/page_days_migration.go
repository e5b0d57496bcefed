package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/pressly/goose/v3"
)

// pageDaysMigration is migration 52: the pages view reads page_days (one
// row per page and key, see page_days.go) instead of summing blocks of
// days. The block tables' day blocks (span 1) become the new rows' days,
// then the block tables go.
var pageDaysMigration = goose.NewGoMigration(52, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
	// On SQLite the rows live in their key's b-tree (WITHOUT ROWID): the
	// view's scan of a site reads them in place, not through an index and
	// then the table. version() exists on PostgreSQL only; a failed
	// statement leaves a SQLite transaction usable.
	suffix := ""
	var version string
	if tx.QueryRowContext(ctx, `SELECT version()`).Scan(&version) != nil {
		suffix = " WITHOUT ROWID"
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE page_days (
    site_id  TEXT NOT NULL,
    path     TEXT NOT NULL,
    kind     TEXT NOT NULL,
    name     TEXT NOT NULL,
    last_day BIGINT NOT NULL,
    days     TEXT NOT NULL,
    PRIMARY KEY (site_id, path, kind, name)
)`+suffix); err != nil {
		return fmt.Errorf("create page_days: %w", err)
	}
	p := pageDays{}
	read := func(kind, sql string) error {
		rows, err := tx.QueryContext(ctx, sql)
		if err != nil {
			return fmt.Errorf("read %s blocks: %w", kind, err)
		}
		defer rows.Close()
		for rows.Next() {
			var site, path, name string
			var day, a, b int64
			if err := rows.Scan(&site, &day, &path, &name, &a, &b); err != nil {
				return fmt.Errorf("read %s blocks: %w", kind, err)
			}
			p.add(pageDaysKey{site, path, kind, name}, day, a, b)
		}
		return rows.Err()
	}
	if err := read(pageKindCrawler, `SELECT site_id, period, path, operator, verified, claimed FROM crawler_pages WHERE span = 1`); err != nil {
		return err
	}
	if err := read(pageKindSource, `SELECT site_id, period, path, source, visits, 0 FROM traffic_page_sources WHERE span = 1`); err != nil {
		return err
	}
	for k, days := range p {
		var buf []byte
		last := int64(-1 << 62)
		for _, day := range sortedDays(days) {
			c := days[day]
			buf = appendPageDay(buf, day, c.a, c.b)
			last = day
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO page_days (site_id, path, kind, name, last_day, days) VALUES ($1, $2, $3, $4, $5, $6)`,
			k.site, k.path, k.kind, k.name, last, string(buf)); err != nil {
			return fmt.Errorf("write page_days: %w", err)
		}
	}
	for _, t := range []string{"crawler_pages", "traffic_page_sources"} {
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+t); err != nil {
			return fmt.Errorf("drop %s: %w", t, err)
		}
	}
	return nil
}}, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
	for _, ddl := range []string{`CREATE TABLE crawler_pages (
    site_id  TEXT NOT NULL,
    span     BIGINT NOT NULL,
    period   BIGINT NOT NULL,
    path     TEXT NOT NULL,
    operator TEXT NOT NULL,
    verified BIGINT NOT NULL,
    claimed  BIGINT NOT NULL,
    PRIMARY KEY (site_id, span, period, path, operator)
)`, `CREATE TABLE traffic_page_sources (
    site_id TEXT NOT NULL,
    span    BIGINT NOT NULL,
    period  BIGINT NOT NULL,
    path    TEXT NOT NULL,
    source  TEXT NOT NULL,
    visits  BIGINT NOT NULL,
    PRIMARY KEY (site_id, span, period, path, source)
)`, `DROP TABLE page_days`} {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return err
		}
	}
	return nil
}})

func sortedDays(m map[int64]*pageDayCount) []int64 {
	days := make([]int64, 0, len(m))
	for d := range m {
		days = append(days, d)
	}
	slices.Sort(days)
	return days
}
