package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
)

// The publisher's reconcile loop: due repeat occurrences created ahead, due
// schedules whose publish job went missing requeued, those whose job
// failed for good failed.

// Start reconciles at once (schedules that fell due while no host ran are
// published by their jobs as soon as the queue starts; this catches those
// whose job is gone) and then every ReconcileInterval until Stop.
func (p *Publisher) Start(context.Context) error {
	go func() {
		defer close(p.done)
		t := time.NewTicker(p.opts.ReconcileInterval)
		defer t.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), reconcileTimeout(p.opts.ReconcileInterval))
			if err := p.Reconcile(ctx); err != nil {
				p.deps.Logger.Error("reconciling schedules failed", "error", err)
			}
			cancel()
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// reconcileTimeout bounds one reconcile pass: the interval, and never less
// than 30 s, so a pass over many rules on a busy database finishes rather
// than being cut off at a short interval and started again from scratch
// (passes run one after another; the ticker drops the ticks a long pass
// spans). Seen in CI with a 1 s interval: two passes over 500 repeat rules
// cut off in a row.
func reconcileTimeout(interval time.Duration) time.Duration {
	return max(interval, 30*time.Second)
}

// Stop ends the reconcile loop and waits for a running pass, or for ctx.
func (p *Publisher) Stop(ctx context.Context) error {
	p.stopOnce.Do(func() { close(p.stop) })
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errRequeuedElsewhere rolls back a requeue that another reconciler made first.
var errRequeuedElsewhere = errors.New("schedule requeued by another reconciler")

// Reconcile creates the repeat rules' occurrences due within RepeatAhead,
// gives a new publish job to every due unfinished schedule whose job is
// missing or completed, and fails those whose job failed for good without
// recording an outcome.
func (p *Publisher) Reconcile(ctx context.Context) error {
	st, q := p.deps.Store, p.deps.Queue
	if a, ok := p.deps.Credentials.(interface {
		AnnounceExpiring(context.Context) (int, error)
	}); ok {
		if _, err := a.AnnounceExpiring(ctx); err != nil {
			p.deps.Logger.Warn("announcing expiring connections failed", "error", err)
		}
	}
	if n, err := p.createDueOccurrences(ctx); err != nil {
		return fmt.Errorf("create repeat occurrences: %w", err)
	} else if n > 0 {
		q.Wake(jobs.ContentQueue)
	}
	orphans, err := st.OrphanSchedules(ctx, st.Now(), 500)
	if err != nil {
		return err
	}
	requeued := 0
	for _, o := range orphans {
		if o.JobState == store.JobFailed {
			reason := "the publish job failed"
			if o.JobReason != nil {
				reason += ": " + *o.JobReason
			}
			event := catalog.ScheduleFailure(o.WorkspaceID, catalog.Schedule{ScheduleID: o.ID, Destination: o.ExportTo, Error: reason})
			if err := st.FailUnfinishedSchedule(ctx, o.WorkspaceID, o.ID, reason, &event); err != nil {
				return err
			}
			continue
		}
		err := st.Tx(ctx, func(tx store.Querier) error {
			jobID, err := q.EnqueueTx(ctx, tx, publishJob(o.WorkspaceID, o.ID, st.Now()))
			if err != nil {
				return err
			}
			// Another reconciler (the start-up pass, another host) may have
			// requeued it since we looked: then this job is rolled back.
			ok, err := st.ReplaceScheduleJob(ctx, tx, o.WorkspaceID, o.ID, o.JobID, jobID)
			if err == nil && !ok {
				err = errRequeuedElsewhere
			}
			return err
		})
		if errors.Is(err, errRequeuedElsewhere) {
			continue
		}
		if err != nil {
			return fmt.Errorf("requeue schedule %s: %w", o.ID, err)
		}
		requeued++
	}
	if requeued > 0 {
		p.deps.Logger.Warn("requeued due schedules that had no publish job", "schedules", requeued)
		q.Wake(jobs.ContentQueue)
	}
	return nil
}
