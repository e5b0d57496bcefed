package schedule

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
)

// errNotFailed rolls back a retry whose schedule is no longer failed.
var errNotFailed = errors.New("schedule is not failed")

// Retry puts a failed schedule back to pending, exported at when (ISO-8601)
// or now when empty, with a new publish job in the same transaction. The
// schedule keeps its id, so the destination sees the same idempotency key
// (a webhook receiver deduplicates a delivery that did arrive). Only a
// failed schedule is retried: 409 for the others, 404 for an unknown one.
func (s *Service) Retry(ctx context.Context, p auth.Principal, id, when string) (Schedule, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return Schedule{}, err
	}
	sc, err := s.store.GetSchedule(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return Schedule{}, apierr.NotFound("schedule %q not found", id)
	} else if err != nil {
		return Schedule{}, err
	}
	if statusOf(sc.Status) != StatusFailed {
		return Schedule{}, apierr.Conflict("schedule %s is %s: only a failed schedule can be retried", id, sc.Status)
	}
	at := s.store.Now()
	if strings.TrimSpace(when) != "" {
		t, err := ParseTime(when)
		if err != nil {
			return Schedule{}, apierr.Invalid("whenToExport %q is not an ISO-8601 time such as 2030-01-02T15:04:05Z", when)
		}
		at = t.UnixMilli()
	}
	err = s.store.Tx(ctx, func(q store.Querier) error {
		jobID, err := s.queue.EnqueueTx(ctx, q, publishJob(sc.WorkspaceID, sc.ID, at))
		if err != nil {
			return fmt.Errorf("enqueue publish job: %w", err)
		}
		ok, err := s.store.RetrySchedule(ctx, q, sc.WorkspaceID, sc.ID, at, jobID)
		if err == nil && !ok {
			err = errNotFailed
		}
		return err
	})
	if errors.Is(err, errNotFailed) {
		return Schedule{}, apierr.Conflict("schedule %s is no longer failed (retried or deleted meanwhile)", id)
	}
	if err != nil {
		return Schedule{}, err
	}
	s.queue.Wake(jobs.ContentQueue)
	sc, err = s.store.GetSchedule(ctx, p.WorkspaceID, id)
	return fromStore(sc), err
}
