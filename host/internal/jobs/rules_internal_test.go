package jobs

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// draws calls f n times and returns the distinct values seen with their
// least and greatest.
func draws(n int, f func() time.Duration) (seen map[time.Duration]bool, lo, hi time.Duration) {
	seen = map[time.Duration]bool{}
	lo, hi = math.MaxInt64, math.MinInt64
	for range n {
		d := f()
		seen[d] = true
		lo, hi = min(lo, d), max(hi, d)
	}
	return seen, lo, hi
}

func TestBackoffDoublesFromTheBaseUpToTheCapWithEqualJitter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		base, max time.Duration
		attempt   int
		full      time.Duration // base·2^(attempt-1) capped: draws lie in [full/2, full]
	}{
		{time.Second, time.Hour, 0, time.Second},
		{time.Second, time.Hour, 1, time.Second},
		{time.Second, time.Hour, 2, 2 * time.Second},
		{time.Second, time.Hour, 3, 4 * time.Second},
		{time.Second, time.Hour, 12, 2048 * time.Second},
		{time.Second, time.Hour, 13, time.Hour},
		{time.Second, time.Hour, 1000, time.Hour},
		{3 * time.Second, 5 * time.Second, 2, 5 * time.Second},
		{time.Hour, time.Second, 1, time.Second}, // a base above the cap is capped
		// An uncapped backoff stays at the largest duration instead of
		// overflowing into a negative delay (an immediate retry).
		{time.Second, math.MaxInt64, 40, math.MaxInt64},
		{1 << 62, 1 << 62, 2, 1 << 62},
		{time.Second, math.MaxInt64, 2, 2 * time.Second},
		{time.Second, 1 << 62, 2, 2 * time.Second},
		{1, 3, 2, 2}, // an odd cap: 1ns doubled is 2ns, under it
	} {
		f := ExponentialBackoff(tc.base, tc.max)
		_, lo, hi := draws(300, func() time.Duration { return f(tc.attempt) })
		if lo < tc.full/2 || hi > tc.full || lo == hi {
			t.Errorf("ExponentialBackoff(%s, %s)(%d) drew %s..%s, want jittered within %s..%s",
				tc.base, tc.max, tc.attempt, lo, hi, tc.full/2, tc.full)
		}
	}
}

func TestBackoffJitterCoversHalfToAllOfTheDelay(t *testing.T) {
	t.Parallel()
	// In nanoseconds every value of [d/2, d] must come up, both ends
	// included; a delay with no half left (1ns) is not jittered at all.
	f := ExponentialBackoff(4, 16)
	for _, tc := range []struct {
		attempt int
		lo, hi  time.Duration
	}{{1, 2, 4}, {2, 4, 8}, {3, 8, 16}, {4, 8, 16}} {
		seen, lo, hi := draws(2000, func() time.Duration { return f(tc.attempt) })
		if lo != tc.lo || hi != tc.hi || len(seen) != int(tc.hi-tc.lo+1) {
			t.Errorf("attempt %d: drew %d values in %d..%d, want all of %d..%d", tc.attempt, len(seen), lo, hi, tc.lo, tc.hi)
		}
	}
	one := ExponentialBackoff(1, time.Hour)
	if seen, lo, _ := draws(300, func() time.Duration { return one(1) }); len(seen) != 1 || lo != 1 {
		t.Errorf("a 1ns backoff drew %v, want always 1ns", seen)
	}
	zero := ExponentialBackoff(0, time.Hour)
	if seen, lo, _ := draws(10, func() time.Duration { return zero(3) }); len(seen) != 1 || lo != 0 {
		t.Errorf("a zero backoff drew %v, want always 0", seen)
	}
}

func TestHandlerOptionsDefaultOnlyWhatIsUnset(t *testing.T) {
	t.Parallel()
	custom := func(int) time.Duration { return time.Minute }
	for _, tc := range []struct {
		in          HandlerOptions
		maxAttempts int
		timeout     time.Duration
		backoff     func(int) time.Duration
	}{
		{HandlerOptions{}, DefaultMaxAttempts, DefaultTimeout, nil},
		{HandlerOptions{MaxAttempts: -1, Timeout: -time.Second}, DefaultMaxAttempts, DefaultTimeout, nil},
		{HandlerOptions{MaxAttempts: 1, Timeout: time.Nanosecond, Backoff: custom}, 1, time.Nanosecond, custom},
		{HandlerOptions{MaxAttempts: 7, Timeout: time.Hour}, 7, time.Hour, nil},
	} {
		o := tc.in.withDefaults()
		if o.MaxAttempts != tc.maxAttempts || o.Timeout != tc.timeout || o.Backoff == nil {
			t.Errorf("%+v with defaults: %+v", tc.in, o)
			continue
		}
		if tc.backoff != nil {
			if o.Backoff(1) != time.Minute {
				t.Errorf("%+v: the handler's own backoff was replaced", tc.in)
			}
			continue
		}
		// The default: ExponentialBackoff(time.Second, time.Hour).
		if _, lo, hi := draws(100, func() time.Duration { return o.Backoff(1) }); lo < time.Second/2 || hi > time.Second {
			t.Errorf("default backoff of attempt 1: %s..%s", lo, hi)
		}
		if _, lo, hi := draws(100, func() time.Duration { return o.Backoff(20) }); lo < time.Hour/2 || hi > time.Hour {
			t.Errorf("default backoff of attempt 20: %s..%s", lo, hi)
		}
	}
}

func TestPollJitterIsTenPercentEitherWay(t *testing.T) {
	t.Parallel()
	if seen, lo, hi := draws(500, func() time.Duration { return jitter(10) }); len(seen) != 3 || lo != 9 || hi != 11 {
		t.Errorf("jitter(10ns) drew %v, want each of 9, 10 and 11ns", seen)
	}
	if _, lo, hi := draws(300, func() time.Duration { return jitter(time.Second) }); lo < 900*time.Millisecond || hi > 1100*time.Millisecond || lo == hi {
		t.Errorf("jitter(1s) drew %s..%s, want varied within 0.9s..1.1s", lo, hi)
	}
}

func TestPauseWaitsOnlyForAPositiveDurationAndStopsWithTheContext(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	// Nothing to wait: done, even when the context has ended (a timer of
	// zero racing the ended context would lose half the time).
	for range 200 {
		if !pause(ended, 0) || !pause(ended, -time.Second) {
			t.Fatal("pause of no time reported the ended context")
		}
	}
	if pause(ended, time.Hour) {
		t.Error("pause of an hour on an ended context reported the wait done")
	}
	if !pause(context.Background(), time.Nanosecond) {
		t.Error("pause of 1ns on a live context reported it ended")
	}
}

func TestFinishRetriesBackOffFrom50msDoublingUpTo3s(t *testing.T) {
	t.Parallel()
	for try, want := range []time.Duration{
		50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, 1600 * time.Millisecond, 3 * time.Second, 3 * time.Second, 3 * time.Second,
	} {
		if got := finishRetryDelay(try); got != want {
			t.Errorf("finishRetryDelay(%d) = %s, want %s", try, got, want)
		}
	}
	if got := finishRetryDelay(100); got != 3*time.Second {
		t.Errorf("finishRetryDelay(100) = %s, want 3s", got)
	}
}

func TestOutcomesGatherLongerUnlessALaneWaitsForThem(t *testing.T) {
	t.Parallel()
	if got := finishWindow(true); got != 5*time.Millisecond {
		t.Errorf("finishWindow(wanted) = %s, want 5ms", got)
	}
	if got := finishWindow(false); got != 50*time.Millisecond {
		t.Errorf("finishWindow(not wanted) = %s, want 50ms", got)
	}
	q := &Queue{lanes: map[string]*lane{"a": {}, "b": {}}}
	if q.outcomesWanted() {
		t.Error("outcomesWanted with no lane leaving jobs behind = true")
	}
	q.lanes["b"].more.Store(true)
	if !q.outcomesWanted() {
		t.Error("outcomesWanted with a lane leaving jobs behind = false")
	}
}

func TestARetryDueWithinThePollIntervalGetsATimer(t *testing.T) {
	t.Parallel()
	const now = 1_000_000
	for _, tc := range []struct {
		runAt int64
		poll  time.Duration
		wait  time.Duration
		timer bool
	}{
		{now + 250, time.Second, 250 * time.Millisecond, true},
		{now + 1000, time.Second, time.Second, true}, // due exactly at the poll
		{now + 1001, time.Second, 0, false},          // the poll finds it
		{now + 60_000, time.Second, 0, false},
		{now, time.Second, 0, true},       // due now
		{now - 500, time.Second, 0, true}, // overdue: at once
	} {
		wait, timer := retryWake(tc.runAt, now, tc.poll)
		if wait != tc.wait || timer != tc.timer {
			t.Errorf("retry due in %dms, poll %s: wake after %s (%v), want %s (%v)", tc.runAt-now, tc.poll, wait, timer, tc.wait, tc.timer)
		}
	}
}

func TestMountRegistersNamedRowsAndUsesANamelessRowAsTheQueuesFallback(t *testing.T) {
	t.Parallel()
	q, _ := newQueue(t, storetest.SQLite(t))
	named := HandlerFunc(func(context.Context, *Job) (any, error) { return "named", nil })
	fallback := HandlerFunc(func(context.Context, *Job) (any, error) { return "fallback", nil })
	q.Mount([]Route{
		{Queue: SEOQueue, Handler: fallback, Options: HandlerOptions{MaxAttempts: 9}},
		{Queue: SEOQueue, Name: "audit", Handler: named},
	})
	if !q.Registered("audit") || q.Registered("") {
		t.Fatalf("registered: audit %v, nameless %v; want only audit", q.Registered("audit"), q.Registered(""))
	}
	for _, tc := range []struct {
		queue, name string
		ok          bool
		result      any
	}{
		{SEOQueue, "audit", true, "named"},
		{SEOQueue, "anything", true, "fallback"},
		{AIQueue, "anything", false, nil},
	} {
		r, ok := q.handler(tc.queue, tc.name)
		if ok != tc.ok {
			t.Errorf("handler of %s on %s: found %v", tc.name, tc.queue, ok)
			continue
		}
		if !ok {
			continue
		}
		if got, _ := r.h.Work(context.Background(), nil); got != tc.result {
			t.Errorf("handler of %s on %s ran %v, want %v", tc.name, tc.queue, got, tc.result)
		}
	}
	if r, _ := q.handler(SEOQueue, "anything"); r.opts.MaxAttempts != 9 || r.opts.Timeout != DefaultTimeout {
		t.Errorf("fallback options: %+v", r.opts)
	}
}
