package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestManyDistinctQueriesStillRunWhenTheStatementCacheIsFull(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for i := range 300 {
			var n int
			if err := s.queryRow(ctx, fmt.Sprintf(`SELECT %d + COUNT(*) FROM workspaces`, i)).Scan(&n); err != nil || n != i {
				t.Fatalf("query %d: %d %v", i, n, err)
			}
			rows, err := s.query(ctx, fmt.Sprintf(`SELECT %d FROM workspaces UNION ALL SELECT %d`, i, i))
			if err != nil {
				t.Fatalf("query %d: %v", i, err)
			}
			for rows.Next() {
				if err := rows.Scan(&n); err != nil || n != i {
					t.Fatalf("query %d: %d %v", i, n, err)
				}
			}
			rows.Close()
			if _, err := s.exec(ctx, fmt.Sprintf(`UPDATE workspaces SET plan = plan WHERE name = 'w%d'`, i)); err != nil {
				t.Fatalf("exec %d: %v", i, err)
			}
			err = s.Tx(ctx, func(q Querier) error {
				_, err := q.Exec(ctx, fmt.Sprintf(`UPDATE workspaces SET plan = plan WHERE name = 'tx%d'`, i))
				return err
			})
			if err != nil {
				t.Fatalf("tx %d: %v", i, err)
			}
		}
	})
}

// TestStmtCacheKeepsAtMostMaxCachedStmts prepares each query once, returns
// the same statement for it afterwards, and past maxCachedStmts returns nil
// (the caller runs the query unprepared) without growing.
func TestStmtCacheKeepsAtMostMaxCachedStmts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	db := s.b.(*sqliteBackend).r
	var c stmtCache
	defer c.close()
	first, err := c.get(ctx, db, `SELECT 0`)
	if err != nil || first == nil {
		t.Fatalf("first get: %v %v, want a prepared statement", first, err)
	}
	if again, err := c.get(ctx, db, `SELECT 0`); err != nil || again != first {
		t.Fatalf("second get: %p %v, want the cached %p", again, err, first)
	}
	if st, err := c.get(ctx, db, `SELEC 0`); err == nil || st != nil {
		t.Fatalf("a query that does not parse: %v %v, want an error", st, err)
	}
	for i := 1; i < maxCachedStmts; i++ {
		if st, err := c.get(ctx, db, fmt.Sprintf(`SELECT %d`, i)); err != nil || st == nil {
			t.Fatalf("query %d of %d: %v %v, want a prepared statement", i+1, maxCachedStmts, st, err)
		}
	}
	if st, err := c.get(ctx, db, `SELECT 'one too many'`); err != nil || st != nil {
		t.Fatalf("a query past a full cache: %v %v, want nil, nil", st, err)
	}
	if len(c.m) != maxCachedStmts {
		t.Fatalf("%d statements cached, want %d", len(c.m), maxCachedStmts)
	}
	if again, err := c.get(ctx, db, `SELECT 0`); err != nil || again != first {
		t.Fatalf("a cached query of a full cache: %p %v, want %p", again, err, first)
	}
	c.close()
	if c.m != nil {
		t.Fatalf("close left %d statements", len(c.m))
	}
}

func TestIsReadSendsOnlySelectsToTheReaderPool(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		`SELECT 1`:                           true,
		"  \t\r\nselect x FROM t":            true,
		`Select`:                             true,
		`SELEC`:                              false,
		``:                                   false,
		`INSERT INTO t SELECT 1`:             false,
		`UPDATE t SET x = 1`:                 false,
		`WITH x AS (SELECT 1) DELETE FROM t`: false,
	} {
		if got := isRead(q); got != want {
			t.Errorf("isRead(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestSQLiteReadsIgnoreCancellationAndWritesDoNot: plain reads on the
// reader pool run without the context's cancellation (cheaper in the
// driver); a statement on the writer keeps it.
func TestSQLiteReadsIgnoreCancellationAndWritesDoNot(t *testing.T) {
	t.Parallel()
	s, err := Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var n int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM workspaces`).Scan(&n); err != nil {
		t.Errorf("a read with a cancelled context: %v", err)
	}
	rows, err := s.query(ctx, `SELECT COUNT(*) FROM workspaces`)
	if err != nil {
		t.Errorf("a query with a cancelled context: %v", err)
	} else {
		rows.Close()
	}
	err = s.queryRow(ctx, `INSERT INTO workspaces (id, name, plan, created_at) VALUES ('w', 'w', 'free', 0) RETURNING 1`).Scan(&n)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a write with a cancelled context: %v, want context.Canceled", err)
	}
	rows, err = s.query(ctx, `INSERT INTO workspaces (id, name, plan, created_at) VALUES ('w', 'w', 'free', 0) RETURNING 1`)
	if err == nil {
		rows.Close()
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a write query with a cancelled context: %v, want context.Canceled", err)
	}
}
