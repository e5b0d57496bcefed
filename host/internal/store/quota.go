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

// CountVisibilityReportsTx is CountVisibilityReports read through q: the
// free audit is checked with it under LockWorkspace, in the transaction
// that inserts the report.
func (s *Store) CountVisibilityReportsTx(ctx context.Context, q Querier, workspaceID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT COUNT(*) FROM visibility_reports WHERE workspace_id = $1 AND state <> 'failed'`, workspaceID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count reports: %w", err)
	}
	return n, nil
}

// RefreshTimesTx returns the creation times (epoch ms) of the workspace's
// refreshes (not failed) after since, oldest first, read through q: the
// refresh window is checked with it under LockWorkspace, in the transaction
// that inserts the refresh.
func (s *Store) RefreshTimesTx(ctx context.Context, q Querier, workspaceID string, since int64) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT created_at FROM visibility_reports WHERE workspace_id = $1 AND refresh = TRUE AND state <> 'failed'
		AND created_at > $2 ORDER BY created_at`, workspaceID, since)
	if err != nil {
		return nil, fmt.Errorf("list refreshes: %w", err)
	}
	defer rows.Close()
	var times []int64
	for rows.Next() {
		var t int64
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("list refreshes: %w", err)
		}
		times = append(times, t)
	}
	return times, rows.Err()
}
