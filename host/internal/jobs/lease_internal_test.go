package jobs

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/testlog"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// newQueue returns a Queue on s that is never started: the tests call its
// loops' steps themselves.
func newQueue(t *testing.T, s *store.Store, tune ...func(*Options)) (*Queue, *testlog.Buffer) {
	t.Helper()
	logs := &testlog.Buffer{}
	o := Options{Store: s, Logger: logs.Logger(hclog.Debug)}
	for _, f := range tune {
		f(&o)
	}
	q, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return q, logs
}

// hold makes the queue hold an attempt of job id, as a claim would; ctx
// ends when the attempt's lease is lost.
func hold(q *Queue, id string) (*attempt, context.Context) {
	ctx, lose := context.WithCancelCause(context.Background())
	a := &attempt{
		job:  &Job{ID: id, Workspace: "ws-1", Queue: AIQueue, Name: "t", Attempt: 1, MaxAttempts: 3, q: q},
		lane: q.lanes[AIQueue], cancel: func() {}, lose: lose, started: time.Now(),
		leasedUntil: time.Now().Add(time.Hour),
	}
	a.job.a = a
	q.mu.Lock()
	q.held[id] = a
	q.mu.Unlock()
	return a, ctx
}

// expiredJobs inserts n jobs of queue whose lease, held by a dead worker
// for their attempt made of maxAttempts, ran out a minute ago.
func expiredJobs(t *testing.T, s *store.Store, queue string, n, maxAttempts int) {
	t.Helper()
	insertJobs(t, s, queue, n, maxAttempts, fmt.Sprintf(`state = 'active', attempts_made = 1, lease_owner = 'dead', lease_until = %d`, s.Now()-60_000))
}

// insertJobs inserts n jobs of queue and sets set on them.
func insertJobs(t *testing.T, s *store.Store, queue string, n, maxAttempts int, set string) {
	t.Helper()
	ctx := context.Background()
	name := "batch-" + store.NewID()
	rows := make([]jobstore.Job, n)
	for i := range rows {
		rows[i] = jobstore.Job{ID: store.NewID(), WorkspaceID: "ws-1", Queue: queue, Name: name, State: store.JobWaiting,
			Data: "{}", MaxAttempts: maxAttempts, RunAt: s.Now(), CreatedAt: s.Now()}
	}
	if err := jobstore.New(s).InsertJobs(ctx, nil, rows); err != nil {
		t.Fatal(err)
	}
	if got, err := storetest.Exec(ctx, s, `UPDATE jobs SET `+set+` WHERE name = $1`, name); err != nil || got != int64(n) {
		t.Fatalf("update %d jobs: %d %v", n, got, err)
	}
}

// countJobs counts the jobs matching where.
func countJobs(t *testing.T, s *store.Store, where string) int {
	t.Helper()
	var n int
	if err := storetest.QueryRow(context.Background(), s, `SELECT COUNT(*) FROM jobs WHERE `+where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestNewDefaultsWhatIsUnset(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	for _, tc := range []struct {
		name string
		in   Options
		want Options
		ai   int // the aiQueue lane's limit; other lanes default
	}{
		{"zero", Options{}, Options{PollInterval: DefaultPollInterval, Lease: DefaultLease, RescueInterval: DefaultLease / 2,
			Retention: DefaultRetention, PruneInterval: DefaultPruneInterval, CapRetryAfter: DefaultCapRetryAfter, RedisPrefix: DefaultRedisPrefix}, DefaultConcurrency},
		{"negative", Options{PollInterval: -1, Lease: -1, RescueInterval: -1, Retention: -1, PruneInterval: -1, CapRetryAfter: -1, Concurrency: map[string]int{AIQueue: -1}},
			Options{PollInterval: DefaultPollInterval, Lease: DefaultLease, RescueInterval: DefaultLease / 2,
				Retention: DefaultRetention, PruneInterval: DefaultPruneInterval, CapRetryAfter: DefaultCapRetryAfter, RedisPrefix: DefaultRedisPrefix}, DefaultConcurrency},
		{"rescue follows the lease", Options{Lease: 10 * time.Second, Concurrency: map[string]int{AIQueue: 0}},
			Options{PollInterval: DefaultPollInterval, Lease: 10 * time.Second, RescueInterval: 5 * time.Second,
				Retention: DefaultRetention, PruneInterval: DefaultPruneInterval, CapRetryAfter: DefaultCapRetryAfter, RedisPrefix: DefaultRedisPrefix}, DefaultConcurrency},
		{"set", Options{PollInterval: time.Nanosecond, Lease: time.Nanosecond, RescueInterval: time.Nanosecond, Retention: time.Nanosecond,
			PruneInterval: time.Nanosecond, CapRetryAfter: time.Nanosecond, RedisPrefix: "p", Concurrency: map[string]int{AIQueue: 1}},
			Options{PollInterval: time.Nanosecond, Lease: time.Nanosecond, RescueInterval: time.Nanosecond, Retention: time.Nanosecond,
				PruneInterval: time.Nanosecond, CapRetryAfter: time.Nanosecond, RedisPrefix: "p"}, 1},
	} {
		tc.in.Store = s
		q, err := New(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		got := q.opts
		if got.PollInterval != tc.want.PollInterval || got.Lease != tc.want.Lease || got.RescueInterval != tc.want.RescueInterval ||
			got.Retention != tc.want.Retention || got.PruneInterval != tc.want.PruneInterval || got.CapRetryAfter != tc.want.CapRetryAfter ||
			got.RedisPrefix != tc.want.RedisPrefix || got.Logger == nil {
			t.Errorf("%s: options %+v", tc.name, got)
		}
		for name, l := range q.lanes {
			want := DefaultConcurrency
			if name == AIQueue {
				want = tc.ai
			}
			if l.limit != want {
				t.Errorf("%s: lane %s runs %d jobs at once, want %d", tc.name, name, l.limit, want)
			}
		}
	}
}

func TestAJobDueNowIsWaitingNotDelayed(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	const now = 1_800_000_000_000
	s.SetClock(func() time.Time { return time.UnixMilli(now) })
	q, _ := newQueue(t, s)
	for _, tc := range []struct {
		runAt int64
		state string
	}{{now - 1, store.JobWaiting}, {now, store.JobWaiting}, {now + 1, store.JobDelayed}} {
		rows, err := q.rows([]NewJob{{Workspace: "ws-1", Queue: AIQueue, Name: "x", RunAt: time.UnixMilli(tc.runAt)}})
		if err != nil || len(rows) != 1 || rows[0].State != tc.state || rows[0].RunAt != tc.runAt {
			t.Errorf("enqueued to run at now%+d: %+v %v, want %s", tc.runAt-now, rows, err, tc.state)
		}
		// Pollers see a delayed job whose time has come as waiting.
		if got := (&APIHandler{q: q}).toProto(jobstore.Job{State: store.JobDelayed, RunAt: tc.runAt}).State; got != tc.state {
			t.Errorf("delayed job due at now%+d polled as %s, want %s", tc.runAt-now, got, tc.state)
		}
	}
}

func TestStoppingGivesUpRecordingOutcomesAfterThreeRetries(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	q, logs := newQueue(t, s)
	a, _ := hold(q, "job-1")
	a.outcome = jobstore.JobOutcome{ID: "job-1", Attempt: 1, State: store.JobCompleted}
	q.pending = []*attempt{a}
	q.stopping.Store(true)
	s.Close() // the database is gone
	q.flush()
	if retried, gaveUp := logs.Count("recording job outcomes failed, retrying"), logs.Count("giving up recording job outcomes"); retried != 3 || gaveUp != 1 {
		t.Fatalf("retried %d times and gave up %d times, want 3 and 1; logs:\n%s", retried, gaveUp, logs.String())
	}
	if n := testutil.ToFloat64(q.metrics.errors.WithLabelValues("finish")); n != 4 {
		t.Errorf("finish errors counted: %v, want 4", n)
	}
	if len(q.held) != 0 {
		t.Errorf("jobs still held after the flush: %v", q.held)
	}
}

func TestAFailedHeartbeatKeepsTheLeaseUntilItRunsOut(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	q, logs := newQueue(t, s)
	a, leased := hold(q, "job-1")
	s.Close()
	q.heartbeat(context.Background())
	if n := testutil.ToFloat64(q.metrics.errors.WithLabelValues("heartbeat")); n != 1 || logs.Count("extending job leases failed") != 1 {
		t.Fatalf("heartbeat errors counted %v, logged %d, want 1 and 1", n, logs.Count("extending job leases failed"))
	}
	if leased.Err() != nil {
		t.Fatal("a lease that has not run out was given up on a failed renewal")
	}
	// After the lease ran out without a renewal, another host's rescuer
	// may run the job: the handler must stop.
	q.mu.Lock()
	a.leasedUntil = time.Now().Add(-time.Millisecond)
	q.mu.Unlock()
	q.heartbeat(context.Background())
	if context.Cause(leased) != ErrLeaseLost {
		t.Fatalf("lease ran out unrenewed: handler context cause %v, want ErrLeaseLost", context.Cause(leased))
	}
}

func TestAHeartbeatRenewsHeldLeasesAndDropsStolenOnes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		q, logs := newQueue(t, s, func(o *Options) { o.Lease = time.Hour })
		insertJobs(t, s, AIQueue, 2, 3, "state = 'waiting'")
		now := s.Now()
		claimed, err := jobstore.New(s).ClaimJobs(ctx, AIQueue, q.owner, 2, now, now+1000)
		if err != nil || len(claimed) != 2 {
			t.Fatalf("claim: %v %v", claimed, err)
		}
		kept, keptCtx := hold(q, claimed[0].ID)
		kept.leasedUntil = time.Now()
		_, stolenCtx := hold(q, claimed[1].ID)
		if _, err := storetest.Exec(ctx, s, `UPDATE jobs SET lease_owner = 'thief' WHERE id = $1`, claimed[1].ID); err != nil {
			t.Fatal(err)
		}
		q.heartbeat(ctx)
		if n := testutil.ToFloat64(q.metrics.errors.WithLabelValues("heartbeat")); n != 0 || logs.Count("failed") != 0 {
			t.Fatalf("a renewal that worked counted %v errors; logs:\n%s", n, logs.String())
		}
		if keptCtx.Err() != nil || !kept.leasedUntil.After(time.Now().Add(50*time.Minute)) {
			t.Errorf("renewed lease: cancelled %v, until %v", keptCtx.Err(), kept.leasedUntil)
		}
		if context.Cause(stolenCtx) != ErrLeaseLost {
			t.Errorf("stolen lease: handler context cause %v, want ErrLeaseLost", context.Cause(stolenCtx))
		}
		j, err := jobstore.New(s).GetJob(ctx, "ws-1", claimed[0].ID)
		if err != nil || j.LeaseUntil == nil || *j.LeaseUntil < now+50*60_000 {
			t.Errorf("renewed job: %+v %v", j, err)
		}
	})
}

func TestRescueReturnsEveryExpiredLeaseAndWakesTheQueuesOfWaitingJobs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		q, logs := newQueue(t, s)
		q.state.Store(1) // started: wake-ups reach the lanes
		// More than one batch of 500.
		expiredJobs(t, s, ContentQueue, 501, 3)
		q.rescue(ctx)
		if n := countJobs(t, s, `state = 'waiting'`); n != 501 {
			t.Fatalf("%d of 501 expired jobs back to waiting", n)
		}
		if len(q.lanes[ContentQueue].wake) != 1 {
			t.Fatal("jobs rescued to waiting did not wake their queue")
		}
		<-q.lanes[ContentQueue].wake
		// A job rescued to waiting wakes its queue; one whose lost attempt
		// was its last fails and wakes nothing.
		expiredJobs(t, s, SEOQueue, 1, 3)
		expiredJobs(t, s, AIQueue, 1, 1)
		q.rescue(ctx)
		if countJobs(t, s, `queue = 'seoQueue' AND state = 'waiting'`) != 1 || countJobs(t, s, `queue = 'aiQueue' AND state = 'failed'`) != 1 {
			t.Fatal("rescued jobs not waiting and failed")
		}
		if len(q.lanes[SEOQueue].wake) != 1 || len(q.lanes[AIQueue].wake) != 0 || len(q.lanes[ContentQueue].wake) != 0 {
			t.Errorf("wake-ups: seo %d, ai %d, content %d; want only seo", len(q.lanes[SEOQueue].wake), len(q.lanes[AIQueue].wake), len(q.lanes[ContentQueue].wake))
		}
		if n := testutil.ToFloat64(q.metrics.rescued.WithLabelValues(AIQueue, store.JobFailed)); n != 1 {
			t.Errorf("failed rescues counted: %v", n)
		}
		// Nothing to rescue: nothing logged.
		before := logs.Count("rescued jobs")
		q.rescue(ctx)
		if logs.Count("rescued jobs") != before || before != 3 { // 500, 1, then 2
			t.Errorf("rescue logs: %d before, %d after a rescue of nothing", before, logs.Count("rescued jobs"))
		}
	})
}

func TestPruneDeletesEveryJobFinishedBeforeTheRetentionAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		q, _ := newQueue(t, s, func(o *Options) { o.Retention = time.Hour })
		hour := time.Hour.Milliseconds()
		// More than one batch of 1000.
		insertJobs(t, s, AIQueue, 1001, 3, fmt.Sprintf(`state = 'completed', finished_on = %d`, s.Now()-2*hour))
		insertJobs(t, s, AIQueue, 1, 3, fmt.Sprintf(`state = 'failed', finished_on = %d`, s.Now()-2*hour))
		insertJobs(t, s, SEOQueue, 2, 3, fmt.Sprintf(`state = 'completed', finished_on = %d`, s.Now()-hour/2))
		insertJobs(t, s, SEOQueue, 1, 3, `state = 'waiting'`)
		q.prune(context.Background())
		if old, recent := countJobs(t, s, `queue = 'aiQueue'`), countJobs(t, s, `queue = 'seoQueue'`); old != 0 || recent != 3 {
			t.Fatalf("after prune: %d jobs past the retention left (want 0), %d recent or unfinished (want 3)", old, recent)
		}
		if n := testutil.ToFloat64(q.metrics.pruned); n != 1002 {
			t.Errorf("pruned counted: %v, want 1002", n)
		}
	})
}

func TestFailingRescuesAndPrunesAreCountedAsStoreErrors(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	q, logs := newQueue(t, s)
	s.Close()
	q.rescue(context.Background())
	q.prune(context.Background())
	for _, op := range []string{"rescue", "prune"} {
		if n := testutil.ToFloat64(q.metrics.errors.WithLabelValues(op)); n != 1 {
			t.Errorf("%s errors counted: %v, want 1", op, n)
		}
	}
	if logs.Count("rescuing expired jobs failed") != 1 || logs.Count("pruning finished jobs failed") != 1 {
		t.Errorf("logs:\n%s", logs.String())
	}
}
