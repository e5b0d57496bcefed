package schedule_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	firstparty "github.com/heraldhq/herald/plugins"
)

func TestMain(m *testing.M) {
	// The plugin manager runs its own executable as `herald plugin NAME`
	// for first-party plugins; under test that executable is this binary.
	if len(os.Args) == 3 && os.Args[1] == "plugin" {
		if err := firstparty.Serve(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if manager != nil {
		manager.Close()
	}
	os.Exit(code)
}

// manager is one real plugin manager (first-party plugins as subprocesses)
// shared by the package's tests; it may deliver to loopback receivers.
var (
	managerOnce sync.Once
	manager     *pluginhost.Manager
	managerErr  error
)

func plugins(t testing.TB) *pluginhost.Manager {
	t.Helper()
	managerOnce.Do(func() {
		cfg := config.Default()
		cfg.AllowedPrivateCIDRs = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		manager, managerErr = pluginhost.NewManager(hclog.NewNullLogger(), cfg, nil)
	})
	if managerErr != nil {
		t.Fatal(managerErr)
	}
	return manager
}

const (
	jwtSecret = "test-jwt-secret"
	secretKey = "test-secret-key"
)

// testBundle is a real API over HTTP with the scheduler, a running job
// queue and publisher, and keys of three workspaces: acme (business), pro
// (plan pro) and other (business).
type testBundle struct {
	url                 string
	store               *store.Store
	svc                 *schedule.Service
	dest                *destination.Service
	pub                 *schedule.Publisher
	queue               *signalQueue
	acme, pro, other    string
	acmeID, proID       string
	proUserID, acmeUser string
	blobDir             string
}

type options struct {
	secretKey string
	noCIDRs   bool
	limits    config.Limits
}

func setup(t testing.TB, s *store.Store, o ...options) *testBundle {
	t.Helper()
	opt := options{secretKey: secretKey}
	if len(o) > 0 {
		opt = o[0]
	}
	ctx := context.Background()
	b := &testBundle{store: s}
	var err error
	if b.acme, err = auth.CreateKey(ctx, s, "acme", "business", "a@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.pro, err = auth.CreateKey(ctx, s, "pro", "pro", "p@pro.test"); err != nil {
		t.Fatal(err)
	}
	if b.other, err = auth.CreateKey(ctx, s, "other", "business", "o@other.test"); err != nil {
		t.Fatal(err)
	}
	ws, u, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	b.acmeID, b.acmeUser = ws.ID, u.ID
	ws, u, _ = s.EnsureWorkspaceUser(ctx, "pro", "pro", "p@pro.test")
	b.proID, b.proUserID = ws.ID, u.ID

	b.blobDir = t.TempDir()
	blobs, err := blob.NewFS(b.blobDir, "http://blobs.test")
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(jobs.Options{Store: s, PollInterval: 100 * time.Millisecond, Lease: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cidrs := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	if opt.noCIDRs {
		cidrs = nil
	}
	b.dest, err = destination.New(destination.Deps{Store: s, Plugins: plugins(t), SecretKey: opt.secretKey, Plans: plans.New(nil), Limits: opt.limits})
	if err != nil {
		t.Fatal(err)
	}
	b.queue = &signalQueue{Queue: q, changed: make(chan struct{}), final: map[string]bool{}}
	b.svc, err = schedule.New(schedule.Deps{
		Store: s, Queue: b.queue, Destinations: plugins(t), Credentials: b.dest, Blobs: blobs,
		Plans: plans.New(nil), AllowedPrivateCIDRs: cidrs,
		Limits: opt.limits,
	})
	if err != nil {
		t.Fatal(err)
	}
	b.pub, err = schedule.NewPublisher(schedule.PublisherDeps{Store: s, Queue: b.queue, Destinations: plugins(t), Blobs: blobs, Credentials: b.dest},
		schedule.PublisherOptions{RetryBase: 200 * time.Millisecond, RetryMax: time.Second, ReconcileInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	b.pub.Start(ctx)
	t.Cleanup(func() {
		b.pub.Stop(context.Background())
		q.Stop(context.Background())
	})
	srv := httptest.NewServer(api.NewServer(api.Deps{
		Logger: hclog.NewNullLogger(), Store: s, Auth: auth.NewAuthenticator(s, jwtSecret),
		Registry: prometheus.NewRegistry(), MaxBodyBytes: 1 << 20, Blobs: blobs,
		Jobs: jobs.NewAPIHandler(q), Scheduler: schedule.NewHandler(b.svc), Destinations: destination.NewHandler(b.dest),
	}))
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

type response struct {
	status int
	body   map[string]any
	raw    string
}

// do sends a request; auth is an API key (hk_...) or "Bearer <jwt>".
func (b *testBundle) do(t testing.TB, method, path, authz, body string) response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, b.url+path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if strings.HasPrefix(authz, "Bearer ") {
		req.Header.Set("Authorization", authz)
	} else if authz != "" {
		req.Header.Set("api-key", authz)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, raw: string(raw)}
	if err := json.Unmarshal(raw, &out.body); err != nil {
		t.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
	}
	return out
}

func (r response) want(t testing.TB, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

func (r response) schedule(t testing.TB) map[string]any {
	t.Helper()
	sc, ok := r.body["schedule"].(map[string]any)
	if !ok {
		t.Fatalf("no schedule in %s", r.raw)
	}
	return sc
}

// receiver is a webhook endpoint that verifies Standard Webhooks
// signatures and answers with the statuses queued in answers (then 200).
type receiver struct {
	*httptest.Server
	secret string

	mu         sync.Mutex
	answers    []int
	deliveries []delivery
	arrived    chan delivery
}

type delivery struct {
	id, scheduleID string
	at             time.Time
	valid          bool
	content        map[string]any
	imageURL       string
}

func newReceiver(t testing.TB, answers ...int) *receiver {
	rc := &receiver{answers: answers, arrived: make(chan delivery, 4096)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := delivery{id: r.Header.Get("webhook-id"), at: time.Now()}
		d.valid = verify(rc.secretValue(), r.Header, body)
		var p struct {
			Data struct {
				ScheduleID      string         `json:"scheduleId"`
				ContentToExport map[string]any `json:"contentToExport"`
				ImageURL        string         `json:"imageUrl"`
			} `json:"data"`
		}
		json.Unmarshal(body, &p)
		d.scheduleID, d.content, d.imageURL = p.Data.ScheduleID, p.Data.ContentToExport, p.Data.ImageURL
		rc.mu.Lock()
		status := http.StatusOK
		if len(rc.answers) > 0 {
			status, rc.answers = rc.answers[0], rc.answers[1:]
		}
		rc.deliveries = append(rc.deliveries, d)
		rc.mu.Unlock()
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(status)
		if status == http.StatusBadRequest {
			io.WriteString(w, "title must not be empty here")
		}
		rc.arrived <- d
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) secretValue() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.secret
}

// verify checks a Standard Webhooks signature independently of the plugin:
// HMAC-SHA256 over "id.timestamp.body" keyed with the base64 after whsec_.
func verify(secret string, h http.Header, body []byte) bool {
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

// saveWebhook saves rc as a webhook of the key's workspace and returns its id.
func (b *testBundle) saveWebhook(t testing.TB, key string, rc *receiver) string {
	t.Helper()
	res := b.do(t, "POST", "/v1/webhooks", key, fmt.Sprintf(`{"url":%q,"name":"receiver"}`, rc.URL+"/hook?token=abc")).want(t, http.StatusCreated)
	rc.mu.Lock()
	rc.secret = res.body["secret"].(string)
	rc.mu.Unlock()
	return res.body["webhook"].(map[string]any)["id"].(string)
}

func (rc *receiver) wait(t testing.TB, within time.Duration) delivery {
	t.Helper()
	select {
	case d := <-rc.arrived:
		return d
	case <-time.After(within):
		t.Fatalf("no delivery within %s", within)
		return delivery{}
	}
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.deliveries)
}

// signalQueue is the job queue with a signal: it wraps the publish
// handler so that every start and end of an attempt closes changed, and it
// remembers the jobs whose last attempt was final (no retry to come).
type signalQueue struct {
	*jobs.Queue

	mu      sync.Mutex
	changed chan struct{}
	running int
	final   map[string]bool
}

func (q *signalQueue) Register(name string, h jobs.Handler, opts jobs.HandlerOptions) {
	q.Queue.Register(name, signalHandler{q: q, h: h}, opts)
}

// signal returns the channel closed at the next change.
func (q *signalQueue) signal() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

func (q *signalQueue) note(f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	f()
	close(q.changed)
	q.changed = make(chan struct{})
}

type signalHandler struct {
	q *signalQueue
	h jobs.Handler
}

func (s signalHandler) Work(ctx context.Context, job *jobs.Job) (any, error) {
	s.q.note(func() { s.q.running++; delete(s.q.final, job.ID) })
	res, err := s.h.Work(ctx, job)
	var noRetry *jobs.NoRetryError
	final := err == nil || errors.As(err, &noRetry) || job.Attempt >= job.MaxAttempts
	s.q.note(func() {
		s.q.running--
		if final {
			s.q.final[job.ID] = true
		}
	})
	return res, err
}

// waitStatus waits until GET /v1/scheduler/{id} shows the status want,
// looking again after each publish attempt.
func (b *testBundle) waitStatus(t testing.TB, key, id, want string, within time.Duration) map[string]any {
	t.Helper()
	timeout := time.After(within)
	for {
		changed := b.queue.signal()
		sc := b.do(t, "GET", "/v1/scheduler/"+id, key, "").want(t, http.StatusOK).schedule(t)
		if sc["status"] == want {
			return sc
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("schedule %s is %v after %s, want %s: %v", id, sc["status"], within, want, sc)
		}
	}
}

// waitIdle waits until no attempt runs and every unfinished job in the
// store (waiting, delayed or active) is one whose last attempt was final,
// so its outcome is only being written: after it, no retry or repeat of an
// export is still to come, so a count of deliveries is final.
func (b *testBundle) waitIdle(t testing.TB, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	for {
		changed := b.queue.signal()
		left := b.unfinishedJobs(t)
		b.queue.mu.Lock()
		idle := b.queue.running == 0
		for _, id := range left {
			idle = idle && b.queue.final[id]
		}
		b.queue.mu.Unlock()
		if idle {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("the queue is not idle after %s: unfinished jobs %v", within, left)
		}
	}
}

func (b *testBundle) unfinishedJobs(t testing.TB) []string {
	t.Helper()
	var ids []string
	err := storetest.Query(context.Background(), b.store, func(r store.Row) error {
		var id string
		if err := r.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	}, `SELECT id FROM jobs WHERE state IN ($1, $2, $3)`, store.JobWaiting, store.JobDelayed, store.JobActive)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func in(d time.Duration) string { return time.Now().Add(d).UTC().Format(time.RFC3339Nano) }

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 64)...)
