package voice

import (
	"context"
	"fmt"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
)

// ProfileCredits is what one profile written by the model costs: one AI
// credit per profile, refresh included. A measured profile (no model
// configured, or the model failed) costs nothing: the credit is given back.
const ProfileCredits = 1

// noCredits is a profile the workspace cannot pay for this month.
type noCredits struct {
	plan  string
	limit int
}

func (e noCredits) Error() string {
	return fmt.Sprintf("monthly AI credit limit reached: the %s plan allows %d credits a month, and a brand voice profile costs %d", e.plan, e.limit, ProfileCredits)
}

// forbidden is e as the API's 403.
func (e noCredits) forbidden() error { return apierr.Forbidden("%s", e.Error()) }

// charge is a reserved profile credit; a nil charge is no model call (no
// profile model configured), which costs nothing.
type charge struct {
	s                  *Service
	workspace, month   string
	refunded, reserved bool
}

func (s *Service) modelConfigured() bool { return s.deps.Models != nil && s.deps.Model != "" }

// reserveProfile reserves the credit of one model profile for the
// workspace before anything is fetched, so that a workspace without
// credits makes neither the fetch nor the model call. It answers (nil,
// nil) when no profile model is configured, and noCredits when the month's
// credits are spent.
func (s *Service) reserveProfile(ctx context.Context, p auth.Principal) (*charge, error) {
	if !s.modelConfigured() {
		return nil, nil
	}
	planName := p.Plan
	if planName == "" { // a background job: the workspace's plan now
		var err error
		if planName, err = s.store.WorkspacePlan(ctx, p.WorkspaceID); err != nil {
			return nil, fmt.Errorf("workspace plan: %w", err)
		}
	}
	plan, _ := s.deps.Plans.Get(planName)
	month := s.deps.Now().UTC().Format("2006-01")
	_, ok, err := s.store.ReserveCredits(ctx, p.WorkspaceID, month, ProfileCredits, plan.MonthlyAICredits)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noCredits{plan: planName, limit: plan.MonthlyAICredits}
	}
	return &charge{s: s, workspace: p.WorkspaceID, month: month, reserved: true}, nil
}

// checkCredits refuses, before a create is queued, a workspace whose
// month's credits cannot pay for a profile (the job reserves the credit
// itself; this only answers 403 now rather than a failed job later).
func (s *Service) checkCredits(ctx context.Context, p auth.Principal) error {
	if !s.modelConfigured() {
		return nil
	}
	plan, _ := s.deps.Plans.Get(p.Plan)
	used, err := s.store.CreditsUsed(ctx, p.WorkspaceID, s.deps.Now().UTC().Format("2006-01"))
	if err != nil {
		return err
	}
	if used+ProfileCredits > plan.MonthlyAICredits {
		return noCredits{plan: p.Plan, limit: plan.MonthlyAICredits}.forbidden()
	}
	return nil
}

// refund gives the credit back (the profile was not written by the
// model, or nothing was stored); it is safe on nil and to call twice.
func (c *charge) refund(ctx context.Context) {
	if c == nil || !c.reserved || c.refunded {
		return
	}
	c.refunded = true
	if err := c.s.store.RefundCredits(context.WithoutCancel(ctx), c.workspace, c.month, ProfileCredits); err != nil {
		c.s.deps.Logger.Error("refund AI credit", "workspace", c.workspace, "error", err)
	}
}
