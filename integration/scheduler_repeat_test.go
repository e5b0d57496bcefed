package integration_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
)

// TestTwoHostsPublishEachRepeatOccurrenceExactlyOnce runs two herald
// serve processes on one PostgreSQL schema and Redis with 500 repeat rules
// whose first occurrences fall due within one minute. Occurrences are
// created 20 seconds ahead, so both hosts' reconcilers race to create each
// one; one host is killed while it publishes. Every occurrence must exist
// once and arrive (repeats only of sends in flight at the kill, under the
// same webhook-id).
func TestTwoHostsPublishEachRepeatOccurrenceExactlyOnce(t *testing.T) {
	t.Parallel()
	env := withEnv(map[string]string{
		"HERALD_DATABASE_URL":                 testenv.NewSchema(t, testenv.DatabaseURL(t)),
		"HERALD_REDIS_URL":                    testenv.RedisURL(t),
		"HERALD_SCHEDULER_REPEAT_AHEAD":       "20s",
		"HERALD_SCHEDULER_RECONCILE_INTERVAL": "1s",
		"HERALD_JOB_LEASE":                    "3s",
	})
	takeover := []harness.Allow{{Match: `rescued jobs with expired leases|taking over a schedule left publishing|requeued due schedules that had no publish job`,
		Why: "host B is killed mid-publish; host A takes its posts over"}}
	a := harness.Start(t, harness.Options{Env: env, AllowLog: takeover})
	b := harness.Start(t, harness.Options{Env: env, Key: a.Key, AllowLog: takeover})
	rc := newSchedReceiver(t, 20*time.Millisecond)
	hook := saveReceiver(t, a.URL, a.Key, rc)

	const n = 500
	start := time.Now().Add(30 * time.Second)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				p := []*harness.Proc{a, b}[i%2]
				// Spread over 30 seconds, all within the minute.
				when := start.Add(time.Duration(i) * 60 * time.Millisecond)
				status, out := api(t, p.URL, p.Key, "POST", "/v1/posts", map[string]any{
					"title": fmt.Sprintf("daily %d", i), "whenToExport": when.UTC().Format(time.RFC3339Nano),
					"destinations": []any{map[string]any{"exportTo": "webhook", "webhookId": hook}},
					"repeat":       map[string]any{"frequency": "daily", "timeZone": "Europe/Berlin", "count": 2},
				})
				if status != http.StatusOK {
					t.Errorf("create rule %d: %d %v", i, status, out)
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for rc.distinct() < 100 {
		select {
		case <-rc.deliverCh:
		case <-time.After(90 * time.Second):
			t.Fatalf("only %d occurrences arrived", rc.distinct())
		}
	}
	b.Kill()
	killedAt := rc.distinct()
	waitDistinct(t, rc, n, 120*time.Second)
	waitQueueIdle(t, a.URL, 60*time.Second)

	// Each occurrence exists once: the calendar of those days holds 500
	// posts, one schedule each.
	day := start.UTC().Format(time.DateOnly)
	_, cal := api(t, a.URL, a.Key, "GET", "/v1/scheduler/calendar?tz=UTC&from="+day+"&to="+start.Add(time.Minute).UTC().Format(time.DateOnly), nil)
	posts, schedules := map[string]bool{}, 0
	for _, d := range cal["days"].([]any) {
		for _, raw := range d.(map[string]any)["posts"].([]any) {
			p := raw.(map[string]any)
			posts[p["id"].(string)] = true
			schedules += len(p["destinations"].([]any))
		}
	}
	if len(posts) != n || schedules != n {
		t.Fatalf("the calendar holds %d posts with %d schedules, want %d each", len(posts), schedules, n)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	repeated := rc.total - len(rc.arrivals)
	t.Logf("host B killed after %d occurrences arrived; %d deliveries, %d repeated a webhook-id of a send in flight at the kill", killedAt, rc.total, repeated)
	if rc.invalid != 0 || len(rc.arrivals) != n {
		t.Fatalf("%d distinct deliveries (%d invalid signatures), want %d", len(rc.arrivals), rc.invalid, n)
	}
	if repeated > 8 {
		t.Fatalf("%d repeated deliveries, want at most the 8 in flight at the kill", repeated)
	}
}
