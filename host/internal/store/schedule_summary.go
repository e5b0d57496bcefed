package store

import (
	"context"
	"fmt"
)

// RecentPosts returns the workspace's newest drafts and published posts
// of the scheduler, most recently changed first, at most limit.
func (s *Store) RecentPosts(ctx context.Context, workspaceID string, limit int) ([]Schedule, error) {
	rows, err := s.query(ctx, `SELECT `+scheduleColumns+` FROM schedules
		WHERE workspace_id = $1 AND status IN ('draft', 'published')
		ORDER BY updated_at DESC, id DESC LIMIT $2`, workspaceID, limit)
	if err != nil {
		return nil, fmt.Errorf("recent posts: %w", err)
	}
	defer rows.Close()
	var out []Schedule
	for rows.Next() {
		sc, err := scanSchedule(rows)
		if err != nil {
			return nil, fmt.Errorf("recent posts: %w", err)
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

// ScheduleCounts are a workspace's schedules by state for the agent's
// context: pending now, published and failed since a time.
type ScheduleCounts struct {
	Pending, Published, Failed int64
}

// ScheduleCountsSince counts the workspace's pending schedules, and those
// published or failed since (epoch ms).
func (s *Store) ScheduleCountsSince(ctx context.Context, workspaceID string, since int64) (ScheduleCounts, error) {
	var c ScheduleCounts
	err := s.queryRow(ctx, `SELECT
		COALESCE(SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = 'published' AND updated_at >= $2 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = 'failed' AND updated_at >= $2 THEN 1 ELSE 0 END), 0)
		FROM schedules WHERE workspace_id = $1`, workspaceID, since).Scan(&c.Pending, &c.Published, &c.Failed)
	if err != nil {
		return c, fmt.Errorf("count schedules: %w", err)
	}
	return c, nil
}
