package storetest

import (
	"context"

	"github.com/heraldhq/herald/host/internal/store"
)

// Raw SQL for tests. Code outside the store goes through the Store's
// methods; a test sometimes needs what no method offers: a fixture table,
// a row tampered as another host would leave it, or a look at a column as
// stored (sealed, masked). These helpers run such SQL, each call in a
// transaction of its own, on either backend. They take no *testing.T so
// that test helper processes (the jobs test worker) can use them too.

// Exec runs a statement and returns the number of rows it affected.
func Exec(ctx context.Context, s *store.Store, sql string, args ...any) (int64, error) {
	var n int64
	err := s.Tx(ctx, func(q store.Querier) error {
		var err error
		n, err = q.Exec(ctx, sql, args...)
		return err
	})
	return n, err
}

// QueryRow runs a single-row query when its Scan is called; Scan returns
// store.ErrNotFound when there is no row.
func QueryRow(ctx context.Context, s *store.Store, sql string, args ...any) store.Row {
	return row{ctx, s, sql, args}
}

type row struct {
	ctx  context.Context
	s    *store.Store
	sql  string
	args []any
}

func (r row) Scan(dest ...any) error {
	return r.s.Tx(r.ctx, func(q store.Querier) error {
		return q.QueryRow(r.ctx, r.sql, r.args...).Scan(dest...)
	})
}

// Query runs a query and calls each for every row in order, stopping at the
// first error.
func Query(ctx context.Context, s *store.Store, each func(r store.Row) error, sql string, args ...any) error {
	return s.Tx(ctx, func(q store.Querier) error {
		rows, err := q.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := each(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}
