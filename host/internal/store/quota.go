package store

import (
	"context"
	"fmt"
)

// Counted names a kind of object a workspace holds a limited number of.
type Counted string

// The counted kinds and what counts: live rows, and of schedules those
// still waiting (draft, pending, publishing), which hold storage and queue
// work; published and failed posts are history.
const (
	CountVoices    Counted = "voices"
	CountWebhooks  Counted = "webhooks"
	CountSites     Counted = "sites"
	CountSchedules Counted = "schedules"
)

var countQueries = map[Counted]string{
	CountVoices:    `SELECT COUNT(*) FROM brand_voices WHERE workspace_id = $1`,
	CountWebhooks:  `SELECT COUNT(*) FROM webhooks WHERE workspace_id = $1 AND deleted_at IS NULL`,
	CountSites:     `SELECT COUNT(*) FROM traffic_sites WHERE workspace_id = $1`,
	CountSchedules: `SELECT COUNT(*) FROM schedules WHERE workspace_id = $1 AND status IN ('draft', 'pending', 'publishing')`,
}

// CountWorkspace returns how many objects of kind the workspace holds.
func (s *Store) CountWorkspace(ctx context.Context, kind Counted, workspaceID string) (int, error) {
	q, ok := countQueries[kind]
	if !ok {
		return 0, fmt.Errorf("count %s: unknown kind", kind)
	}
	var n int
	if err := s.queryRow(ctx, q, workspaceID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s: %w", kind, err)
	}
	return n, nil
}
