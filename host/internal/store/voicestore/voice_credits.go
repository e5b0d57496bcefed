package voicestore

import "context"

// WorkspacePlan returns the plan of workspace id (store.ErrNotFound when none):
// the background brand-voice jobs, which run without a caller, pay their
// profile model calls under it.
func (s *Store) WorkspacePlan(ctx context.Context, id string) (string, error) {
	var plan string
	err := s.db.QueryRow(ctx, `SELECT plan FROM workspaces WHERE id = $1`, id).Scan(&plan)
	return plan, err
}
