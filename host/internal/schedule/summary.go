package schedule

import (
	"context"

	"github.com/heraldhq/herald/host/internal/store"
)

// CountsSince counts the workspace's pending schedules, and those published
// or failed since (epoch ms), for summaries such as the agent's context.
func (s *Service) CountsSince(ctx context.Context, workspaceID string, since int64) (store.ScheduleCounts, error) {
	return s.store.ScheduleCountsSince(ctx, workspaceID, since)
}

// RecentPosts returns the workspace's newest drafts and published posts,
// most recently changed first, at most limit.
func (s *Service) RecentPosts(ctx context.Context, workspaceID string, limit int) ([]store.Schedule, error) {
	return s.store.RecentPosts(ctx, workspaceID, limit)
}
