package visibility

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
)

// admit applies the plan rules that count stored rows and writes the
// report, in one transaction under the workspace's row lock, so
// concurrent requests on any host take turns between the count and the
// write (issue 22.3, issue 28), in SPEC's order: 403 free audits used,
// 403 refresh not on the plan, 403 AI credits short
// (reserved in the transaction), 429 refreshes in the rolling 24 hours.
// A refusal writes nothing. It returns the queued job's id.
func (s *Service) admit(ctx context.Context, p auth.Principal, plan config.Plan, req ReportRequest, in Input, engines []string) (string, error) {
	cost := len(in.Prompts) * len(engines)
	month := s.quota.Month()
	inputJSON, _ := json.Marshal(in)
	enginesJSON, _ := json.Marshal(engines)
	report := &store.VisibilityReport{WorkspaceID: p.WorkspaceID, OneOff: req.OneOff, Refresh: req.Refresh, WebsiteURL: in.WebsiteURL,
		Input: string(inputJSON), Engines: string(enginesJSON), CreditsMonth: month, CreditsReserved: cost}
	var jobID string
	err := s.store.Tx(ctx, func(q store.Querier) error {
		report.ID, jobID = "", ""
		now := s.now()
		report.CreatedAt = now.UnixMilli()
		if err := s.store.LockWorkspace(ctx, q, p.WorkspaceID); err != nil {
			return err
		}
		if plan.FreeAudits > 0 {
			n, err := s.store.CountVisibilityReportsTx(ctx, q, p.WorkspaceID)
			if err != nil {
				return err
			}
			if n >= plan.FreeAudits {
				return apierr.Forbidden("free audit already used: the %s plan includes %d report(s); upgrade to run more", p.Plan, plan.FreeAudits)
			}
		}
		if req.Refresh && plan.RefreshesPer24h == 0 {
			return apierr.Forbidden("refresh is not available on the %s plan; upgrade to refresh reports", p.Plan)
		}
		if used, ok, err := s.quota.ReserveTx(ctx, q, p.WorkspaceID, month, plan, cost); err != nil {
			return err
		} else if !ok {
			return creditError(p.Plan, plan, used, cost)
		}
		if req.Refresh {
			times, err := s.store.RefreshTimesTx(ctx, q, p.WorkspaceID, now.Add(-refreshWindow).UnixMilli())
			if err != nil {
				return err
			}
			if len(times) >= plan.RefreshesPer24h {
				return refreshLimitError(p.Plan, plan, times, now)
			}
		}
		if err := s.store.CreateVisibilityReport(ctx, q, report); err != nil {
			return err
		}
		id, err := s.queue.EnqueueTx(ctx, q, jobs.NewJob{Workspace: p.WorkspaceID, Queue: jobs.SEOQueue, Name: JobName, Data: jobData{ReportID: report.ID}})
		if err != nil {
			return err
		}
		jobID = id
		return s.store.SetVisibilityReportJob(ctx, q, p.WorkspaceID, report.ID, id)
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
