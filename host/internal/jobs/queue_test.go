package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
)

const ws = "ws-1"

// bundle is what a queue test works with: a store of its own, and the Redis
// settings every Queue of the test shares (Redis on PostgreSQL runs, none on
// SQLite, as in production).
type bundle struct {
	store    *store.Store
	redisURL string
	prefix   string
}

func setup(t *testing.T, s *store.Store) *bundle {
	t.Helper()
	b := &bundle{store: s, prefix: "herald-test:" + store.NewID()}
	if s.Dialect == store.Postgres {
		b.redisURL = redisURL(t)
	}
	return b
}

// redisURL returns HERALD_TEST_REDIS_URL or skips (fails when integration is
// required).
func redisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("HERALD_TEST_REDIS_URL")
	if u == "" {
		storetest.Unavailable(t, "HERALD_TEST_REDIS_URL is not set")
	}
	return u
}

// queue returns a Queue on the bundle's store, stopped when the test ends.
// Polling is slow, so tests pass only through wake-ups and timers.
func (b *bundle) queue(t *testing.T, tune ...func(*jobs.Options)) *jobs.Queue {
	t.Helper()
	o := jobs.Options{
		Store: b.store, RedisURL: b.redisURL, RedisPrefix: b.prefix,
		PollInterval: time.Minute, Lease: 30 * time.Second,
	}
	for _, f := range tune {
		f(&o)
	}
	q, err := jobs.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		q.Stop(ctx)
	})
	return q
}

func start(t *testing.T, q *jobs.Queue) {
	t.Helper()
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func enqueue(t *testing.T, q *jobs.Queue, j jobs.NewJob) string {
	t.Helper()
	if j.Workspace == "" {
		j.Workspace = ws
	}
	if j.Queue == "" {
		j.Queue = jobs.AIQueue
	}
	id, err := q.Enqueue(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// waitFor polls the job row until cond holds: the outcome is written after
// the handler returns, and the row is what clients see.
func waitFor(t *testing.T, s *store.Store, id string, what string, cond func(jobstore.Job) bool) jobstore.Job {
	t.Helper()
	var j jobstore.Job
	err := testwait.Until(30*time.Second, func() bool {
		var err error
		j, err = jobstore.New(s).GetJob(context.Background(), ws, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil && cond(j)
	})
	if err != nil {
		t.Fatalf("job %s never became %s; last: %+v", id, what, j)
	}
	return j
}

func inState(state jobs.State) func(jobstore.Job) bool {
	return func(j jobstore.Job) bool { return jobs.StateOf(j) == state }
}

func fixedBackoff(d time.Duration) func(int) time.Duration {
	return func(int) time.Duration { return d }
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestQueue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		run  func(t *testing.T, b *bundle)
	}{
		{"a job runs once and completes with its result", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			q.Register("echo", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				var in map[string]any
				if err := j.Decode(&in); err != nil {
					return nil, err
				}
				return map[string]any{"echo": in["text"], "attempt": j.Attempt}, nil
			}), jobs.HandlerOptions{})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "echo", Data: map[string]any{"text": "hello"}})
			j := waitFor(t, b.store, id, "completed", inState(jobs.StateCompleted))
			if str(j.Result) != `{"attempt":1,"echo":"hello"}` || j.Progress != 100 || j.AttemptsMade != 1 ||
				j.FailedReason != nil || j.ProcessedOn == nil || j.FinishedOn == nil || *j.FinishedOn < *j.ProcessedOn ||
				j.Data != `{"text":"hello"}` || j.Queue != jobs.AIQueue || j.Name != "echo" || j.LeaseOwner != nil {
				t.Fatalf("completed job: %+v result=%s", j, str(j.Result))
			}
		}},
		{"a failing job is retried with backoff until it succeeds", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			q.Register("flaky", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				if j.Attempt < 3 {
					return nil, fmt.Errorf("attempt %d failed", j.Attempt)
				}
				return nil, nil
			}), jobs.HandlerOptions{MaxAttempts: 5, Backoff: fixedBackoff(10 * time.Millisecond)})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "flaky"})
			j := waitFor(t, b.store, id, "completed", inState(jobs.StateCompleted))
			if j.AttemptsMade != 3 || j.FailedReason != nil || j.Result != nil {
				t.Fatalf("retried job: %+v", j)
			}
		}},
		{"a job fails for good after its last attempt", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			q.Register("broken", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				return nil, fmt.Errorf("broken on attempt %d", j.Attempt)
			}), jobs.HandlerOptions{MaxAttempts: 2, Backoff: fixedBackoff(time.Millisecond)})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "broken"})
			j := waitFor(t, b.store, id, "failed", inState(jobs.StateFailed))
			if j.AttemptsMade != 2 || str(j.FailedReason) != "broken on attempt 2" || j.FinishedOn == nil {
				t.Fatalf("failed job: %+v reason=%s", j, str(j.FailedReason))
			}
		}},
		{"a job's own max attempts override the handler's", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			q.Register("broken", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				return nil, errors.New("no")
			}), jobs.HandlerOptions{MaxAttempts: 5, Backoff: fixedBackoff(time.Millisecond)})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "broken", MaxAttempts: 1})
			if j := waitFor(t, b.store, id, "failed", inState(jobs.StateFailed)); j.AttemptsMade != 1 {
				t.Fatalf("attempts: %d", j.AttemptsMade)
			}
		}},
		{"RetryAfter delays the retry by the given time", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			q.Register("limited", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				return nil, jobs.RetryAfter(time.Hour, errors.New("rate limited"))
			}), jobs.HandlerOptions{MaxAttempts: 3, Backoff: fixedBackoff(time.Millisecond)})
			start(t, q)
			before := time.Now().UnixMilli()
			id := enqueue(t, q, jobs.NewJob{Name: "limited"})
			j := waitFor(t, b.store, id, "delayed", inState(jobs.StateDelayed))
			if j.AttemptsMade != 1 || !strings.Contains(str(j.FailedReason), "rate limited") || j.FinishedOn != nil ||
				j.RunAt < before+time.Hour.Milliseconds() || j.LeaseOwner != nil {
				t.Fatalf("delayed job: %+v", j)
			}
		}},
		{"NoRetry fails the job at once", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			q.Register("invalid", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				return nil, jobs.NoRetry(errors.New("prompt is empty"))
			}), jobs.HandlerOptions{MaxAttempts: 5})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "invalid"})
			j := waitFor(t, b.store, id, "failed", inState(jobs.StateFailed))
			if j.AttemptsMade != 1 || str(j.FailedReason) != "prompt is empty" {
				t.Fatalf("failed job: %+v", j)
			}
		}},
		{"a panicking handler fails the job without killing the worker", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			q.Register("panics", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				panic("boom")
			}), jobs.HandlerOptions{})
			q.Register("ok", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) { return nil, nil }), jobs.HandlerOptions{})
			start(t, q)
			bad := enqueue(t, q, jobs.NewJob{Name: "panics"})
			good := enqueue(t, q, jobs.NewJob{Name: "ok"})
			if j := waitFor(t, b.store, bad, "failed", inState(jobs.StateFailed)); !strings.Contains(str(j.FailedReason), "panicked: boom") {
				t.Fatalf("reason: %s", str(j.FailedReason))
			}
			waitFor(t, b.store, good, "completed", inState(jobs.StateCompleted))
		}},
		{"a job that outlives its timeout fails with a timeout reason", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			q.Register("slow", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}), jobs.HandlerOptions{MaxAttempts: 1, Timeout: 20 * time.Millisecond})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "slow"})
			j := waitFor(t, b.store, id, "failed", inState(jobs.StateFailed))
			if !strings.Contains(str(j.FailedReason), "timed out after 20ms") {
				t.Fatalf("reason: %s", str(j.FailedReason))
			}
		}},
		{"an expired lease is rescued and the job runs again", func(t *testing.T, b *bundle) {
			ctx := context.Background()
			producer := b.queue(t)
			again := enqueue(t, producer, jobs.NewJob{Name: "count", MaxAttempts: 2})
			last := enqueue(t, producer, jobs.NewJob{Name: "count", MaxAttempts: 1})
			// A worker that died: it claimed both jobs and its lease ran out.
			now := b.store.Now()
			if claimed, err := jobstore.New(b.store).ClaimJobs(ctx, jobs.AIQueue, "dead-worker", 10, now, now-1); err != nil || len(claimed) != 2 {
				t.Fatalf("claim: %v %v", claimed, err)
			}
			q := b.queue(t, func(o *jobs.Options) { o.RescueInterval = 20 * time.Millisecond })
			q.Register("count", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				return map[string]int{"attempt": j.Attempt}, nil
			}), jobs.HandlerOptions{})
			start(t, q)
			j := waitFor(t, b.store, again, "completed", inState(jobs.StateCompleted))
			if j.AttemptsMade != 2 || str(j.Result) != `{"attempt":2}` {
				t.Fatalf("rescued job: %+v", j)
			}
			j = waitFor(t, b.store, last, "failed", inState(jobs.StateFailed))
			if j.AttemptsMade != 1 || !strings.Contains(str(j.FailedReason), "lease expired") {
				t.Fatalf("job rescued after its last attempt: %+v reason=%s", j, str(j.FailedReason))
			}
		}},
		{"a running job keeps its lease by heartbeat", func(t *testing.T, b *bundle) {
			release := make(chan struct{})
			started := make(chan struct{})
			q := b.queue(t, func(o *jobs.Options) { o.Lease = 300 * time.Millisecond })
			q.Register("long", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				close(started)
				<-release
				return nil, nil
			}), jobs.HandlerOptions{})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "long"})
			<-started
			first := waitFor(t, b.store, id, "active", inState(jobs.StateActive))
			// Wait until the lease has been renewed past its first expiry.
			waitFor(t, b.store, id, "renewed", func(j jobstore.Job) bool {
				return j.LeaseUntil != nil && *j.LeaseUntil > *first.LeaseUntil+100
			})
			close(release)
			if j := waitFor(t, b.store, id, "completed", inState(jobs.StateCompleted)); j.AttemptsMade != 1 {
				t.Fatalf("job ran again while its worker was alive: %+v", j)
			}
		}},
		{"a running job reports progress and a partial result", func(t *testing.T, b *bundle) {
			reported := make(chan struct{})
			release := make(chan struct{})
			q := b.queue(t)
			q.Register("report", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				if err := j.Progress(ctx, 40, map[string]string{"draft": "first"}); err != nil {
					return nil, err
				}
				close(reported)
				<-release
				return map[string]string{"text": "final"}, nil
			}), jobs.HandlerOptions{})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "report"})
			<-reported
			j, err := q.Get(context.Background(), ws, id)
			if err != nil || jobs.StateOf(j) != jobs.StateActive || j.Progress != 40 || str(j.Result) != `{"draft":"first"}` {
				t.Fatalf("active job: %+v %v", j, err)
			}
			close(release)
			j = waitFor(t, b.store, id, "completed", inState(jobs.StateCompleted))
			if j.Progress != 100 || str(j.Result) != `{"text":"final"}` {
				t.Fatalf("completed job: %+v", j)
			}
		}},
		{"jobs start in run-time order", func(t *testing.T, b *bundle) {
			q := b.queue(t, func(o *jobs.Options) { o.Concurrency = map[string]int{jobs.AIQueue: 1} })
			var mu sync.Mutex
			var order []int
			q.Register("ordered", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				var in struct{ N int }
				j.Decode(&in)
				mu.Lock()
				order = append(order, in.N)
				mu.Unlock()
				return nil, nil
			}), jobs.HandlerOptions{})
			base := time.Now().Add(-time.Minute)
			var batch []jobs.NewJob
			for _, n := range []int{3, 1, 4, 0, 2} {
				batch = append(batch, jobs.NewJob{Workspace: ws, Queue: jobs.AIQueue, Name: "ordered", Data: map[string]int{"n": n}, RunAt: base.Add(time.Duration(n) * time.Second)})
			}
			ids, err := q.EnqueueMany(context.Background(), batch)
			if err != nil {
				t.Fatal(err)
			}
			start(t, q)
			for _, id := range ids {
				waitFor(t, b.store, id, "completed", inState(jobs.StateCompleted))
			}
			if !slices.Equal(order, []int{0, 1, 2, 3, 4}) {
				t.Fatalf("run order %v, want by run time", order)
			}
		}},
		{"a delayed job waits for its run time", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			ran := make(chan time.Time, 1)
			q.Register("later", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				ran <- time.Now()
				return nil, nil
			}), jobs.HandlerOptions{})
			start(t, q)
			runAt := time.Now().Add(300 * time.Millisecond)
			id := enqueue(t, q, jobs.NewJob{Name: "later", RunAt: runAt})
			if j, err := q.Get(context.Background(), ws, id); err != nil || jobs.StateOf(j) != jobs.StateDelayed {
				t.Fatalf("just enqueued: %+v %v", j, err)
			}
			// The poll interval is a minute: only the due-time timer can start it.
			if at := <-ran; at.Before(runAt.Truncate(time.Millisecond)) {
				t.Fatalf("ran at %v, before its run time %v", at, runAt)
			}
			waitFor(t, b.store, id, "completed", inState(jobs.StateCompleted))
		}},
		{"stopping lets active jobs finish", func(t *testing.T, b *bundle) {
			started := make(chan struct{})
			release := make(chan struct{})
			q := b.queue(t)
			q.Register("finish", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				close(started)
				<-release
				return map[string]bool{"done": true}, nil
			}), jobs.HandlerOptions{})
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "finish"})
			<-started
			stopped := make(chan error)
			go func() { stopped <- q.Stop(context.Background()) }()
			close(release)
			if err := <-stopped; err != nil {
				t.Fatal(err)
			}
			// Stop returns after the outcome is written.
			if j, err := q.Get(context.Background(), ws, id); err != nil || jobs.StateOf(j) != jobs.StateCompleted {
				t.Fatalf("after stop: %+v %v", j, err)
			}
		}},
		{"stopping hands unfinished jobs to another worker at once", func(t *testing.T, b *bundle) {
			started := make(chan struct{})
			a := b.queue(t)
			a.Register("handover", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			}), jobs.HandlerOptions{})
			start(t, a)
			id := enqueue(t, a, jobs.NewJob{Name: "handover"})
			<-started
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if err := a.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			j, err := jobstore.New(b.store).GetJob(context.Background(), ws, id)
			if err != nil || jobs.StateOf(j) != jobs.StateWaiting || j.AttemptsMade != 0 || j.LeaseOwner != nil || j.FailedReason != nil {
				t.Fatalf("handed back job: %+v %v", j, err)
			}
			other := b.queue(t)
			other.Register("handover", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) { return nil, nil }), jobs.HandlerOptions{})
			start(t, other)
			if j := waitFor(t, b.store, id, "completed", inState(jobs.StateCompleted)); j.AttemptsMade != 1 {
				t.Fatalf("taken over job: %+v", j)
			}
		}},
		{"a job of another workspace is not found", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			id := enqueue(t, q, jobs.NewJob{Name: "x"})
			if _, err := q.Get(context.Background(), "other", id); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("other workspace: %v", err)
			}
			if _, err := q.Get(context.Background(), ws, "nope"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("unknown id: %v", err)
			}
		}},
		{"finished jobs are pruned after the retention period and others are kept", func(t *testing.T, b *bundle) {
			q := b.queue(t, func(o *jobs.Options) { o.Retention = time.Millisecond; o.PruneInterval = 20 * time.Millisecond })
			q.Register("short", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) { return nil, nil }), jobs.HandlerOptions{})
			later := enqueue(t, q, jobs.NewJob{Name: "short", RunAt: time.Now().Add(time.Hour)})
			start(t, q)
			done := enqueue(t, q, jobs.NewJob{Name: "short"})
			testwait.For(t, 30*time.Second, "finished job pruned", func() bool {
				_, err := q.Get(context.Background(), ws, done)
				return errors.Is(err, store.ErrNotFound)
			})
			if j, err := q.Get(context.Background(), ws, later); err != nil || jobs.StateOf(j) != jobs.StateDelayed {
				t.Fatalf("unfinished job pruned: %+v %v", j, err)
			}
		}},
		{"a job enqueued in a transaction exists only once the transaction commits", func(t *testing.T, b *bundle) {
			ctx := context.Background()
			q := b.queue(t)
			q.Register("tx", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) { return nil, nil }), jobs.HandlerOptions{})
			start(t, q)
			var rolledBack string
			errRollback := errors.New("roll back")
			err := b.store.Tx(ctx, func(tx store.Querier) error {
				var err error
				rolledBack, err = q.EnqueueTx(ctx, tx, jobs.NewJob{Workspace: ws, Queue: jobs.SEOQueue, Name: "tx"})
				if err != nil {
					return err
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				t.Fatal(err)
			}
			if _, err := q.Get(ctx, ws, rolledBack); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("rolled back job exists: %v", err)
			}
			var committed string
			if err := b.store.Tx(ctx, func(tx store.Querier) error {
				var err error
				committed, err = q.EnqueueTx(ctx, tx, jobs.NewJob{Workspace: ws, Queue: jobs.SEOQueue, Name: "tx"})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			q.Wake(jobs.SEOQueue)
			if j := waitFor(t, b.store, committed, "completed", inState(jobs.StateCompleted)); j.Queue != jobs.SEOQueue {
				t.Fatalf("queue: %s", j.Queue)
			}
		}},
		{"a job with no handler on this host is retried", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			start(t, q)
			id := enqueue(t, q, jobs.NewJob{Name: "unknown", MaxAttempts: 1})
			j := waitFor(t, b.store, id, "failed", inState(jobs.StateFailed))
			if !strings.Contains(str(j.FailedReason), `no handler for job name "unknown"`) {
				t.Fatalf("reason: %s", str(j.FailedReason))
			}
		}},
		{"invalid jobs are refused at enqueue", func(t *testing.T, b *bundle) {
			q := b.queue(t)
			for _, j := range []jobs.NewJob{
				{Queue: jobs.AIQueue, Name: "x"},
				{Workspace: ws, Queue: "nope", Name: "x"},
				{Workspace: ws, Queue: jobs.AIQueue},
				{Workspace: ws, Queue: jobs.AIQueue, Name: "x", Data: json.RawMessage(`{"broken"`)},
			} {
				if _, err := q.Enqueue(context.Background(), j); err == nil {
					t.Errorf("enqueue %+v: no error", j)
				}
			}
		}},
		{"metrics report queue depth, running jobs and outcomes", func(t *testing.T, b *bundle) {
			reg := prometheus.NewRegistry()
			q := b.queue(t, func(o *jobs.Options) { o.Registerer = reg })
			q.Register("m", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
				return nil, jobs.NoRetry(errors.New("no"))
			}), jobs.HandlerOptions{})
			start(t, q)
			enqueue(t, q, jobs.NewJob{Name: "m", Queue: jobs.ContentQueue, RunAt: time.Now().Add(time.Hour)})
			id := enqueue(t, q, jobs.NewJob{Name: "m", Queue: jobs.ContentQueue})
			waitFor(t, b.store, id, "failed", inState(jobs.StateFailed))
			want := `
# HELP herald_jobs Unfinished jobs in the store (all hosts), by queue and state (waiting, delayed, active).
# TYPE herald_jobs gauge
herald_jobs{queue="aiQueue",state="active"} 0
herald_jobs{queue="aiQueue",state="delayed"} 0
herald_jobs{queue="aiQueue",state="waiting"} 0
herald_jobs{queue="contentQueue",state="active"} 0
herald_jobs{queue="contentQueue",state="delayed"} 1
herald_jobs{queue="contentQueue",state="waiting"} 0
herald_jobs{queue="seoQueue",state="active"} 0
herald_jobs{queue="seoQueue",state="delayed"} 0
herald_jobs{queue="seoQueue",state="waiting"} 0
`
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "herald_jobs"); err != nil {
				t.Fatal(err)
			}
			// The outcome counter is bumped right after the row is written.
			testwait.For(t, 30*time.Second, "failed attempt counted", func() bool {
				return testutil.ToFloat64(metricVec(t, reg, "herald_jobs_attempts_total", `outcome="failed"`)) == 1
			})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			storetest.Each(t, func(t *testing.T, s *store.Store) { tc.run(t, setup(t, s)) })
		})
	}
}

// metricVec finds one sample of a gathered metric family by a label
// fragment and returns it as a collector for testutil.ToFloat64.
func metricVec(t *testing.T, reg *prometheus.Registry, name, labels string) prometheus.Collector {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var v float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var parts []string
			for _, l := range m.GetLabel() {
				parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			if strings.Contains(strings.Join(parts, ","), labels) {
				v = m.GetCounter().GetValue()
			}
		}
	}
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "probe"}, func() float64 { return v })
}
