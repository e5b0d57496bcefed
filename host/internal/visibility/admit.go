package visibility

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// admit applies the plan rules that count stored rows and writes the
// report, in one transaction under the workspace's row lock, so
// concurrent requests on any host take turns between the count and the
// write, in SPEC's order: 403 free audits used,
// 403 refresh not on the plan, 403 AI credits short
// (reserved in the transaction), 429 refreshes in the rolling 24 hours.
// A refusal writes nothing. It returns the queued job's id.
func (s *Service) admit(ctx context.Context, p auth.Principal, plan config.Plan, req ReportRequest, engines []string) (string, error) {
	report := &store.VisibilityReport{WorkspaceID: p.WorkspaceID, OneOff: req.OneOff, Refresh: req.Refresh, WebsiteURL: req.WebsiteURL,
		Input: MustJSON(req.Input), Engines: MustJSON(engines), CreditsMonth: s.quota.Month(), CreditsReserved: len(req.Prompts) * len(engines) * SamplesOf(plan.ReportSamples),
		Samples: SamplesOf(plan.ReportSamples)}
	var jobID string
	err := s.store.Tx(ctx, func(q store.Querier) error {
		var err error
		jobID, err = s.admitTx(ctx, q, p, plan, report)
		return err
	})
	var ae *connect.Error
	if errors.As(err, &ae) {
		return "", err
	}
	if err != nil {
		s.log.Error("queue visibility report", "workspace", p.WorkspaceID, "error", err)
		return "", apierr.Internal("failed to queue the report; no credit was spent, retry")
	}
	return jobID, nil
}

// admitTx is admit's transaction (run again on a retry): the workspace's
// lock, the plan rules, then the report, its job and the job's id on the
// report.
func (s *Service) admitTx(ctx context.Context, q store.Querier, p auth.Principal, plan config.Plan, report *store.VisibilityReport) (string, error) {
	report.ID = ""
	now := s.now()
	report.CreatedAt = now.UnixMilli()
	if err := s.store.LockWorkspace(ctx, q, p.WorkspaceID); err != nil {
		return "", err
	}
	if err := s.planRulesTx(ctx, q, p, plan, report, now); err != nil {
		return "", err
	}
	if err := s.store.CreateVisibilityReport(ctx, q, report); err != nil {
		return "", err
	}
	id, err := s.queue.EnqueueTx(ctx, q, ReportJob(p.WorkspaceID, report.ID))
	if err != nil {
		return "", err
	}
	return id, s.store.SetVisibilityReportJob(ctx, q, p.WorkspaceID, report.ID, id)
}

// planRulesTx checks the rules that count stored rows, in SPEC's order,
// and reserves the report's credits, under the workspace's lock.
func (s *Service) planRulesTx(ctx context.Context, q store.Querier, p auth.Principal, plan config.Plan, report *store.VisibilityReport, now time.Time) error {
	if plan.FreeAudits > 0 {
		n, err := s.store.CountVisibilityReportsTx(ctx, q, p.WorkspaceID)
		if err != nil {
			return err
		}
		if n >= plan.FreeAudits {
			return apierr.Forbidden("free audit already used: the %s plan includes %d report(s); upgrade to run more", p.Plan, plan.FreeAudits)
		}
	}
	if report.Refresh && plan.RefreshesPer24h == 0 {
		return apierr.Forbidden("refresh is not available on the %s plan; upgrade to refresh reports", p.Plan)
	}
	cost := report.CreditsReserved
	if used, ok, err := s.quota.ReserveTx(ctx, q, p.WorkspaceID, report.CreditsMonth, plan, cost); err != nil {
		return err
	} else if !ok {
		return creditError(p.Plan, plan, used, cost)
	}
	if report.Refresh {
		times, err := s.store.RefreshTimesTx(ctx, q, p.WorkspaceID, now.Add(-refreshWindow).UnixMilli())
		if err != nil {
			return err
		}
		if len(times) >= plan.RefreshesPer24h {
			return refreshLimitError(p.Plan, plan, times, now)
		}
	}
	return nil
}

// refreshLimitError is the 429 of a full refresh window, with Retry-After
// until the oldest refresh in it ages out and frees a slot.
func refreshLimitError(planName string, plan config.Plan, times []int64, now time.Time) error {
	oldest := times[len(times)-plan.RefreshesPer24h]
	wait := time.UnixMilli(oldest).Add(refreshWindow).Sub(now)
	secs := max(1, int(math.Ceil(wait.Seconds())))
	e := apierr.New(connect.CodeResourceExhausted,
		fmt.Sprintf("refresh limit reached: the %s plan allows %d refreshes in 24 hours; retry in %d seconds", planName, plan.RefreshesPer24h, secs),
		"retryAfter", strconv.Itoa(secs))
	e.Meta().Set("Retry-After", strconv.Itoa(secs))
	return e
}

// SamplesOf is a plan's samples setting (report_samples or
// tracker_samples), 1 when unset.
func SamplesOf(n int) int { return max(1, min(config.MaxSamples, n)) }
