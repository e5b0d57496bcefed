package main

import (
	"context"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/tracker"
)

// lateTargets checks a post's targets with the tracker service, which is
// built after the scheduler (trackers run reports; the scheduler comes
// first in the areas' order).
type lateTargets struct{ svc *tracker.Service }

func (l *lateTargets) CheckTargets(ctx context.Context, workspaceID, trackerID string, prompts []string) error {
	if l.svc == nil {
		return apierr.Internal("trackers are not available yet")
	}
	return l.svc.CheckTargets(ctx, workspaceID, trackerID, prompts)
}
