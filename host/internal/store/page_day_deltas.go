package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
)

// Per-batch increments of the pages view, folded into page_days.
//
// An ingest batch (crawler log lines, or the landings of a beacon group
// commit) does not touch page_days: it inserts one page_day_deltas row per
// key and day it counted (a plain multi-row INSERT, no conflict, no row
// lock). FoldPageDays takes deltas out (DELETE … RETURNING), sums them per
// key and upserts page_days once per key, in key order, in the same
// transaction: each delta is counted either as a delta or inside page_days,
// never both and never neither. One host folds every few seconds
// (traffic.PageFold, under a lease), so a page_days row is rewritten once
// per fold instead of once per batch, and the fold vacuums the versions it
// leaves dead. The pages view reads page_days and the deltas not folded
// yet in one statement (readPageDays), so it is exact at all times; how
// often the fold runs bounds how many deltas a view sums.

// DefaultPageFoldLimit is how many deltas one fold transaction takes.
const DefaultPageFoldLimit = 5000

// maxFoldPasses bounds one FoldPageDays call: deltas keep arriving while it
// runs, and what is left waits for the next call.
const maxFoldPasses = 100

// writeDeltas inserts the collected increments into page_day_deltas, one
// row per key and day.
func (p pageDays) writeDeltas(ctx context.Context, q Querier, d Dialect) error {
	if len(p) == 0 {
		return nil
	}
	type delta struct {
		k   pageDaysKey
		day int64
		c   *pageDayCount
	}
	var rows []delta
	for _, k := range slices.SortedFunc(mapKeys(p), comparePageDaysKeys) {
		for _, day := range slices.Sorted(mapKeys(p[k])) {
			rows = append(rows, delta{k, day, p[k][day]})
		}
	}
	var site lastArg
	err := insertRows(ctx, q, d, `INSERT INTO page_day_deltas (site_id, id, path, kind, name, day, a, b) VALUES `, 8, len(rows),
		func(args []any, i int) []any {
			r := rows[i]
			return append(args, site.str(r.k.site), NewID(), r.k.path, r.k.kind, r.k.name, r.day, r.c.a, r.c.b)
		}, ``)
	if err != nil {
		return fmt.Errorf("insert page_day_deltas: %w", err)
	}
	return nil
}

// foldPageDaysHook, when set (tests), runs in each fold transaction after
// its deltas are taken and merged, before it commits, with the sites it
// folds; an error rolls the transaction back.
var foldPageDaysHook atomic.Pointer[func(sites []string) error]

// FoldPageDays merges the deltas into page_days, in transactions of up to
// limit deltas (DefaultPageFoldLimit when limit <= 0), until fewer than
// limit are left or after maxFoldPasses transactions, and returns how many
// deltas it folded. Folders may run at once (each delta is taken by one
// DELETE); one at a time (traffic.PageFold's lease) saves them waiting on
// each other's page_days rows.
func (s *Store) FoldPageDays(ctx context.Context, limit int) (int64, error) {
	if limit <= 0 {
		limit = DefaultPageFoldLimit
	}
	var total int64
	for range maxFoldPasses {
		n, err := s.foldPageDaysOnce(ctx, limit)
		total += n
		if err != nil {
			return total, err
		}
		if n < int64(limit) {
			break
		}
	}
	if total > 0 {
		if err := s.vacuumPageDays(ctx); err != nil {
			return total, err
		}
	}
	return total, nil
}

// vacuumPageDays reclaims the row versions a fold left dead: every delta
// it took, and the page_days versions its upserts replaced. The view
// reads the deltas through their key's index, and an index entry of a
// deleted delta stays until a vacuum, so without one each view would walk
// every delta ever folded (see Vacuum).
func (s *Store) vacuumPageDays(ctx context.Context) error {
	if err := s.Vacuum(ctx, "page_day_deltas", "page_days"); err != nil {
		return fmt.Errorf("vacuum page_days: %w", err)
	}
	return nil
}

// foldPageDaysOnce is one fold transaction: it deletes about limit deltas
// (the first in key order: by site, oldest first), sums what the DELETE
// returned per key and day, and upserts page_days in key order
// (pageDays.write, which compacts the rows that outgrew their bound).
func (s *Store) foldPageDaysOnce(ctx context.Context, limit int) (int64, error) {
	var n int64
	err := s.Tx(ctx, func(q Querier) error {
		n = 0
		p := pageDays{}
		// The limit-th delta in key order bounds the DELETE: a range of
		// the primary key, scanned once whatever the planner believes of
		// the table's size (an IN (subquery with LIMIT) planned from the
		// statistics of the empty table a vacuum had just seen ran as a
		// nested loop over every delta, for minutes). What the DELETE
		// returns is what is counted, so a delta committed into the range
		// meanwhile is counted once too; one another folder deleted first
		// is skipped once that folder commits.
		where, args := "", []any(nil)
		var bound [2]string
		err := q.QueryRow(ctx, `SELECT site_id, id FROM page_day_deltas ORDER BY site_id, id LIMIT 1 OFFSET $1`, limit-1).Scan(&bound[0], &bound[1])
		switch {
		case err == nil:
			where, args = ` WHERE (site_id, id) <= ($1, $2)`, []any{bound[0], bound[1]}
		case !errors.Is(err, ErrNotFound):
			return fmt.Errorf("bound page_day_deltas: %w", err)
		}
		rows, err := q.Query(ctx, `DELETE FROM page_day_deltas`+where+` RETURNING site_id, path, kind, name, day, a, b`, args...)
		if err != nil {
			return fmt.Errorf("take page_day_deltas: %w", err)
		}
		for rows.Next() {
			var k pageDaysKey
			var day, a, b int64
			if err := rows.Scan(&k.site, &k.path, &k.kind, &k.name, &day, &a, &b); err != nil {
				rows.Close()
				return fmt.Errorf("take page_day_deltas: %w", err)
			}
			p.add(k, day, a, b)
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("take page_day_deltas: %w", err)
		}
		if err := p.write(ctx, q, s.Dialect, s.Now()); err != nil {
			return err
		}
		if hook := foldPageDaysHook.Load(); hook != nil {
			var sites []string
			for k := range p {
				if !slices.Contains(sites, k.site) {
					sites = append(sites, k.site)
				}
			}
			return (*hook)(sites)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("fold page_days: %w", err)
	}
	return n, nil
}
