package store

import (
	"context"
	"fmt"
	"strings"
)

// Vacuum reclaims, on PostgreSQL, the dead row versions of tables that a
// part of Herald churns (the job queue's claims and outcomes, the page
// fold's deletes and upserts): an index entry of a row version that an
// UPDATE or DELETE replaced stays until a vacuum, and every scan of the
// index walks it until then. Autovacuum may be late (by default it waits
// for a fifth of a table to be dead) or off (it is on the test machine),
// so what churns a table does not rely on it. SKIP_LOCKED: a vacuum that
// another host runs on the same table is enough. TRUNCATE false: giving
// the empty pages at a table's end back to the system takes the table's
// exclusive lock, which every reader and writer of a hot table would
// queue behind; new rows reuse those pages anyway. CockroachDB (no VACUUM;
// its MVCC garbage collection is by age) and SQLite (a deleted row's
// index entries go with it) do nothing.
func (s *Store) Vacuum(ctx context.Context, tables ...string) error {
	if s.Dialect != Postgres || len(tables) == 0 {
		return nil
	}
	switch s.vacuums.Load() {
	case 0:
		var v string
		if err := s.queryRow(ctx, `SELECT version()`).Scan(&v); err != nil {
			return fmt.Errorf("vacuum: %w", err)
		}
		if strings.Contains(v, "CockroachDB") {
			s.vacuums.Store(2)
			return nil
		}
		s.vacuums.Store(1)
	case 2:
		return nil
	}
	if _, err := s.exec(ctx, `VACUUM (SKIP_LOCKED, TRUNCATE false) `+strings.Join(tables, ", ")); err != nil {
		return fmt.Errorf("vacuum %s: %w", strings.Join(tables, ", "), err)
	}
	return nil
}
