package voice

import (
	"context"

	"github.com/heraldhq/herald/host/internal/auth"
)

// ProfileCredits is what one profile written by the model costs: one AI
// credit per profile, refresh included. A measured profile (no model
// configured, or the model failed) costs nothing: the credit is given back.
const ProfileCredits = 1

// charge is a reserved profile credit: its refund (quota.Checker.Reserve).
// A nil charge is no model call (no profile model configured), which
// costs nothing.
type charge func()

// refund gives the credit back (the profile was not written by the
// model, or nothing was stored); it is safe on nil and to call twice.
func (c charge) refund() {
	if c != nil {
		c()
	}
}

func (s *Service) modelConfigured() bool { return s.deps.Models != nil && s.deps.Model != "" }

// reserveProfile reserves the credit of one model profile for the
// workspace before anything is fetched, so that a workspace without
// credits makes neither the fetch nor the model call. It answers (nil,
// nil) when no profile model is configured, and the kit's 403 when the
// month's credits are spent (quota.IsCreditLimit tells it apart).
func (s *Service) reserveProfile(ctx context.Context, p auth.Principal) (charge, error) {
	if !s.modelConfigured() {
		return nil, nil
	}
	refund, err := s.quota.Reserve(ctx, p, ProfileCredits)
	if err != nil {
		return nil, err
	}
	return charge(refund), nil
}

// checkCredits refuses, before a create is queued, a workspace whose
// month's credits cannot pay for a profile (the job reserves the credit
// itself; this only answers 403 now rather than a failed job later).
func (s *Service) checkCredits(ctx context.Context, p auth.Principal) error {
	if !s.modelConfigured() {
		return nil
	}
	return s.quota.CheckCredits(ctx, p, ProfileCredits)
}
