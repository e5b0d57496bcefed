package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
)

// What the deliverer of `herald serve` uses: a claim holds its deliveries
// for eventLease (HERALD_EVENT_DELIVERY_LEASE, set below; 60 s by default),
// and at most eventWorkers claims are in flight on a host, each of at most
// eventMaxBatch deliveries (the deliverer's defaults: a claim takes 16, and
// twice as many as the last while a backlog builds, up to 128).
const (
	eventLease    = 6 * time.Second
	eventWorkers  = 4
	eventMaxBatch = 128
)

// evArrival is one request the event receiver got.
type evArrival struct {
	host     string // "A" or "B": the process that holds the connection
	at       time.Time
	held     bool // held unanswered from the moment the receiver armed until the sender died
	answered bool // the receiver wrote its 204
}

// evReceiver is the receiving side of every subscription: it verifies each
// request with the official Standard Webhooks verifier and the secret of
// the subscription its path names, records it by webhook-id with the host
// that sent it (the process holding the connection, told by
// testenv.PeerPID), and answers 204 at once. Once armed it holds host A's
// requests unanswered instead, so that A certainly has attempts in flight
// when it is killed.
type evReceiver struct {
	*httptest.Server
	hosts map[int]string // pid → name

	mu        sync.Mutex
	verifiers map[string]*standardwebhooks.Webhook // path → verifier
	arrivals  map[string][]*evArrival              // webhook-id → attempts
	paths     map[string]string                    // webhook-id → path
	schedules map[string]string                    // webhook-id → data.scheduleId
	problems  []string                             // invalid signatures, bad bodies, unknown senders
	// dying is the host being killed, set just before the kill: a
	// connection it opened may be accepted after its sockets are gone,
	// and no other process of the test exits, so a peer that is gone is it.
	dying    string
	total    int
	armAt    int  // hold A's requests from this many arrivals on
	armed    bool // set when total reached armAt
	held     chan struct{}
	heldOnce sync.Once
	release  chan struct{}
	progress chan struct{}
}

type evHostKey struct{}

func newEvReceiver(t *testing.T, hosts map[int]string) *evReceiver {
	rc := &evReceiver{hosts: hosts, verifiers: map[string]*standardwebhooks.Webhook{}, arrivals: map[string][]*evArrival{},
		paths: map[string]string{}, schedules: map[string]string{}, held: make(chan struct{}), release: make(chan struct{}),
		progress: make(chan struct{}, 1)}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	rc.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		pids := make([]int, 0, len(hosts))
		for pid := range hosts {
			pids = append(pids, pid)
		}
		name := "?"
		if pid, err := testenv.PeerPID(c, pids...); err == nil {
			name = hosts[pid]
		} else {
			rc.mu.Lock()
			if rc.dying != "" {
				name = rc.dying
			} else {
				rc.problems = append(rc.problems, "cannot tell the sender: "+err.Error())
			}
			rc.mu.Unlock()
		}
		return context.WithValue(ctx, evHostKey{}, name)
	}
	rc.Start()
	t.Cleanup(rc.Close)
	// Runs before Close: held requests of a test that failed early end.
	t.Cleanup(func() { close(rc.release) })
	return rc
}

func (rc *evReceiver) serve(w http.ResponseWriter, r *http.Request) {
	host, _ := r.Context().Value(evHostKey{}).(string)
	body, _ := io.ReadAll(r.Body)
	id := r.Header.Get("webhook-id")
	var ev struct {
		Type string `json:"type"`
		Data struct {
			ScheduleID string `json:"scheduleId"`
		} `json:"data"`
	}
	jsonErr := json.Unmarshal(body, &ev)

	rc.mu.Lock()
	if wh := rc.verifiers[r.URL.Path]; wh == nil {
		rc.problems = append(rc.problems, "a request to an unknown path "+r.URL.Path)
	} else if err := wh.Verify(body, r.Header); err != nil {
		rc.problems = append(rc.problems, fmt.Sprintf("%s failed verification: %v", id, err))
	}
	if jsonErr != nil || ev.Type != "schedule.published" || ev.Data.ScheduleID == "" {
		rc.problems = append(rc.problems, fmt.Sprintf("%s: not a schedule.published event: %s", id, body))
	}
	if prev, ok := rc.schedules[id]; ok && prev != ev.Data.ScheduleID {
		rc.problems = append(rc.problems, fmt.Sprintf("%s carried schedule %s, then %s", id, prev, ev.Data.ScheduleID))
	}
	rc.schedules[id], rc.paths[id] = ev.Data.ScheduleID, r.URL.Path
	rc.total++
	if rc.total >= rc.armAt && rc.armAt > 0 {
		rc.armed = true
	}
	a := &evArrival{host: host, at: time.Now(), held: rc.armed && host == "A"}
	rc.arrivals[id] = append(rc.arrivals[id], a)
	rc.mu.Unlock()
	select {
	case rc.progress <- struct{}{}:
	default:
	}
	if a.held {
		rc.heldOnce.Do(func() { close(rc.held) })
		select {
		case <-rc.release:
		case <-r.Context().Done(): // the sender died
		}
		return
	}
	w.WriteHeader(http.StatusNoContent)
	rc.mu.Lock()
	a.answered = true
	rc.mu.Unlock()
}

func (rc *evReceiver) distinct() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.arrivals)
}

// evTenant is one workspace: its key, the saved webhook its posts go to,
// and its event subscription.
type evTenant struct {
	key, hook, sub, path string
	schedules            []string
}

// postJSON sends one JSON request from any goroutine; the caller reports
// errors on the test's own goroutine.
func postJSON(base, key, path string, body any) (map[string]any, error) {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("api-key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || json.Unmarshal(data, &out) != nil {
		return nil, fmt.Errorf("POST %s: %d %s", path, res.StatusCode, data)
	}
	return out, nil
}

// TestEventsTwoHostsDeliverEachEventOnceWhenOneIsKilled runs two herald
// serve processes on one PostgreSQL schema and one Redis. Five workspaces
// (the delivery log route shows a subscription's newest 200) each save a
// webhook destination and subscribe to schedule.published on one
// receiver; 1,000 posts, created through host B, are published by both
// hosts' queues, and each publication's transaction writes its event. Once
// the receiver has seen 300 deliveries it holds host A's next requests
// unanswered, and when one is held, A is killed with SIGKILL; B finishes.
//
// What exactly once means with a killed host. Delivery is at least once:
// a receiver deduplicates by webhook-id. A killed host's claims are
// attempts whose outcome was never recorded: held at the kill, answered
// but not yet recorded, or claimed and not yet sent. When the lease ends,
// B sends each of those again with the same webhook-id; that repeat is
// the one allowed: the killed host's attempt, then B's, after the kill
// and after A's lease could have ended, the log counting 2 attempts, and
// at most one claim per worker of A's in flight. Every other event has
// one attempt from one host: any webhook-id sent twice by a live host, or
// by both before the kill, fails the test (the claim's exclusivity
// broken).
func TestEventsTwoHostsDeliverEachEventOnceWhenOneIsKilled(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the receiver tells the two hosts' connections apart through /proc, on Linux only")
	}
	env := withEnv(map[string]string{
		"HERALD_DATABASE_URL": testenv.NewSchema(t, testenv.DatabaseURL(t)),
		"HERALD_REDIS_URL":    testenv.RedisURL(t),

		"HERALD_EVENT_DELIVERY_LEASE": eventLease.String(),
		// The publish jobs A held at the kill come back when their
		// lease ends and the rescuer next looks (lease/2 later): with
		// the 30 s default that can be 45 s after the kill, longer than
		// the idle wait below.
		"HERALD_JOB_LEASE": eventLease.String(),
	})
	allow := []harness.Allow{
		{Match: `rescued jobs with expired leases`, Why: "host A is killed holding publish jobs; B rescues them when their lease ends"},
		{Match: `taking over a schedule left publishing`, Why: "a post A was publishing at the kill is published by B, with the same idempotency key"},
	}
	began := time.Now()
	a := harness.Start(t, harness.Options{Env: env, AllowLog: allow})
	b := harness.Start(t, harness.Options{Env: env, Key: a.Key, AllowLog: allow})
	t.Logf("two hosts serving after %s (the first start builds herald)", time.Since(began).Round(time.Millisecond))
	rc := newEvReceiver(t, map[int]string{a.PID(): "A", b.PID(): "B"})
	dest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(dest.Close)

	const workspaces, n = 5, 1000
	tenants := make([]*evTenant, workspaces)
	for i := range tenants {
		key := a.Key
		if i > 0 {
			out, err := a.Run(context.Background(), "keys", "create", "--workspace", fmt.Sprintf("events%d", i), "--plan", "business")
			if err != nil {
				t.Fatalf("keys create: %v\n%s", err, out)
			}
			key = harness.LastLine(out)
		}
		tn := &evTenant{key: key, path: fmt.Sprintf("/events/%d", i)}
		status, out := api(t, a.URL, key, "POST", "/v1/webhooks", map[string]any{"url": dest.URL + "/posts"})
		if status != http.StatusCreated {
			t.Fatalf("save webhook: %d %v", status, out)
		}
		tn.hook = out["webhook"].(map[string]any)["id"].(string)
		status, out = api(t, a.URL, key, "POST", "/v1/events/subscriptions", map[string]any{
			"url": rc.URL + tn.path, "events": []string{"schedule.published"}, "format": "standard"})
		if status != http.StatusCreated {
			t.Fatalf("subscribe: %d %v", status, out)
		}
		tn.sub = out["subscription"].(map[string]any)["id"].(string)
		wh, err := standardwebhooks.NewWebhook(out["secret"].(string))
		if err != nil {
			t.Fatalf("the subscription's secret: %v", err)
		}
		rc.mu.Lock()
		rc.verifiers[tn.path] = wh
		rc.mu.Unlock()
		tenants[i] = tn
	}

	// Hold A's requests from the 300th delivery on.
	rc.mu.Lock()
	rc.armAt = 300
	rc.mu.Unlock()
	start := time.Now()
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				tn := tenants[i%workspaces]
				out, err := postJSON(b.URL, tn.key, "/v1/scheduler/create", map[string]any{"exportTo": "webhook", "webhookId": tn.hook,
					"title": fmt.Sprintf("post %d", i), "whenToExport": time.Now().UTC().Format(time.RFC3339Nano)})
				if err == nil {
					ids[i] = out["schedule"].(map[string]any)["id"].(string)
				}
				errs[i] = err
			}
		}()
	}

	select {
	case <-rc.held:
	case <-time.After(60 * time.Second):
		wg.Wait()
		t.Fatalf("host A sent nothing after the receiver's %d deliveries (%d in all)", rc.armAt, rc.distinct())
	}
	rc.mu.Lock()
	rc.dying = "A"
	rc.mu.Unlock()
	killStart := time.Now()
	a.Kill() // returns once the process has exited: A sends nothing after killed
	killed := time.Now()
	rc.mu.Lock()
	atKill := rc.total
	rc.mu.Unlock()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("create post %d: %v", i, err)
		}
		tenants[i%workspaces].schedules = append(tenants[i%workspaces].schedules, ids[i])
	}
	t.Logf("1000 posts created in %s; host A killed %s after the start, at %d deliveries", time.Since(start).Round(time.Millisecond),
		killStart.Sub(start).Round(time.Millisecond), atKill)

	// Every event arrives and every delivery is logged delivered (then
	// nothing more will be sent): A's unrecorded claims come last, once
	// their lease has ended. A log changes only after an arrival, so the
	// logs are read again after each one (and, for the commit that follows
	// the last answer, every half second).
	within := eventLease + 60*time.Second
	deadline := time.After(within)
	logs := map[string]map[string]any{} // delivery id → log entry
	allDelivered := func() bool {
		clear(logs)
		for _, tn := range tenants {
			status, out := api(t, b.URL, tn.key, "GET", "/v1/events/subscriptions/"+tn.sub+"/deliveries?limit=200", nil)
			if status != http.StatusOK {
				t.Fatalf("delivery log: %d %v", status, out)
			}
			for _, d := range out["deliveries"].([]any) {
				d := d.(map[string]any)
				if d["status"] != "delivered" {
					return false
				}
				d["path"] = tn.path
				logs[d["id"].(string)] = d
			}
		}
		return len(logs) == n
	}
	for rc.distinct() < n || !allDelivered() {
		select {
		case <-rc.progress:
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s after the kill: %d of %d events arrived, %d deliveries logged delivered", within, rc.distinct(), n, len(logs))
		}
	}
	t.Logf("every event arrived and was logged delivered %s after the kill", time.Since(killStart).Round(time.Millisecond))
	waitQueueIdle(t, b.URL, 2*eventLease+30*time.Second)
	checkEventDeliveries(t, rc, tenants, logs, killed)
}

// checkEventDeliveries holds the receiver's record against the rules in
// the test's comment and against the delivery logs.
func checkEventDeliveries(t *testing.T, rc *evReceiver, tenants []*evTenant, logs map[string]map[string]any, killed time.Time) {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, p := range rc.problems {
		t.Error(p)
	}
	// Each post's publication made one event, with one webhook-id.
	want := map[string]string{} // schedule → path
	for _, tn := range tenants {
		for _, id := range tn.schedules {
			want[id] = tn.path
		}
	}
	seen := map[string]string{}
	for id, sc := range rc.schedules {
		if other, ok := seen[sc]; ok {
			t.Errorf("schedule %s was published as two events, %s and %s", sc, other, id)
		}
		seen[sc] = id
		if want[sc] != rc.paths[id] {
			t.Errorf("event %s of schedule %s reached %s; its workspace subscribed at %q", id, sc, rc.paths[id], want[sc])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d posts' events arrived; %d posts were published", len(seen), len(want))
	}

	var once, heldAtKill, answeredLost, neverSent int
	byHost := map[string]int{}
	var gaps []time.Duration
	for id, arr := range rc.arrivals {
		entry := logs[id]
		if entry == nil {
			t.Errorf("%s arrived but is in no delivery log", id)
			continue
		}
		if entry["path"] != rc.paths[id] || entry["responseCode"] != float64(http.StatusNoContent) || entry["nextAttemptAt"] != nil {
			t.Errorf("%s: log %v, receiver saw it at %s answering 204", id, entry, rc.paths[id])
		}
		attempts := entry["attempts"]
		for _, x := range arr {
			byHost[x.host]++
		}
		// One attempt, one host: the rule for every event a live host sent.
		if len(arr) == 1 && attempts == float64(1) {
			once++
			continue
		}
		// The one exception: a claim of host A that it never recorded,
		// sent again by B after the kill once A's lease could have ended.
		last := arr[len(arr)-1]
		handedOver := attempts == float64(2) && last.host == "B" && last.at.After(killed)
		switch {
		case !handedOver:
		case len(arr) == 1:
			// Claimed by A and not yet sent at the kill: a claim a moment
			// old, so its lease ends about a lease after the kill.
			if handedOver = last.at.Sub(killed) >= eventLease/2; handedOver {
				neverSent++
			}
		case len(arr) == 2:
			first := arr[0]
			gap := last.at.Sub(first.at)
			// The lease starts at A's claim, a moment before its send.
			handedOver = first.host == "A" && first.at.Before(killed) && gap >= eventLease/2
			if !handedOver {
				break
			}
			gaps = append(gaps, gap)
			if first.held {
				heldAtKill++
			} else {
				answeredLost++ // reached the receiver; A died before recording it
			}
		default:
			handedOver = false
		}
		if !handedOver {
			t.Errorf("%s: %d attempts in the log, arrivals %s; want one attempt from one host, or the killed host's unrecorded claim repeated by the other after its lease",
				id, int(attempts.(float64)), describeArrivals(arr, killed))
		}
	}
	for id := range logs {
		if rc.arrivals[id] == nil {
			t.Errorf("delivery %s is logged delivered but never arrived", id)
		}
	}
	repeated := heldAtKill + answeredLost + neverSent
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	t.Logf("%d events: %d sent once (host A %d arrivals, B %d in all); %d of A's claims repeated by B after the kill (%d held at the kill, %d answered but unrecorded, %d claimed but not sent); repeat gaps %v",
		len(rc.arrivals), once, byHost["A"], byHost["B"], repeated, heldAtKill, answeredLost, neverSent, gapRange(gaps))
	if heldAtKill == 0 {
		t.Errorf("no request held at the kill was sent again: host A had an attempt in flight, the receiver never got it from B")
	}
	if repeated > eventWorkers*eventMaxBatch {
		t.Errorf("%d of A's claims were repeated; at most %d (workers × largest batch) are in flight on a host", repeated, eventWorkers*eventMaxBatch)
	}
	if byHost["A"] == 0 || byHost["B"] == 0 {
		t.Errorf("arrivals by host %v: both hosts should have delivered", byHost)
	}
}

func describeArrivals(arr []*evArrival, killed time.Time) string {
	var parts []string
	for _, a := range arr {
		parts = append(parts, fmt.Sprintf("%s at kill%+.3fs (held %t, answered %t)", a.host, a.at.Sub(killed).Seconds(), a.held, a.answered))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

func gapRange(gaps []time.Duration) string {
	if len(gaps) == 0 {
		return "none"
	}
	return fmt.Sprintf("%s–%s", gaps[0].Round(100*time.Millisecond), gaps[len(gaps)-1].Round(100*time.Millisecond))
}
