package jobs

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
)

// Start begins claiming and running jobs, heart-beating leases, rescuing
// expired leases and pruning old jobs, until Stop. ctx bounds only the
// start-up (the Redis subscription); when Redis is unreachable the queue
// starts anyway and polls.
func (q *Queue) Start(ctx context.Context) error {
	if !q.state.CompareAndSwap(0, 1) {
		return errors.New("jobs: queue already started or stopped")
	}
	if q.signal != nil {
		if err := q.signal.subscribe(ctx, q.wakeLocal); err != nil {
			q.log.Warn("redis wake-ups unavailable, polling until they come back", "every", q.opts.PollInterval.String(), "error", err) // a string: JSON logs would print nanoseconds
		}
	}
	fetchCtx, fetchStop := context.WithCancel(context.Background())
	q.fetchStop = fetchStop
	q.workCtx, q.workCancel = context.WithCancel(context.Background())
	bgCtx, bgCancel := context.WithCancel(context.Background())
	q.bgCtx, q.bgCancel = bgCtx, bgCancel
	q.finishStop = make(chan struct{})

	for _, name := range QueueNames {
		l := q.lanes[name]
		q.fetchers.Add(1)
		go func() {
			defer q.fetchers.Done()
			q.fetchLoop(fetchCtx, l)
		}()
	}
	q.finisher.Add(1)
	go func() {
		defer q.finisher.Done()
		q.finishLoop()
	}()
	for _, loop := range []struct {
		every time.Duration
		fn    func(context.Context)
	}{
		{q.opts.Lease / 3, q.heartbeat},
		{q.opts.RescueInterval, q.rescue},
		{q.opts.PruneInterval, q.prune},
	} {
		q.background.Add(1)
		go func() {
			defer q.background.Done()
			ticker := time.NewTicker(loop.every)
			defer ticker.Stop()
			loop.fn(bgCtx)
			for {
				select {
				case <-bgCtx.Done():
					return
				case <-ticker.C:
					loop.fn(bgCtx)
				}
			}
		}()
	}
	return nil
}

func (q *Queue) wakeLocal(queue string) {
	if l, ok := q.lanes[queue]; ok {
		l.wakeUp()
	}
}

// Stop shuts the queue down gracefully: it stops claiming, lets active jobs
// finish until ctx ends, then cancels the rest and hands their leases back
// (without counting the attempt) so that another host takes them at once.
// Outcomes are written before Stop returns.
func (q *Queue) Stop(ctx context.Context) error {
	if !q.state.CompareAndSwap(1, 2) {
		if q.state.CompareAndSwap(0, 2) && q.signal != nil {
			q.signal.close()
		}
		return nil
	}
	q.stopping.Store(true)
	q.fetchStop()
	q.fetchers.Wait()

	finished := make(chan struct{})
	go func() {
		q.runners.Wait()
		close(finished)
	}()
	var err error
	select {
	case <-finished:
	case <-ctx.Done():
		err = q.release()
	}
	close(q.finishStop)
	q.finisher.Wait()
	q.bgCancel()
	q.background.Wait()
	q.workCancel()
	if q.signal != nil {
		q.signal.close()
	}
	return err
}

// release hands back the jobs still running at the end of the grace period.
func (q *Queue) release() error {
	q.mu.Lock()
	var ids []string
	for id, a := range q.held {
		if a.done || a.released {
			continue
		}
		a.released = true
		a.cancel()
		ids = append(ids, id)
		delete(q.held, id)
	}
	q.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	queues, err := q.jobs.ReleaseJobs(ctx, q.owner, ids, q.store.Now())
	if err != nil {
		return fmt.Errorf("hand back %d jobs at shutdown: %w", len(ids), err)
	}
	q.log.Info("handed back unfinished jobs", "jobs", len(queues))
	if q.signal != nil {
		slices.Sort(queues)
		for _, name := range slices.Compact(queues) {
			q.signal.publishNow(ctx, name)
		}
	}
	return nil
}

func jitter(d time.Duration) time.Duration {
	return d - d/10 + rand.N(d/5+1)
}

// fetchLoop claims jobs of one queue whenever it is woken (enqueue here or
// on another host, a finished job while more are waiting), a delayed job
// falls due, or the poll interval passes.
func (q *Queue) fetchLoop(ctx context.Context, l *lane) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
			if l.streaming && !pause(ctx, cooldownLeft(time.Since(last))) {
				return
			}
		case <-timer.C:
		}
		last = time.Now()
		next := q.fetch(ctx, l)
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(next)
	}
}

// fetch claims until the lane is full or the queue has nothing claimable,
// and returns when to look again without a wake-up.
func (q *Queue) fetch(ctx context.Context, l *lane) time.Duration {
	poll := jitter(q.opts.PollInterval)
	waited := false // for more free slots, once per claim (backlogWait)
	for ctx.Err() == nil {
		free := l.limit - int(l.running.Load())
		if free <= 0 {
			// Set more before re-reading running: a job finishing in
			// between either sees more or frees a slot we see.
			l.more.Store(true)
			if l.limit-int(l.running.Load()) <= 0 {
				return poll
			}
			continue
		}
		if !waited && waitForSlots(free, l.limit, l.backlog.Load()) {
			waited = true
			if !pause(ctx, backlogWait) {
				return poll
			}
			continue
		}
		waited = false
		n := min(free, maxClaim)
		// The claim must not be cut off by cancellation: a claim that
		// commits unseen would strand its jobs until their lease expires.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		now := q.store.Now()
		claimed, err := q.jobs.ClaimJobsCapped(cctx, l.name, q.owner, n, now, now+q.opts.Lease.Milliseconds(), *q.caps.Load(), l.backlog.Load())
		cancel()
		// A wake-up that came in while a claim that was not full ran (not
		// one that a job it starts causes) means enqueues are streaming
		// in. A full claim leaves a backlog, whose wake-ups are finishing
		// jobs: no cooldown then (backlogWait batches those claims).
		l.streaming = streamingIn(len(l.wake), len(claimed), n)
		if err != nil {
			q.log.Error("claim failed", "queue", l.name, "error", err)
			q.metrics.errors.WithLabelValues("claim").Inc()
			return min(poll, time.Second)
		}
		for _, j := range claimed {
			q.start(l, j)
		}
		q.churned(len(claimed))
		l.backlog.Store(len(claimed) == n)
		if len(claimed) == n {
			l.more.Store(true)
			continue
		}
		l.more.Store(false)
		if len(claimed) > 0 {
			// Jobs are flowing: the next enqueue wakes the lane anyway, so
			// skip the round trip for the next run time (it would delay the
			// next claim) and look once more shortly, which finds it.
			return min(recheck, poll)
		}
		at, err := q.jobs.NextJobRunAt(ctx, l.name)
		if err != nil || at == nil {
			return poll
		}
		next, leftBehind := untilDue(time.Duration(*at-q.store.Now())*time.Millisecond, poll)
		if leftBehind {
			l.more.Store(true)
		}
		return next
	}
	return poll
}

// cooldownLeft is how long a streaming lane still waits before its next
// claim, since its last one began (none when not positive).
func cooldownLeft(since time.Duration) time.Duration { return fetchCooldown - since }

// waitForSlots says whether a lane whose last claim was full (backlog)
// waits backlogWait for more slots before claiming: when fewer than half
// of its slots are free.
func waitForSlots(free, limit int, backlog bool) bool { return backlog && free < limit/2 }

// streamingIn says whether enqueues are streaming in: wake-ups came in
// while a claim for n ran and it got fewer (claimed).
func streamingIn(wakes, claimed, n int) bool { return wakes > 0 && claimed < n }

// untilDue returns when a lane whose claim found nothing looks again, given
// when the next claimable job is due: then, at most at the poll. A job due
// already was left behind by the claim (its workspace is at its running
// cap, or another host is claiming it): claiming again at once would find
// the same, so the lane waits for the poll, and leftBehind asks a job
// finishing here to wake it (the poll covers jobs finishing elsewhere).
func untilDue(due, poll time.Duration) (next time.Duration, leftBehind bool) {
	if due <= 0 {
		return poll, true
	}
	return min(due, poll), false
}

// pause waits d (nothing when d <= 0) and reports false if ctx ended first.
func pause(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (q *Queue) start(l *lane, sj jobstore.Job) {
	reg, ok := q.handler(sj.Queue, sj.Name)
	timeout := reg.opts.Timeout
	if !ok {
		timeout = DefaultTimeout
	}
	leased, lose := context.WithCancelCause(q.workCtx)
	ctx, cancel := context.WithTimeout(leased, timeout)
	a := &attempt{
		job: &Job{
			ID: sj.ID, Workspace: sj.WorkspaceID, Queue: sj.Queue, Name: sj.Name, Data: []byte(sj.Data),
			Attempt: sj.AttemptsMade, MaxAttempts: sj.MaxAttempts, q: q,
		},
		lane: l, reg: reg, cancel: cancel, lose: lose, started: time.Now(),
		leasedUntil: time.Now().Add(q.opts.Lease),
	}
	a.job.a = a
	q.mu.Lock()
	q.held[sj.ID] = a
	q.mu.Unlock()
	l.running.Add(1)
	q.metrics.running.WithLabelValues(l.name).Inc()
	q.runners.Add(1)
	go q.work(ctx, a, ok, timeout)
}

func (q *Queue) work(ctx context.Context, a *attempt, ok bool, timeout time.Duration) {
	defer q.runners.Done()
	var result any
	var err error
	if ok {
		result, err = call(ctx, a.reg.h, a.job)
	} else {
		err = fmt.Errorf("no handler for job name %q on this host", a.job.Name)
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("job timed out after %s: %w", timeout, err)
	}
	outcome := q.outcome(a, result, err)
	a.cancel()
	a.lose(nil)
	l := a.lane
	q.mu.Lock()
	full := false
	if !a.released {
		a.done = true
		a.outcome = outcome
		q.pending = append(q.pending, a)
		full = batchFull(len(q.pending))
	}
	q.mu.Unlock()
	select {
	case q.flushCh <- struct{}{}:
	default:
	}
	if full {
		select {
		case q.batchFull <- struct{}{}:
		default:
		}
	}
	q.metrics.running.WithLabelValues(l.name).Dec()
	l.running.Add(-1)
	if l.more.Load() {
		l.wakeUp()
	}
}

// batchFull says whether outcomes waiting to be written make a batch, to
// be written without waiting out finishDelay.
func batchFull(waiting int) bool { return waiting >= finishBatch }

// call runs the handler and turns a panic into a permanent failure.
func call(ctx context.Context, h Handler, j *Job) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = NoRetry(fmt.Errorf("handler panicked: %v\n%s", r, debug.Stack()))
		}
	}()
	return h.Work(ctx, j)
}

func (q *Queue) outcome(a *attempt, result any, err error) jobstore.JobOutcome {
	o := jobstore.JobOutcome{ID: a.job.ID, Attempt: a.job.Attempt}
	if err == nil {
		if result != nil {
			s, merr := marshalObject(result)
			if merr != nil {
				err = NoRetry(fmt.Errorf("result of job %s is not JSON: %w", a.job.ID, merr))
			} else {
				o.Result = &s
			}
		}
		if err == nil {
			o.State = store.JobCompleted
			return o
		}
	}
	reason := err.Error()
	if len(reason) > maxReasonBytes {
		reason = reason[:maxReasonBytes]
	}
	o.Reason = &reason
	var noRetry *NoRetryError
	var retryAfter *RetryAfterError
	switch {
	case errors.As(err, &noRetry) || a.job.Attempt >= a.job.MaxAttempts:
		o.State = store.JobFailed
	default:
		backoff := a.reg.opts.Backoff
		if backoff == nil {
			backoff = HandlerOptions{}.withDefaults().Backoff
		}
		delay := backoff(a.job.Attempt)
		if errors.As(err, &retryAfter) {
			delay = retryAfter.After
		}
		o.State = store.JobDelayed
		o.RunAt = q.store.Now() + delay.Milliseconds()
	}
	return o
}

// churned counts n jobs just claimed towards the next vacuum of the jobs
// table, and starts it in the background when it is due (vacuumEvery,
// vacuumGap); a claim never waits for it.
func (q *Queue) churned(n int) {
	if n == 0 || q.claimedSinceVacuum.Add(int64(n)) < vacuumEvery || !q.vacuuming.CompareAndSwap(false, true) {
		return
	}
	if time.Since(q.lastVacuum) < vacuumGap {
		q.vacuuming.Store(false)
		return
	}
	q.lastVacuum = time.Now()
	q.claimedSinceVacuum.Store(0)
	q.background.Add(1)
	go func() {
		defer q.background.Done()
		defer q.vacuuming.Store(false)
		ctx, cancel := context.WithTimeout(q.bgCtx, time.Minute)
		defer cancel()
		if err := q.store.Vacuum(ctx, "jobs"); err != nil && q.bgCtx.Err() == nil {
			q.log.Warn("vacuum of the jobs table failed; claims slow down until autovacuum runs", "error", err)
			q.metrics.errors.WithLabelValues("vacuum").Inc()
		}
	}()
}
