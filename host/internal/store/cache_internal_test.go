package store

import (
	"context"
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
			if _, err := s.exec(ctx, fmt.Sprintf(`UPDATE workspaces SET plan = plan WHERE name = 'w%d'`, i)); err != nil {
				t.Fatalf("exec %d: %v", i, err)
			}
			err := s.Tx(ctx, func(q Querier) error {
				_, err := q.Exec(ctx, fmt.Sprintf(`UPDATE workspaces SET plan = plan WHERE name = 'tx%d'`, i))
				return err
			})
			if err != nil {
				t.Fatalf("tx %d: %v", i, err)
			}
		}
	})
}
