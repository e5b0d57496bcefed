package integration_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
	"github.com/heraldhq/herald/internal/testwait"
)

// schedReceiver is a Standard Webhooks endpoint: it verifies each
// delivery's signature, answers with the queued statuses (then 200) after
// an optional delay, and records arrivals by webhook-id.
type schedReceiver struct {
	*httptest.Server
	delay time.Duration

	mu        sync.Mutex
	secret    string
	answers   []int
	arrivals  map[string][]time.Time // webhook-id → arrival times
	invalid   int
	total     int
	changed   chan struct{}
	deliverCh chan string
}

func newSchedReceiver(t testing.TB, delay time.Duration, answers ...int) *schedReceiver {
	rc := &schedReceiver{delay: delay, answers: answers, arrivals: map[string][]time.Time{}, changed: make(chan struct{}, 1), deliverCh: make(chan string, 10000)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		body, _ := io.ReadAll(r.Body)
		id := r.Header.Get("webhook-id")
		rc.mu.Lock()
		valid := verifySignature(rc.secret, r.Header, body)
		if !valid {
			rc.invalid++
		}
		status := http.StatusOK
		if len(rc.answers) > 0 {
			status, rc.answers = rc.answers[0], rc.answers[1:]
		}
		rc.arrivals[id] = append(rc.arrivals[id], now)
		rc.total++
		rc.mu.Unlock()
		if rc.delay > 0 {
			time.Sleep(rc.delay)
		}
		w.WriteHeader(status)
		if status == http.StatusBadRequest {
			io.WriteString(w, "slug is already taken")
		}
		rc.deliverCh <- id
	}))
	t.Cleanup(rc.Close)
	return rc
}

// verifySignature checks a Standard Webhooks signature: HMAC-SHA256 over
// "id.timestamp.body", keyed with the base64 after "whsec_", within 5 minutes.
func verifySignature(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) < 24 {
		return false
	}
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", h.Get("webhook-id"), ts)
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

func (rc *schedReceiver) distinct() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.arrivals)
}

// api calls a herald process with its key and decodes the JSON answer.
// body is sent as JSON (call); an answer that is not a JSON object fails
// the test.
func api(t testing.TB, base, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	status, out := call(t, method, base+path, key, string(b))
	if out == nil {
		t.Fatalf("%s %s: %d, not a JSON object", method, path, status)
	}
	return status, out
}

func saveReceiver(t testing.TB, base, key string, rc *schedReceiver) string {
	t.Helper()
	status, out := api(t, base, key, "POST", "/v1/webhooks", map[string]any{"url": rc.URL + "/in"})
	if status != http.StatusCreated {
		t.Fatalf("create webhook: %d %v", status, out)
	}
	rc.mu.Lock()
	rc.secret = out["secret"].(string)
	rc.mu.Unlock()
	return out["webhook"].(map[string]any)["id"].(string)
}

func schedulePost(t testing.TB, base, key, hook string, when time.Time, title string) string {
	t.Helper()
	status, out := api(t, base, key, "POST", "/v1/scheduler/create", map[string]any{
		"exportTo": "webhook", "webhookId": hook, "title": title, "whenToExport": when.UTC().Format(time.RFC3339Nano),
	})
	if status != http.StatusOK {
		t.Fatalf("create schedule: %d %v", status, out)
	}
	return out["schedule"].(map[string]any)["id"].(string)
}

func waitSchedule(t testing.TB, base, key, id, want string, within time.Duration) map[string]any {
	t.Helper()
	var out, sc map[string]any
	reached := func() bool {
		_, out = api(t, base, key, "GET", "/v1/scheduler/"+id, nil)
		sc, _ = out["schedule"].(map[string]any)
		return sc != nil && sc["status"] == want
	}
	if testwait.Until(within, reached) != nil {
		t.Fatalf("schedule %s: %v after %s, want %s", id, out, within, want)
	}
	return sc
}

var schedEnv = map[string]string{
	"HERALD_ALLOWED_PRIVATE_CIDRS": "127.0.0.0/8",
	"HERALD_SECRET_KEY":            "integration-secret-key-0123456789abcdef",
}

func withEnv(extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range schedEnv {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// TestSchedulerPublishesThroughTheWebhookPlugin runs a real herald serve
// (embedded default, first-party webhook plugin as a subprocess).
func TestSchedulerPublishesThroughTheWebhookPlugin(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{Env: withEnv(nil), AllowLog: []harness.Allow{
		{Match: `schedule failed: `, Why: "the receiver answers 400 on purpose: the post fails with its reason"},
	}})
	for _, tc := range []struct {
		name      string
		answers   []int
		want      string
		lastError string
		count     int
	}{
		{"a post due in two seconds arrives once, signed, and is published", nil, "published", "", 1},
		{"a receiver answering 500 then 200 gets it on the retry", []int{500}, "published", "answered 500", 2},
		{"a 400 fails it with the receiver's reason", []int{400}, "failed", "webhook endpoint answered 400: slug is already taken", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := newSchedReceiver(t, 0, tc.answers...)
			hook := saveReceiver(t, p.URL, p.Key, rc)
			when := time.Now().Add(2 * time.Second)
			id := schedulePost(t, p.URL, p.Key, hook, when, tc.name)
			sc := waitSchedule(t, p.URL, p.Key, id, tc.want, 30*time.Second)
			waitQueueIdle(t, p.URL, 30*time.Second)
			rc.mu.Lock()
			defer rc.mu.Unlock()
			arrivals := rc.arrivals[id]
			if len(rc.arrivals) != 1 || len(arrivals) != tc.count || rc.invalid != 0 {
				t.Fatalf("deliveries %v (invalid signatures %d), want %d of %s", rc.arrivals, rc.invalid, tc.count, id)
			}
			if arrivals[0].Before(when) {
				t.Fatalf("delivered %s early", when.Sub(arrivals[0]))
			}
			if got, _ := sc["lastError"].(string); !strings.Contains(got, tc.lastError) {
				t.Fatalf("lastError %q, want %q", got, tc.lastError)
			}
		})
	}
}

// TestTwoHostsPublishEachDueScheduleExactlyOnce runs two herald serve
// processes on one PostgreSQL schema and Redis.
func TestTwoHostsPublishEachDueScheduleExactlyOnce(t *testing.T) {
	t.Parallel()
	env := withEnv(map[string]string{
		"HERALD_DATABASE_URL": testenv.NewSchema(t, testenv.DatabaseURL(t)),
		"HERALD_REDIS_URL":    testenv.RedisURL(t),
	})
	a := harness.Start(t, harness.Options{Env: env})
	b := harness.Start(t, harness.Options{Env: env, Key: a.Key})
	rc := newSchedReceiver(t, 5*time.Millisecond)
	hook := saveReceiver(t, a.URL, a.Key, rc)
	const n = 200
	when := time.Now().Add(3 * time.Second)
	ids := createMany(t, []*harness.Proc{a, b}, hook, when, n)
	waitDistinct(t, rc, n, 60*time.Second)
	waitQueueIdle(t, a.URL, 30*time.Second)
	rc.mu.Lock()
	for _, id := range ids {
		if got := len(rc.arrivals[id]); got != 1 {
			t.Errorf("schedule %s arrived %d times", id, got)
		}
	}
	if rc.total != n || rc.invalid != 0 {
		t.Errorf("%d deliveries (%d invalid signatures), want %d", rc.total, rc.invalid, n)
	}
	rc.mu.Unlock()
	byA, byB := strings.Count(a.Output(), "schedule published"), strings.Count(b.Output(), "schedule published")
	t.Logf("published by host A: %d, by host B: %d", byA, byB)
	if byA+byB != n {
		t.Errorf("hosts logged %d publications, want %d", byA+byB, n)
	}
}

// createMany schedules n posts at when, spread over the processes.
func createMany(t testing.TB, procs []*harness.Proc, hook string, when time.Time, n int) []string {
	t.Helper()
	ids := make([]string, n)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				p := procs[i%len(procs)]
				ids[i] = schedulePost(t, p.URL, p.Key, hook, when, fmt.Sprintf("post %d", i))
			}
		}()
	}
	wg.Wait()
	return ids
}

func waitDistinct(t testing.TB, rc *schedReceiver, n int, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for rc.distinct() < n {
		select {
		case <-rc.deliverCh:
		case <-deadline:
			t.Fatalf("%d of %d schedules arrived within %s", rc.distinct(), n, within)
		}
	}
}

// TestAHostKilledMidPublishPublishesEveryScheduleAfterRestart kills herald
// serve with SIGKILL while it delivers to a slow receiver, restarts it on
// the same data, and checks that every schedule arrives and is published.
// Deliveries in flight at the kill reached the receiver but were never
// recorded; the restarted host sends them again with the same webhook-id,
// which Standard Webhooks receivers deduplicate on, so each schedule is
// processed once.
func TestAHostKilledMidPublishPublishesEveryScheduleAfterRestart(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{Env: withEnv(map[string]string{"HERALD_JOB_LEASE": "3s"}), AllowLog: []harness.Allow{
		{Match: `rescued jobs with expired leases|taking over a schedule left publishing`, Why: "herald is killed mid-publish; the restart takes the posts over"},
	}})
	rc := newSchedReceiver(t, 100*time.Millisecond)
	hook := saveReceiver(t, p.URL, p.Key, rc)
	const n = 100
	when := time.Now().Add(2 * time.Second)
	ids := createMany(t, []*harness.Proc{p}, hook, when, n)
	for rc.distinct() < 20 {
		<-rc.deliverCh
	}
	p.Kill()
	killedAt := rc.distinct()
	p.Restart()
	waitDistinct(t, rc, n, 90*time.Second)
	for _, id := range ids {
		waitSchedule(t, p.URL, p.Key, id, "published", 30*time.Second)
	}
	waitQueueIdle(t, p.URL, 30*time.Second)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.invalid != 0 {
		t.Fatalf("%d deliveries had invalid signatures", rc.invalid)
	}
	repeated := rc.total - len(rc.arrivals)
	t.Logf("killed after %d schedules arrived; %d deliveries in all, %d repeated a webhook-id of a send in flight at the kill", killedAt, rc.total, repeated)
	// Only sends in flight at the kill (at most the queue's concurrency,
	// 8) may repeat, and only under the same webhook-id.
	if repeated > 8 {
		t.Fatalf("%d repeated deliveries, want at most the 8 in flight at the kill", repeated)
	}
}

// TestSchedulerLag measures whenToExport → arrival at the receiver with
// 1,000 schedules due in the same second (docs/BENCHMARKS.md, Scheduler).
// It runs when HERALD_BENCH_SCHEDULER=1.
func TestSchedulerLag(t *testing.T) {
	if os.Getenv("HERALD_BENCH_SCHEDULER") != "1" {
		t.Skip("set HERALD_BENCH_SCHEDULER=1 to run the scheduler lag benchmark")
	}
	env := withEnv(nil)
	if u := os.Getenv("HERALD_BENCH_DATABASE_URL"); u != "" {
		env["HERALD_DATABASE_URL"] = testenv.NewSchema(t, u)
	}
	if v := os.Getenv("HERALD_QUEUE_CONTENTQUEUE_CONCURRENCY"); v != "" {
		env["HERALD_QUEUE_CONTENTQUEUE_CONCURRENCY"] = v
	}
	p := harness.Start(t, harness.Options{Env: env})
	rc := newSchedReceiver(t, 0)
	hook := saveReceiver(t, p.URL, p.Key, rc)
	const n = 1000
	due := time.Now().Add(20 * time.Second).Truncate(time.Second)
	start := time.Now()
	createMany(t, []*harness.Proc{p}, hook, due, n)
	t.Logf("created %d schedules in %s; all due at %s", n, time.Since(start).Round(time.Millisecond), due.Format(time.RFC3339))
	if time.Now().After(due) {
		t.Fatal("creating the schedules took longer than the lead time")
	}
	waitDistinct(t, rc, n, 2*time.Minute)
	waitQueueIdle(t, p.URL, time.Minute)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	// Exactly once: every schedule arrived, none twice, all signed.
	if rc.total != n || len(rc.arrivals) != n || rc.invalid != 0 {
		t.Fatalf("%d deliveries of %d distinct schedules (%d invalid signatures), want exactly %d", rc.total, len(rc.arrivals), rc.invalid, n)
	}
	lags := make([]time.Duration, 0, n)
	for _, at := range rc.arrivals {
		lags = append(lags, at[0].Sub(due))
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	pct := func(q float64) time.Duration { return lags[int(q*float64(len(lags)-1))] }
	t.Logf("scheduling lag over %d schedules due in the same second: min %s, p50 %s, p90 %s, p99 %s, max %s; deliveries %d (distinct %d)",
		n, lags[0].Round(time.Millisecond), pct(.5).Round(time.Millisecond), pct(.9).Round(time.Millisecond), pct(.99).Round(time.Millisecond),
		lags[len(lags)-1].Round(time.Millisecond), rc.total, len(rc.arrivals))
	if lags[0] < 0 {
		t.Errorf("a schedule arrived %s before it was due", -lags[0])
	}
}
