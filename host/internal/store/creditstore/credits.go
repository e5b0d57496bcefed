package creditstore

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"

	"github.com/heraldhq/herald/host/internal/events/catalog"
)

// ReserveCredits adds n to the workspace's AI credit usage of month when the
// total stays within limit, atomically, and returns the new total. ok is
// false (and nothing changes) when the limit would be exceeded.
func (s *Store) ReserveCredits(ctx context.Context, workspaceID, month string, n, limit int) (used int, ok bool, err error) {
	crossed := false
	err = s.db.Tx(ctx, func(q store.Querier) error {
		used, ok, err = s.ReserveCreditsTx(ctx, q, workspaceID, month, n, limit)
		crossed = ok && len(catalog.CreditsCrossed(workspaceID, month, used-n, used, limit)) > 0
		return err
	})
	if crossed {
		s.db.EventsCommitted()
	}
	return used, ok, err
}

// ReserveCreditsTx is ReserveCredits inside q's transaction, so a reservation
// and the write it pays for (a queued report) commit or roll back together.
func (s *Store) ReserveCreditsTx(ctx context.Context, q store.Querier, workspaceID, month string, n, limit int) (used int, ok bool, err error) {
	if n > limit {
		return 0, false, nil
	}
	err = q.QueryRow(ctx, `INSERT INTO ai_credit_usage (workspace_id, month, used) VALUES ($1, $2, $3)
		ON CONFLICT (workspace_id, month) DO UPDATE SET used = ai_credit_usage.used + $3
		WHERE ai_credit_usage.used + $3 <= $4
		RETURNING used`, workspaceID, month, n, limit).Scan(&used)
	if errors.Is(err, store.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("reserve credits: %w", err)
	}
	for _, e := range catalog.CreditsCrossed(workspaceID, month, used-n, used, limit) {
		if _, err := s.db.EmitEvent(ctx, q, store.EventOf(e)); err != nil {
			return 0, false, err
		}
	}
	return used, true, nil
}

// RefundCredits gives back n credits reserved for work that did not succeed.
func (s *Store) RefundCredits(ctx context.Context, workspaceID, month string, n int) error {
	_, err := s.db.Exec(ctx, `UPDATE ai_credit_usage SET used = used - $3 WHERE workspace_id = $1 AND month = $2 AND used >= $3`, workspaceID, month, n)
	if err != nil {
		return fmt.Errorf("refund credits: %w", err)
	}
	return nil
}

// CreditsUsed returns the workspace's AI credit usage of month.
func (s *Store) CreditsUsed(ctx context.Context, workspaceID, month string) (int, error) {
	return s.CreditsUsedTx(ctx, s.db, workspaceID, month)
}

// CreditsUsedTx is CreditsUsed read through q.
func (s *Store) CreditsUsedTx(ctx context.Context, q store.Querier, workspaceID, month string) (int, error) {
	var used int
	err := q.QueryRow(ctx, `SELECT used FROM ai_credit_usage WHERE workspace_id = $1 AND month = $2`, workspaceID, month).Scan(&used)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	return used, err
}

// Store reads and writes the AI credit usage tables of the one schema.
type Store struct{ db *store.Store }

// New returns the credit queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
