package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Cap is the most objects of one counted kind a workspace may hold, checked
// in the same transaction as the insert that would pass it (Max 0: no cap).
// The create methods of the counted kinds take it as an optional last
// argument.
type Cap struct {
	Max int
}

// OverCapError is the one over-cap refusal: a capped create when the
// workspace already holds Max objects of Kind, or an enqueue when it
// already has Max ready jobs in Queue (then RetryAfter says when a retry
// may pass). Nothing was written. The API answers it with 429 and, when
// RetryAfter is set, a Retry-After header.
type OverCapError struct {
	Kind Counted
	Max  int
	// Workspace and Queue name the job queue of a refused enqueue.
	Workspace, Queue string
	RetryAfter       time.Duration
}

func (e *OverCapError) Error() string {
	if e.Queue != "" {
		return fmt.Sprintf("too many queued jobs: the workspace already has %d waiting in %s; retry later", e.Max, e.Queue)
	}
	return fmt.Sprintf("workspace holds its maximum of %d %s", e.Max, e.Kind)
}

// LockWorkspace takes the workspace row's lock for the rest of q's
// transaction (SELECT ... FOR UPDATE on PostgreSQL/CockroachDB; SQLite's
// single writer already serialises write transactions). Checks that count
// a workspace's rows and then insert one hold it, so concurrent requests
// of one workspace, on any host, take turns between the count and the
// insert. A workspace without a row (tests) is not an error.
func (s *Store) LockWorkspace(ctx context.Context, q Querier, workspaceID string) error {
	var id string
	err := q.QueryRow(ctx, `SELECT id FROM workspaces WHERE id = $1`+s.ForUpdate(), workspaceID).Scan(&id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("lock workspace: %w", err)
	}
	return nil
}

// holdCap checks, inside q's transaction and under the workspace lock,
// that the workspace holds fewer than c.Max objects of kind.
func (s *Store) holdCap(ctx context.Context, q Querier, kind Counted, workspaceID string, c Cap) error {
	if c.Max <= 0 {
		return nil
	}
	if err := s.LockWorkspace(ctx, q, workspaceID); err != nil {
		return err
	}
	var n int
	if err := q.QueryRow(ctx, countQueries[kind], workspaceID).Scan(&n); err != nil {
		return fmt.Errorf("count %s: %w", kind, err)
	}
	if n >= c.Max {
		return &OverCapError{Kind: kind, Max: c.Max}
	}
	return nil
}

// capped runs insert after the cap check in one transaction, or alone on
// the store when no cap is given.
func (s *Store) capped(ctx context.Context, kind Counted, workspaceID string, caps []Cap, insert func(q Querier) error) error {
	c := firstCap(caps)
	if c.Max <= 0 {
		return insert(s.b)
	}
	return s.Tx(ctx, func(q Querier) error {
		if err := s.holdCap(ctx, q, kind, workspaceID, c); err != nil {
			return err
		}
		return insert(q)
	})
}

func firstCap(caps []Cap) Cap {
	if len(caps) == 0 {
		return Cap{}
	}
	return caps[0]
}
