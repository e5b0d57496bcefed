package main

import (
	"context"

	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/impact"
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

// agentGapBrief is the agent's get_gap_brief over the impact service.
func agentGapBrief(svc *impact.Service) agent.GapBriefFunc {
	return func(ctx context.Context, p auth.Principal, trackerID string) (any, error) {
		b, err := svc.Brief(ctx, p, trackerID)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
}
