package jobs

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/testlog"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// newSignal returns a redisSignal of host on url, closed when the test ends.
func newSignal(t *testing.T, url, prefix, host string) (*redisSignal, *testlog.Buffer) {
	t.Helper()
	logs := &testlog.Buffer{}
	r, err := newRedisSignal(url, prefix, host, logs.Logger(hclog.Debug))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	return r, logs
}

// wakes subscribes r and returns the queues it is woken for.
func wakes(t *testing.T, r *redisSignal) <-chan string {
	t.Helper()
	ch := make(chan string, 10)
	if err := r.subscribe(context.Background(), func(queue string) { ch <- queue }); err != nil {
		t.Fatalf("subscribe to a live Redis: %v", err)
	}
	return ch
}

func next(t *testing.T, ch <-chan string, who string) string {
	t.Helper()
	select {
	case q := <-ch:
		return q
	case <-time.After(30 * time.Second):
		t.Fatalf("%s was never woken", who)
		return ""
	}
}

func TestAWakeUpReachesOtherHostsButNotItsSender(t *testing.T) {
	t.Parallel()
	url := os.Getenv("HERALD_TEST_REDIS_URL")
	if url == "" {
		storetest.Unavailable(t, "HERALD_TEST_REDIS_URL is not set")
	}
	prefix := "herald-test:" + store.NewID()
	a, aLogs := newSignal(t, url, prefix, "host-a")
	b, _ := newSignal(t, url, prefix, "host-b")
	aWakes, bWakes := wakes(t, a), wakes(t, b)
	a.publish(SEOQueue)
	if q := next(t, bWakes, "host b"); q != SEOQueue {
		t.Fatalf("host b woken for %q, want %q", q, SEOQueue)
	}
	// Messages of one channel arrive in order: had a been woken by its own
	// wake-up, that would come before b's.
	b.publish(SEOQueue)
	if q := next(t, aWakes, "host a"); q != SEOQueue {
		t.Fatalf("host a woken for %q", q)
	}
	select {
	case q := <-aWakes:
		t.Fatalf("host a woken again, for %q: by its own wake-up", q)
	case q := <-bWakes:
		t.Fatalf("host b woken again, for %q: by its own wake-up", q)
	default:
	}
	if n := aLogs.Count("not sent"); n != 0 {
		t.Fatalf("a wake-up that was sent logged %d warnings", n)
	}
}

func TestAnUnsentWakeUpIsLoggedAtMostOnceEveryTenSeconds(t *testing.T) {
	t.Parallel()
	r, logs := newSignal(t, "redis://127.0.0.1:1/0", "herald-test", "host-a")
	r.client.Close() // every publish fails at once
	ctx := context.Background()
	r.publishNow(ctx, AIQueue)
	r.publishNow(ctx, AIQueue)
	if n := logs.Count("redis wake-up not sent"); n != 1 {
		t.Fatalf("two failed wake-ups in a row logged %d warnings, want 1", n)
	}
	r.mu.Lock()
	r.lastErr = time.Now().Add(-11 * time.Second)
	r.mu.Unlock()
	r.publishNow(ctx, AIQueue)
	if n := logs.Count("redis wake-up not sent"); n != 2 {
		t.Fatalf("a failure 11s after the last warning: %d warnings in all, want 2", n)
	}
}
