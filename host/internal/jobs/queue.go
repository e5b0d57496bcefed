package jobs

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/store"
)

// Defaults of Options.
const (
	DefaultConcurrency   = 8
	DefaultPollInterval  = time.Second
	DefaultLease         = 30 * time.Second
	DefaultRetention     = 7 * 24 * time.Hour
	DefaultPruneInterval = time.Minute
	DefaultRedisPrefix   = "herald:jobs"
	DefaultCapRetryAfter = 10 * time.Second
)

// maxClaim bounds one claim; claiming in batches is what makes the queue
// fast, and a bound keeps one host from hoarding a burst.
const maxClaim = 200

// recheck is how soon a lane whose last claim found jobs claims again
// without a wake-up; that claim, finding none, looks up the next run time.
const recheck = 20 * time.Millisecond

// finishDelay and finishBatch bound how long and how many outcomes wait to
// be written together.
const (
	finishDelay = 5 * time.Millisecond
	finishBatch = 256
)

// maxReasonBytes bounds a stored failure message.
const maxReasonBytes = 4000

// Options configure a Queue.
type Options struct {
	// Store holds the jobs. Required.
	Store *store.Store
	// RedisURL, when set, carries wake-ups between hosts: an enqueue on one
	// host starts the job on any idle host within milliseconds. Empty: wake-ups
	// stay in this process (the embedded default, one host).
	RedisURL string
	// RedisPrefix prefixes the Redis channels; hosts that share jobs must
	// share it. Empty: DefaultRedisPrefix.
	RedisPrefix string
	// Concurrency is how many jobs of each queue this host runs at once.
	// Missing queues: DefaultConcurrency.
	Concurrency map[string]int
	// PollInterval is how often an idle queue looks for work without a
	// wake-up: the bound on delay while Redis is unreachable. Zero:
	// DefaultPollInterval.
	PollInterval time.Duration
	// Lease is how long a claimed job stays with this host without a
	// heartbeat (renewed every Lease/3). A crashed host's jobs return to
	// waiting after it. Zero: DefaultLease.
	Lease time.Duration
	// RescueInterval is how often expired leases are looked for. Zero: Lease/2.
	RescueInterval time.Duration
	// Retention is how long completed and failed jobs are kept. Zero:
	// DefaultRetention.
	Retention time.Duration
	// PruneInterval is how often old jobs are pruned. Zero: DefaultPruneInterval.
	PruneInterval time.Duration
	// Caps bound each workspace's running and ready jobs per queue, by
	// plan: a claim skips a workspace at its Running cap, an enqueue beyond
	// its Queued cap fails with *OverCapError. Zero: no caps.
	Caps store.JobCaps
	// CapRetryAfter is the Retry-After of an *OverCapError. Zero:
	// DefaultCapRetryAfter.
	CapRetryAfter time.Duration
	// Logger receives the queue's logs. Nil: no logs.
	Logger hclog.Logger
	// Registerer receives the queue's metrics. Nil: not registered.
	Registerer prometheus.Registerer
}

// Queue is Herald's durable job queue over the store (the truth) and Redis
// (wake-ups between hosts). It is safe for concurrent use. Register
// handlers, then Start; Enqueue works whether or not the Queue runs jobs.
type Queue struct {
	store   *store.Store
	opts    Options
	owner   string // this Queue's lease owner id
	log     hclog.Logger
	lanes   map[string]*lane
	signal  *redisSignal
	metrics *metrics

	handlersMu sync.RWMutex
	handlers   map[string]registered
	fallbacks  map[string]registered // by queue: jobs whose name has no handler

	mu      sync.Mutex
	held    map[string]*attempt // claimed and not yet recorded or released
	pending []*attempt          // finished, outcome not yet written
	flushCh chan struct{}
	// batchFull cuts finishDelay short when finishBatch outcomes wait.
	batchFull chan struct{}

	state      atomic.Int32 // 0 new, 1 started, 2 stopped
	stopping   atomic.Bool
	fetchStop  context.CancelFunc
	workCtx    context.Context
	workCancel context.CancelFunc
	bgCancel   context.CancelFunc
	finishStop chan struct{}
	fetchers   sync.WaitGroup
	runners    sync.WaitGroup
	finisher   sync.WaitGroup
	background sync.WaitGroup
}

type registered struct {
	h    Handler
	opts HandlerOptions
}

// lane is one queue's fetcher state on this host.
type lane struct {
	name    string
	limit   int
	running atomic.Int32
	// more is set when the last claim may have left claimable jobs behind,
	// so a finishing job must wake the fetcher.
	more atomic.Bool
	// backlog is set when the last claim was full: many jobs may be ready.
	backlog atomic.Bool
	wake    chan struct{}
}

func (l *lane) wakeUp() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// attempt is one claimed job on this host.
type attempt struct {
	job    *Job
	lane   *lane
	reg    registered
	cancel context.CancelFunc
	// lose cancels the handler's context with ErrLeaseLost as the cause.
	lose    context.CancelCauseFunc
	started time.Time
	// leasedUntil is when the lease ends unless renewed, by this host's
	// clock; guarded by Queue.mu.
	leasedUntil time.Time
	outcome     store.JobOutcome
	// done: outcome queued for writing; released: handed back at shutdown,
	// the outcome is dropped.
	done, released bool
}

// New returns a Queue; it neither claims nor connects until used.
func New(o Options) (*Queue, error) {
	if o.Store == nil {
		return nil, errors.New("jobs: Options.Store is required")
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.RescueInterval <= 0 {
		o.RescueInterval = o.Lease / 2
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.PruneInterval <= 0 {
		o.PruneInterval = DefaultPruneInterval
	}
	if o.CapRetryAfter <= 0 {
		o.CapRetryAfter = DefaultCapRetryAfter
	}
	if o.RedisPrefix == "" {
		o.RedisPrefix = DefaultRedisPrefix
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	q := &Queue{
		store:     o.Store,
		opts:      o,
		owner:     store.NewID(),
		log:       o.Logger.Named("jobs"),
		lanes:     map[string]*lane{},
		handlers:  map[string]registered{},
		fallbacks: map[string]registered{},
		held:      map[string]*attempt{},
		flushCh:   make(chan struct{}, 1),
		batchFull: make(chan struct{}, 1),
	}
	for _, name := range QueueNames {
		limit := o.Concurrency[name]
		if limit <= 0 {
			limit = DefaultConcurrency
		}
		q.lanes[name] = &lane{name: name, limit: limit, wake: make(chan struct{}, 1)}
	}
	q.metrics = newMetrics(o.Store)
	if o.Registerer != nil {
		if err := q.metrics.register(o.Registerer); err != nil {
			return nil, fmt.Errorf("jobs: register metrics: %w", err)
		}
	}
	if o.RedisURL != "" {
		sig, err := newRedisSignal(o.RedisURL, o.RedisPrefix, q.owner, q.log)
		if err != nil {
			return nil, err
		}
		q.signal = sig
	}
	return q, nil
}

// Register sets the handler of the jobs named name on this host. Call it
// before Start; a later call replaces the handler.
func (q *Queue) Register(name string, h Handler, opts HandlerOptions) {
	q.handlersMu.Lock()
	defer q.handlersMu.Unlock()
	q.handlers[name] = registered{h: h, opts: opts.withDefaults()}
}

// RegisterFallback sets the handler of the jobs of queue whose name has no
// handler of its own, so that a route may let clients name their jobs
// (SPEC's jobType) and every host runs any name, including names it has
// never seen. Call it before Start.
func (q *Queue) RegisterFallback(queue string, h Handler, opts HandlerOptions) {
	q.handlersMu.Lock()
	defer q.handlersMu.Unlock()
	q.fallbacks[queue] = registered{h: h, opts: opts.withDefaults()}
}

// Registered reports whether name has a handler of its own.
func (q *Queue) Registered(name string) bool {
	q.handlersMu.RLock()
	defer q.handlersMu.RUnlock()
	_, ok := q.handlers[name]
	return ok
}

// handler returns the handler of the jobs named name on queue: the one
// registered for the name, else the queue's fallback.
func (q *Queue) handler(queue, name string) (registered, bool) {
	q.handlersMu.RLock()
	defer q.handlersMu.RUnlock()
	if r, ok := q.handlers[name]; ok {
		return r, true
	}
	r, ok := q.fallbacks[queue]
	return r, ok
}

// Enqueue stores a job and wakes a worker on any host. It returns the job id.
func (q *Queue) Enqueue(ctx context.Context, j NewJob) (string, error) {
	ids, err := q.EnqueueMany(ctx, []NewJob{j})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// EnqueueMany stores jobs in few statements and wakes workers once per queue.
func (q *Queue) EnqueueMany(ctx context.Context, js []NewJob) ([]string, error) {
	rows, err := q.rows(js)
	if err != nil {
		return nil, err
	}
	if err := q.insert(ctx, nil, rows); err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	var queues []string
	for i, r := range rows {
		ids[i] = r.ID
		if !slices.Contains(queues, r.Queue) {
			queues = append(queues, r.Queue)
		}
	}
	q.Wake(queues...)
	return ids, nil
}

// EnqueueTx stores a job through tx, the transaction of a store.Tx callback,
// so that it commits or rolls back with the caller's own rows. The job is
// invisible to workers until the commit: call Wake(job.Queue) after Tx
// returns to start it at once (without Wake it starts within PollInterval).
func (q *Queue) EnqueueTx(ctx context.Context, tx store.Querier, j NewJob) (string, error) {
	rows, err := q.rows([]NewJob{j})
	if err != nil {
		return "", err
	}
	if err := q.insert(ctx, tx, rows); err != nil {
		return "", err
	}
	return rows[0].ID, nil
}

// insert stores rows, refusing them with *OverCapError when a workspace is
// at its Queued cap.
func (q *Queue) insert(ctx context.Context, tx store.Querier, rows []store.Job) error {
	err := q.store.InsertJobsCapped(ctx, tx, rows, q.store.Now(), q.opts.Caps)
	var capErr *store.ErrJobCap
	if errors.As(err, &capErr) {
		return &OverCapError{Workspace: capErr.Workspace, Queue: capErr.Queue, Cap: int(capErr.Cap), RetryAfter: q.opts.CapRetryAfter}
	}
	return err
}

// Wake tells workers on every host that queues have new work.
func (q *Queue) Wake(queues ...string) {
	for _, name := range queues {
		if l, ok := q.lanes[name]; ok && q.state.Load() == 1 {
			l.wakeUp()
		}
		if q.signal != nil {
			q.signal.publish(name)
		}
	}
}

// Get returns a job of the workspace, or store.ErrNotFound (also when the
// job belongs to another workspace).
func (q *Queue) Get(ctx context.Context, workspace, id string) (store.Job, error) {
	return q.store.GetJob(ctx, workspace, id)
}

func (q *Queue) rows(js []NewJob) ([]store.Job, error) {
	now := q.store.Now()
	rows := make([]store.Job, 0, len(js))
	for _, j := range js {
		switch {
		case j.Workspace == "":
			return nil, errors.New("enqueue: workspace is required")
		case !slices.Contains(QueueNames, j.Queue):
			return nil, fmt.Errorf("enqueue %s: unknown queue %q", j.Name, j.Queue)
		case j.Name == "":
			return nil, errors.New("enqueue: job name is required")
		}
		data := "{}"
		if j.Data != nil {
			s, err := marshalObject(j.Data)
			if err != nil {
				return nil, fmt.Errorf("enqueue %s: data: %w", j.Name, err)
			}
			data = s
		}
		maxAttempts := j.MaxAttempts
		if maxAttempts <= 0 {
			if r, ok := q.handler(j.Queue, j.Name); ok {
				maxAttempts = r.opts.MaxAttempts
			} else {
				maxAttempts = DefaultMaxAttempts
			}
		}
		runAt, state := now, store.JobWaiting
		if !j.RunAt.IsZero() {
			runAt = j.RunAt.UnixMilli()
			if runAt > now {
				state = store.JobDelayed
			}
		}
		rows = append(rows, store.Job{
			ID: store.NewID(), WorkspaceID: j.Workspace, Queue: j.Queue, Name: j.Name, State: state,
			Data: data, MaxAttempts: maxAttempts, RunAt: runAt, CreatedAt: now,
		})
	}
	return rows, nil
}

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
			q.log.Warn("redis wake-ups unavailable, polling until they come back", "every", q.opts.PollInterval, "error", err)
		}
	}
	fetchCtx, fetchStop := context.WithCancel(context.Background())
	q.fetchStop = fetchStop
	q.workCtx, q.workCancel = context.WithCancel(context.Background())
	bgCtx, bgCancel := context.WithCancel(context.Background())
	q.bgCancel = bgCancel
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
	queues, err := q.store.ReleaseJobs(ctx, q.owner, ids, q.store.Now())
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
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		case <-timer.C:
		}
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
		n := min(free, maxClaim)
		// The claim must not be cut off by cancellation: a claim that
		// commits unseen would strand its jobs until their lease expires.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		now := q.store.Now()
		claimed, err := q.store.ClaimJobsCapped(cctx, l.name, q.owner, n, now, now+q.opts.Lease.Milliseconds(), q.opts.Caps, l.backlog.Load())
		cancel()
		if err != nil {
			q.log.Error("claim failed", "queue", l.name, "error", err)
			q.metrics.errors.WithLabelValues("claim").Inc()
			return min(poll, time.Second)
		}
		for _, j := range claimed {
			q.start(l, j)
		}
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
		at, err := q.store.NextJobRunAt(ctx, l.name)
		if err != nil || at == nil {
			return poll
		}
		due := time.Duration(*at-q.store.Now()) * time.Millisecond
		if due <= 0 {
			// Claimable jobs remain that the claim left: their workspaces
			// are at their running cap (or another host is claiming them).
			// Claiming again at once would find the same; a job finishing
			// here wakes the lane instead (and the poll covers jobs
			// finishing on other hosts).
			l.more.Store(true)
			return poll
		}
		return min(due, poll)
	}
	return poll
}

func (q *Queue) start(l *lane, sj store.Job) {
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
		full = len(q.pending) >= finishBatch
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

// call runs the handler and turns a panic into a permanent failure.
func call(ctx context.Context, h Handler, j *Job) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = NoRetry(fmt.Errorf("handler panicked: %v\n%s", r, debug.Stack()))
		}
	}()
	return h.Work(ctx, j)
}

func (q *Queue) outcome(a *attempt, result any, err error) store.JobOutcome {
	o := store.JobOutcome{ID: a.job.ID, Attempt: a.job.Attempt}
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

// finishLoop writes outcomes in batches: it gathers what finishes within
// finishDelay of the first outcome (or until finishBatch are waiting), and
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
		timer.Reset(finishDelay)
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

func (q *Queue) flush() {
	q.mu.Lock()
	batch := q.pending
	q.pending = nil
	q.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	outcomes := make([]store.JobOutcome, len(batch))
	for i, a := range batch {
		outcomes[i] = a.outcome
	}
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := q.store.FinishJobs(ctx, q.owner, q.store.Now(), outcomes)
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
		time.Sleep(min(time.Duration(50<<min(try, 6))*time.Millisecond, 3*time.Second))
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
			if d := time.Duration(o.RunAt-q.store.Now()) * time.Millisecond; d <= q.opts.PollInterval {
				time.AfterFunc(max(d, 0), a.lane.wakeUp)
			}
		}
	}
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
	extended, err := q.store.ExtendJobLeases(ctx, q.owner, ids, q.store.Now()+q.opts.Lease.Milliseconds())
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
		rescued, err := q.store.RescueJobs(ctx, q.store.Now(), "job lease expired: the worker stopped or lost the database", batch)
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
		n, err := q.store.PruneJobs(ctx, cutoff, batch)
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
