package jobs

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"slices"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
)

// finishLoop writes outcomes in batches: it gathers what finishes within
// finishWindow of the first outcome (or until finishBatch are waiting), and
// whatever finishes while a batch is being written goes in the next. Under
// steady load this turns one statement per job or two into one per few
// milliseconds, which leaves the database to the claims.
func (q *Queue) finishLoop() {
	timer := time.NewTimer(finishDelay)
	timer.Stop()
	for {
		select {
		case <-q.flushCh:
		case <-q.finishStop:
			q.flush()
			return
		}
		timer.Reset(finishWindow(q.outcomesWanted()))
		select {
		case <-timer.C:
		case <-q.batchFull:
			timer.Stop()
		case <-q.finishStop:
			timer.Stop()
			q.flush()
			return
		}
		q.flush()
	}
}

// outcomesWanted says whether some lane's last claim left claimable jobs
// behind, which written outcomes may free (see finishDelay).
func (q *Queue) outcomesWanted() bool {
	for _, l := range q.lanes {
		if l.more.Load() {
			return true
		}
	}
	return false
}

// finishWindow is how long outcomes gather before they are written.
func finishWindow(wanted bool) time.Duration {
	if wanted {
		return finishDelay
	}
	return finishSteadyDelay
}

func (q *Queue) flush() {
	q.mu.Lock()
	batch := q.pending
	q.pending = nil
	q.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	outcomes := make([]jobstore.JobOutcome, len(batch))
	for i, a := range batch {
		outcomes[i] = a.outcome
	}
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := q.jobs.FinishJobs(ctx, q.owner, q.store.Now(), outcomes)
		cancel()
		if err == nil {
			break
		}
		q.metrics.errors.WithLabelValues("finish").Inc()
		// Recording an outcome twice is a no-op (it is guarded by the
		// attempt), so retrying the whole batch is safe. While the host
		// lives the heartbeat keeps the leases; if it stops, the rescuer
		// runs the jobs again elsewhere.
		if q.stopping.Load() && try >= 3 {
			q.log.Error("giving up recording job outcomes; their leases will expire and the jobs run again", "jobs", len(outcomes), "error", err)
			break
		}
		q.log.Error("recording job outcomes failed, retrying", "jobs", len(outcomes), "error", err)
		time.Sleep(finishRetryDelay(try))
	}
	q.mu.Lock()
	for _, a := range batch {
		delete(q.held, a.job.ID)
	}
	q.mu.Unlock()
	for _, a := range batch {
		// The recorded outcomes lower their workspaces' running counts:
		// jobs left behind by the running cap may be claimable now.
		if a.lane.more.Load() {
			a.lane.wakeUp()
		}
		o := a.outcome
		q.metrics.observe(a.lane.name, o.State, time.Since(a.started))
		if o.State == store.JobDelayed {
			if d, ok := retryWake(o.RunAt, q.store.Now(), q.opts.PollInterval); ok {
				time.AfterFunc(d, a.lane.wakeUp)
			}
		}
	}
}

// finishRetryDelay is how long flush waits after its try-th failed attempt
// (0-based) to record outcomes: 50ms doubling, at most 3s.
func finishRetryDelay(try int) time.Duration {
	return min(time.Duration(50<<min(try, 6))*time.Millisecond, 3*time.Second)
}

// retryWake says when to wake a lane for a retry due at runAt (store
// milliseconds, now being the store's clock): a retry due within the poll
// interval gets a timer (at once when already due), a later one is left to
// the poll, which looks up the next run time.
func retryWake(runAt, now int64, poll time.Duration) (time.Duration, bool) {
	d := time.Duration(runAt-now) * time.Millisecond
	if d > poll {
		return 0, false
	}
	return max(d, 0), true
}

// heartbeat renews the leases of the running jobs, and cancels the
// handlers of jobs whose lease is lost, so that their work stops instead of
// running twice: the lease was not renewed (the job was rescued, perhaps
// claimed by another host), or renewals have failed for longer than the
// lease (this host lost the database, the rescuer elsewhere will take it).
func (q *Queue) heartbeat(ctx context.Context) {
	q.mu.Lock()
	ids := make([]string, 0, len(q.held))
	for id, a := range q.held {
		if !a.done {
			ids = append(ids, id)
		}
	}
	q.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	asked := time.Now()
	extended, err := q.jobs.ExtendJobLeases(ctx, q.owner, ids, q.store.Now()+q.opts.Lease.Milliseconds())
	if err != nil && ctx.Err() == nil {
		q.metrics.errors.WithLabelValues("heartbeat").Inc()
		q.log.Error("extending job leases failed", "jobs", len(ids), "error", err)
	}
	if ctx.Err() != nil {
		return
	}
	renewed := make(map[string]bool, len(extended))
	for _, id := range extended {
		renewed[id] = true
	}
	var lost []*attempt
	q.mu.Lock()
	for _, id := range ids {
		a, ok := q.held[id]
		if !ok || a.done || a.released {
			continue
		}
		switch {
		case renewed[id]:
			a.leasedUntil = asked.Add(q.opts.Lease)
		case err == nil || time.Now().After(a.leasedUntil):
			lost = append(lost, a)
		}
	}
	q.mu.Unlock()
	for _, a := range lost {
		q.loseLease(a)
	}
}

// loseLease cancels an attempt whose job this host no longer owns. Its
// outcome, if any, will not be recorded (FinishJobs checks the lease).
func (q *Queue) loseLease(a *attempt) {
	q.log.Warn("job lease lost, cancelling its handler", "job", a.job.ID, "name", a.job.Name, "attempt", a.job.Attempt)
	q.metrics.lost.WithLabelValues(a.lane.name).Inc()
	a.lose(ErrLeaseLost)
}

func (q *Queue) rescue(ctx context.Context) {
	for ctx.Err() == nil {
		const batch = 500
		rescued, err := q.jobs.RescueJobs(ctx, q.store.Now(), "job lease expired: the worker stopped or lost the database", batch)
		if err != nil {
			if ctx.Err() == nil {
				q.metrics.errors.WithLabelValues("rescue").Inc()
				q.log.Error("rescuing expired jobs failed", "error", err)
			}
			return
		}
		var queues []string
		for _, r := range rescued {
			q.metrics.rescued.WithLabelValues(r.Queue, r.State).Inc()
			if r.State == store.JobWaiting && !slices.Contains(queues, r.Queue) {
				queues = append(queues, r.Queue)
			}
		}
		if len(rescued) > 0 {
			q.log.Warn("rescued jobs with expired leases", "jobs", len(rescued))
			q.Wake(queues...)
		}
		if len(rescued) < batch {
			return
		}
	}
}

func (q *Queue) prune(ctx context.Context) {
	cutoff := q.store.Now() - q.opts.Retention.Milliseconds()
	for ctx.Err() == nil {
		const batch = 1000
		n, err := q.jobs.PruneJobs(ctx, cutoff, batch)
		if err != nil {
			if ctx.Err() == nil {
				q.metrics.errors.WithLabelValues("prune").Inc()
				q.log.Error("pruning finished jobs failed", "error", err)
			}
			return
		}
		q.metrics.pruned.Add(float64(n))
		if n < batch {
			return
		}
	}
}
