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

// agentGapDraft is the agent's write_for_gap over the impact service's
// Draft, the function behind the draft route.
func agentGapDraft(svc *impact.Service) agent.GapDraftFunc {
	return func(ctx context.Context, p auth.Principal, in agent.GapDraftArgs) (agent.GapDraft, error) {
		d, err := svc.Draft(ctx, p, impact.DraftInput{TrackerID: in.TrackerID, VoiceID: in.VoiceID, Keyphrase: in.Keyphrase, MinScore: in.MinScore,
			MaxRounds: in.MaxRounds, ExportTo: in.ExportTo, WebhookID: in.WebhookID, PublishAt: in.PublishAt})
		if err != nil {
			return agent.GapDraft{}, err
		}
		out := agent.GapDraft{Title: d.Title, Content: d.Content, Met: d.Met, MinScore: d.MinScore, Credits: d.Credits,
			ExportTo: d.Proposal.ExportTo, WhenToExport: d.Proposal.WhenToExport, Status: d.Proposal.Status, TrackerID: d.Proposal.TrackerID,
			WebhookID: d.Proposal.WebhookID, TargetPrompts: d.Proposal.TargetPrompts}
		for _, r := range d.Rounds {
			out.Scores = append(out.Scores, r.Score)
		}
		return out, nil
	}
}
