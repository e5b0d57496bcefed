package jobs

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
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

// fetchCooldown is the least time between the starts of two claims of a
// lane while enqueues stream in (a wake-up came in during the last claim's
// statement, and it was not full): then every enqueue wakes the lane, and
// a claim per wake-up (a few jobs each, every one a committed UPDATE) kept
// the fetcher busy all the time, with claims queueing behind each other;
// one claim per cooldown takes what arrived meanwhile (docs/BENCHMARKS.md,
// job queue). Other wake-ups (a lone enqueue, even right after the last
// claim) are served at once.
const fetchCooldown = 5 * time.Millisecond

// backlogWait is how long a lane with a backlog (its last claim was full)
// waits for more of its slots to free before claiming for fewer than half
// of them: a claim of 100 jobs costs little more than a claim of 5, and
// the handlers just started have not yet had the CPU to finish.
const backlogWait = time.Millisecond

// finishDelay and finishBatch bound how long and how many outcomes wait to
// be written together while a lane needs them written soon: its last claim
// left claimable jobs behind (a backlog, or workspaces at their running
// cap, whose count only a written outcome lowers). Otherwise outcomes
// gather for finishSteadyDelay, as River's completer does: under a steady
// stream the outcome writes then cost the database one statement per
// 50 ms instead of one per 5 ms, which left claims queued behind them
// (docs/BENCHMARKS.md, job queue). A job's start does not wait for an
// outcome write; only its visible end and the lease's release do.
const (
	finishDelay       = 5 * time.Millisecond
	finishSteadyDelay = 50 * time.Millisecond
	finishBatch       = 256
)

// vacuumEvery and vacuumGap pace this host's vacuums of the jobs table
// (store.Vacuum): one after every vacuumEvery jobs it claims, at most one
// per vacuumGap. A claim leaves its jobs' entries in the ready indexes
// dead, and a claim planned from a stale picture of the table (its size
// as the last VACUUM or ANALYZE saw it) walks every one of them: with
// autovacuum off, a steady 500 jobs/s made the claim statement's median
// grow from 2.0 ms over the first 2,000 jobs to 7.7 ms over the last 2,000
// of 10,000, and kept it at 1.05 ms with a vacuum every second, which
// both removes the entries and refreshes the table's size
// (docs/BENCHMARKS.md, job queue).
const (
	vacuumEvery = 1000
	vacuumGap   = time.Second
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
	// its Queued cap fails with *store.OverCapError. Zero: no caps. SetCaps
	// replaces them on a running Queue.
	Caps jobstore.JobCaps
	// CapRetryAfter is the Retry-After of an *store.OverCapError. Zero:
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
	jobs    *jobstore.Store
	opts    Options
	caps    atomic.Pointer[jobstore.JobCaps] // Options.Caps until SetCaps
	owner   string                           // this Queue's lease owner id
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
	bgCtx      context.Context
	bgCancel   context.CancelFunc
	// claimedSinceVacuum counts the jobs claimed here since this host's
	// last vacuum of the jobs table; vacuuming is set while one runs, and
	// lastVacuum (guarded by it) is when the last one started.
	claimedSinceVacuum atomic.Int64
	vacuuming          atomic.Bool
	lastVacuum         time.Time
	finishStop         chan struct{}
	fetchers           sync.WaitGroup
	runners            sync.WaitGroup
	finisher           sync.WaitGroup
	background         sync.WaitGroup
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
	// streaming is set when a wake-up came in during the last claim and
	// that claim was not full (see fetchCooldown). Only the lane's fetcher
	// uses it.
	streaming bool
	wake      chan struct{}
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
	outcome     jobstore.JobOutcome
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
		jobs:      jobstore.New(o.Store),
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
	q.SetCaps(o.Caps)
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

// SetCaps replaces the per-plan caps (Options.Caps) of a running Queue:
// the next enqueue and the next claim use them (a reload of the plans).
// Jobs already running or queued stay.
func (q *Queue) SetCaps(c jobstore.JobCaps) { q.caps.Store(&c) }

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

// Route is one row of a job table: the jobs named Name, enqueued on Queue,
// run Handler with Options. An empty Name makes Handler the fallback of
// Queue (RegisterFallback).
type Route struct {
	Queue   string
	Name    string
	Handler Handler
	Options HandlerOptions
}

// Mount registers every row of a job table (Register, or RegisterFallback
// for a row without a name). Call it before Start.
func (q *Queue) Mount(table []Route) {
	for _, r := range table {
		if r.Name == "" {
			q.RegisterFallback(r.Queue, r.Handler, r.Options)
			continue
		}
		q.Register(r.Name, r.Handler, r.Options)
	}
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

// insert stores rows, refusing them with *store.OverCapError when a workspace is
// at its Queued cap.
func (q *Queue) insert(ctx context.Context, tx store.Querier, rows []jobstore.Job) error {
	err := q.jobs.InsertJobsCapped(ctx, tx, rows, q.store.Now(), *q.caps.Load())
	var capErr *jobstore.ErrJobCap
	if errors.As(err, &capErr) {
		return &store.OverCapError{Kind: "ready jobs", Max: int(capErr.Cap), Workspace: capErr.Workspace, Queue: capErr.Queue, RetryAfter: q.opts.CapRetryAfter}
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
func (q *Queue) Get(ctx context.Context, workspace, id string) (jobstore.Job, error) {
	return q.jobs.GetJob(ctx, workspace, id)
}

func (q *Queue) rows(js []NewJob) ([]jobstore.Job, error) {
	now := q.store.Now()
	rows := make([]jobstore.Job, 0, len(js))
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
		rows = append(rows, jobstore.Job{
			ID: store.NewID(), WorkspaceID: j.Workspace, Queue: j.Queue, Name: j.Name, State: state,
			Data: data, MaxAttempts: maxAttempts, RunAt: runAt, CreatedAt: now,
		})
	}
	return rows, nil
}

// RecentGenerated returns the workspace's newest completed jobs that
// generated text (every AIQueue job and the ContentQueue jobs named in
// contentNames), newest first, at most limit.
func (q *Queue) RecentGenerated(ctx context.Context, workspace string, contentNames []string, limit int) ([]jobstore.FinishedJob, error) {
	return q.jobs.RecentGeneratedJobs(ctx, workspace, contentNames, limit)
}
