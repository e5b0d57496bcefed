package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
)

func TestAFetchClaimsWhatFitsAndSaysWhenToLookAgain(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx, cancel := context.WithCancel(context.Background())
	q, _ := newQueue(t, s, func(o *Options) {
		o.PollInterval = time.Minute
		o.Concurrency = map[string]int{AIQueue: 2}
	})
	q.workCtx, q.workCancel = context.WithCancel(context.Background())
	release := make(chan struct{})
	q.Register("block", HandlerFunc(func(ctx context.Context, j *Job) (any, error) {
		<-release
		return nil, nil
	}), HandlerOptions{})
	t.Cleanup(func() {
		cancel()
		close(release)
		q.runners.Wait()
	})
	isPoll := func(d time.Duration) bool { return d >= 54*time.Second && d <= 66*time.Second } // a minute ±10%
	fetch := func(l *lane) time.Duration {
		t.Helper()
		done := make(chan time.Duration, 1)
		go func() { done <- q.fetch(ctx, l) }()
		var next time.Duration
		testwait.For(t, 10*time.Second, "the fetch to return", func() bool {
			select {
			case next = <-done:
				return true
			default:
				return false
			}
		})
		return next
	}
	enqueue := func(queue string, n int, runAt time.Time) {
		t.Helper()
		js := make([]NewJob, n)
		for i := range js {
			js[i] = NewJob{Workspace: "ws-1", Queue: queue, Name: "block", RunAt: runAt}
		}
		if _, err := q.EnqueueMany(context.Background(), js); err != nil {
			t.Fatal(err)
		}
	}
	ai, seo := q.lanes[AIQueue], q.lanes[SEOQueue]

	// Nothing at all: look again at the poll.
	if next := fetch(ai); !isPoll(next) || ai.more.Load() || ai.backlog.Load() {
		t.Fatalf("empty queue: next look in %s, more %v, backlog %v; want the poll", next, ai.more.Load(), ai.backlog.Load())
	}
	// A job due in 30s: look again then.
	enqueue(AIQueue, 1, time.Now().Add(30*time.Second))
	if next := fetch(ai); next <= 25*time.Second || next > 30*time.Second {
		t.Fatalf("a job due in 30s: next look in %s", next)
	}
	// Three waiting, two slots: a full claim, a backlog; the full lane
	// looks again at the poll or when a job finishes (more).
	enqueue(AIQueue, 3, time.Time{})
	if next := fetch(ai); !isPoll(next) || ai.running.Load() != 2 || !ai.backlog.Load() || !ai.more.Load() {
		t.Fatalf("full claim: next look in %s, running %d, backlog %v, more %v", next, ai.running.Load(), ai.backlog.Load(), ai.more.Load())
	}
	// A full lane claims nothing more.
	if next := fetch(ai); !isPoll(next) || ai.running.Load() != 2 {
		t.Fatalf("full lane: next look in %s, running %d", next, ai.running.Load())
	}
	// Three waiting, eight slots: all claimed, no backlog; look once more
	// shortly instead of looking up the next run time.
	enqueue(SEOQueue, 3, time.Time{})
	if next := fetch(seo); next != recheck || seo.running.Load() != 3 || seo.backlog.Load() || seo.more.Load() {
		t.Fatalf("partial claim: next look in %s, running %d, backlog %v, more %v", next, seo.running.Load(), seo.backlog.Load(), seo.more.Load())
	}
	if n := countJobs(t, s, `state = 'active'`); n != 5 {
		t.Fatalf("%d jobs active, want 5", n)
	}
}

func TestFetchPacing(t *testing.T) {
	t.Parallel()
	// A streaming lane's claims start at least fetchCooldown apart.
	for since, want := range map[time.Duration]time.Duration{
		0: fetchCooldown, 2 * time.Millisecond: 3 * time.Millisecond, fetchCooldown: 0, 10 * time.Millisecond: -5 * time.Millisecond,
	} {
		if got := cooldownLeft(since); got != want {
			t.Errorf("cooldownLeft(%s) = %s, want %s", since, got, want)
		}
	}
	// With a backlog, a lane waits for more slots while fewer than half
	// are free.
	for _, tc := range []struct {
		free, limit int
		backlog     bool
		wait        bool
	}{
		{1, 8, true, true}, {3, 8, true, true}, {4, 8, true, false}, {8, 8, true, false},
		{3, 8, false, false}, {1, 2, true, false}, {1, 3, true, false}, {99, 200, true, true}, {100, 200, true, false},
	} {
		if got := waitForSlots(tc.free, tc.limit, tc.backlog); got != tc.wait {
			t.Errorf("waitForSlots(free %d of %d, backlog %v) = %v", tc.free, tc.limit, tc.backlog, got)
		}
	}
	// Enqueues stream in when a wake-up came during a claim that was not full.
	for _, tc := range []struct {
		wakes, claimed, n int
		streaming         bool
	}{
		{1, 3, 8, true}, {1, 0, 8, true}, {0, 3, 8, false}, {1, 8, 8, false}, {0, 8, 8, false}, {1, 7, 8, true},
	} {
		if got := streamingIn(tc.wakes, tc.claimed, tc.n); got != tc.streaming {
			t.Errorf("streamingIn(%d wakes, %d of %d claimed) = %v", tc.wakes, tc.claimed, tc.n, got)
		}
	}
	// After an empty claim: the next job's run time, at most the poll; a
	// job already due was left behind.
	for _, tc := range []struct {
		due, next  time.Duration
		leftBehind bool
	}{
		{-time.Second, time.Minute, true}, {0, time.Minute, true}, {time.Millisecond, time.Millisecond, false},
		{time.Minute, time.Minute, false}, {time.Hour, time.Minute, false},
	} {
		if next, left := untilDue(tc.due, time.Minute); next != tc.next || left != tc.leftBehind {
			t.Errorf("untilDue(%s, 1m) = %s, %v; want %s, %v", tc.due, next, left, tc.next, tc.leftBehind)
		}
	}
}

func TestOutcomesAreWrittenAtOnceWhenABatchIsFull(t *testing.T) {
	t.Parallel()
	for waiting, full := range map[int]bool{1: false, finishBatch - 1: false, finishBatch: true, finishBatch + 1: true} {
		if batchFull(waiting) != full {
			t.Errorf("batchFull(%d) = %v, want %v", waiting, !full, full)
		}
	}
}
