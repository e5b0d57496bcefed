// Package scheduletest is the test harness shared by the schedule and
// destination packages: a real API over HTTP with the scheduler,
// destinations and webhooks, a running job queue and publisher, real
// first-party plugin processes, keys of three workspaces, and a webhook
// Receiver that verifies Standard Webhooks signatures. Only tests import it.
package scheduletest

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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/pluginhost/pluginhosttest"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Main is the TestMain of a package that uses the harness (it serves the
// first-party plugins the manager starts from the test binary).
func Main(m *testing.M) { pluginhosttest.Main(m) }

// Plugins is the shared plugin manager over the first-party plugins.
func Plugins(t testing.TB) *pluginhost.Manager { return pluginhosttest.Manager(t, true) }

const (
	JWTSecret = "test-jwt-secret"
	SecretKey = "test-secret-key"
)

// Bundle is a real API over HTTP with the scheduler, a running job
// queue and publisher, and keys of three workspaces: acme (business), pro
// (plan pro) and other (business).
type Bundle struct {
	// Server is the API: b.Do calls it, b.URL is its address.
	*apitest.Server
	Store               *store.Store
	Svc                 *schedule.Service
	Dest                *destination.Service
	Pub                 *schedule.Publisher
	Queue               *SignalQueue
	Acme, Pro, Other    string // API keys
	AcmeID, ProID       string // workspace ids
	ProUserID, AcmeUser string
	BlobDir             string
}

// Options change the harness: the secret key (empty: none), no private
// CIDRs for the guarded client, and the workspace limits.
type Options struct {
	SecretKey string
	NoCIDRs   bool
	Limits    config.Limits
}

// Setup builds the harness over s; Options default to the test secret key.
func Setup(t testing.TB, s *store.Store, o ...Options) *Bundle {
	t.Helper()
	opt := Options{SecretKey: SecretKey}
	if len(o) > 0 {
		opt = o[0]
	}
	ctx := context.Background()
	b := &Bundle{Store: s}
	var err error
	if b.Acme, err = auth.CreateKey(ctx, s, "acme", "business", "a@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.Pro, err = auth.CreateKey(ctx, s, "pro", "pro", "p@pro.test"); err != nil {
		t.Fatal(err)
	}
	if b.Other, err = auth.CreateKey(ctx, s, "other", "business", "o@other.test"); err != nil {
		t.Fatal(err)
	}
	ws, u, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	b.AcmeID, b.AcmeUser = ws.ID, u.ID
	ws, u, _ = s.EnsureWorkspaceUser(ctx, "pro", "pro", "p@pro.test")
	b.ProID, b.ProUserID = ws.ID, u.ID

	b.BlobDir = t.TempDir()
	blobs, err := blob.NewFS(b.BlobDir, "http://blobs.test")
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(jobs.Options{Store: s, PollInterval: 100 * time.Millisecond, Lease: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cidrs := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	if opt.NoCIDRs {
		cidrs = nil
	}
	planTable := plans.New(nil)
	caps := quota.New(s, opt.Limits).Follow(planTable)
	b.Dest, err = destination.New(destination.Deps{Store: s, Plugins: Plugins(t), SecretKey: opt.SecretKey, Plans: planTable, Quota: caps})
	if err != nil {
		t.Fatal(err)
	}
	b.Queue = &SignalQueue{Queue: q, changed: make(chan struct{}), final: map[string]bool{}}
	b.Svc, err = schedule.New(schedule.Deps{
		Store: s, Queue: b.Queue, Destinations: Plugins(t), Credentials: b.Dest, Blobs: blobs,
		Plans: planTable, AllowedPrivateCIDRs: cidrs, Quota: caps,
	})
	if err != nil {
		t.Fatal(err)
	}
	b.Pub, err = schedule.NewPublisher(schedule.PublisherDeps{Store: s, Queue: b.Queue, Destinations: Plugins(t), Blobs: blobs, Credentials: b.Dest},
		schedule.PublisherOptions{RetryBase: 200 * time.Millisecond, RetryMax: time.Second, ReconcileInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// The host's job table row of the publisher (host/jobs.go).
	b.Queue.Register(schedule.JobPublish, b.Pub, b.Pub.JobOptions())
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	b.Pub.Start(ctx)
	t.Cleanup(func() {
		b.Pub.Stop(context.Background())
		q.Stop(context.Background())
	})
	b.Server = apitest.Start(t, api.Deps{
		Store: s, Auth: auth.NewAuthenticator(s, JWTSecret), MaxBodyBytes: 1 << 20, Blobs: blobs,
		Jobs: jobs.NewAPIHandler(q), Scheduler: schedule.NewHandler(b.Svc), Destinations: destination.NewHandler(b.Dest),
	})
	return b
}

// Schedule is the "schedule" object of an answer.
func Schedule(t testing.TB, r apitest.Response) map[string]any {
	t.Helper()
	sc, ok := r.Body["schedule"].(map[string]any)
	if !ok {
		t.Fatalf("no schedule in %s", r.Raw)
	}
	return sc
}

// Receiver is a webhook endpoint that verifies Standard Webhooks
// signatures and answers with the statuses queued in answers (then 200).
type Receiver struct {
	*httptest.Server
	secret string

	mu         sync.Mutex
	answers    []int
	deliveries []Delivery
	arrived    chan Delivery
}

// Delivery is one request the receiver got.
type Delivery struct {
	ID, ScheduleID string // webhook-id and data.scheduleId
	At             time.Time
	Valid          bool // the signature verified
	Content        map[string]any
	ImageURL       string
}

// NewReceiver starts a receiver answering the statuses given, then 200.
func NewReceiver(t testing.TB, answers ...int) *Receiver {
	rc := &Receiver{answers: answers, arrived: make(chan Delivery, 4096)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := Delivery{ID: r.Header.Get("webhook-id"), At: time.Now()}
		d.Valid = Verify(rc.SecretValue(), r.Header, body)
		var p struct {
			Data struct {
				ScheduleID      string         `json:"scheduleId"`
				ContentToExport map[string]any `json:"contentToExport"`
				ImageURL        string         `json:"imageUrl"`
			} `json:"data"`
		}
		json.Unmarshal(body, &p)
		d.ScheduleID, d.Content, d.ImageURL = p.Data.ScheduleID, p.Data.ContentToExport, p.Data.ImageURL
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

// NewReceiverFunc is a receiver whose answers come from h; it records
// nothing (h does).
func NewReceiverFunc(t testing.TB, h http.HandlerFunc) *Receiver {
	rc := &Receiver{arrived: make(chan Delivery, 16)}
	rc.Server = httptest.NewServer(h)
	t.Cleanup(rc.Close)
	return rc
}

// SecretValue is the signing secret SaveWebhook stored.
func (rc *Receiver) SecretValue() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.secret
}

// Verify checks a Standard Webhooks signature independently of the plugin:
// HMAC-SHA256 over "id.timestamp.body" keyed with the base64 after whsec_.
func Verify(secret string, h http.Header, body []byte) bool {
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

// SaveWebhook saves rc as a webhook of the key's workspace and returns its id.
func (b *Bundle) SaveWebhook(t testing.TB, key string, rc *Receiver) string {
	t.Helper()
	res := b.Do(t, "POST", "/v1/webhooks", key, fmt.Sprintf(`{"url":%q,"name":"Receiver"}`, rc.URL+"/hook?token=abc")).Want(t, http.StatusCreated)
	rc.mu.Lock()
	rc.secret = res.Body["secret"].(string)
	rc.mu.Unlock()
	return res.Body["webhook"].(map[string]any)["id"].(string)
}

// Wait returns the next delivery, failing the test after within.
func (rc *Receiver) Wait(t testing.TB, within time.Duration) Delivery {
	t.Helper()
	select {
	case d := <-rc.arrived:
		return d
	case <-time.After(within):
		t.Fatalf("no Delivery within %s", within)
		return Delivery{}
	}
}

// Deliveries returns a copy of what the receiver got, in order.
func (rc *Receiver) Deliveries() []Delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Delivery(nil), rc.deliveries...)
}

// Count is how many deliveries arrived.
func (rc *Receiver) Count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.deliveries)
}

// SignalQueue is the job queue with a signal: it wraps the publish
// handler so that every start and end of an attempt closes changed, and it
// remembers the jobs whose last attempt was final (no retry to come).
type SignalQueue struct {
	*jobs.Queue

	mu      sync.Mutex
	changed chan struct{}
	running int
	final   map[string]bool
}

// Register wraps h so that its attempts signal.
func (q *SignalQueue) Register(name string, h jobs.Handler, opts jobs.HandlerOptions) {
	q.Queue.Register(name, signalHandler{q: q, h: h}, opts)
}

// signal returns the channel closed at the next change.
func (q *SignalQueue) signal() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

func (q *SignalQueue) note(f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	f()
	close(q.changed)
	q.changed = make(chan struct{})
}

type signalHandler struct {
	q *SignalQueue
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

// WaitStatus waits until GET /v1/scheduler/{id} shows the status want,
// looking again after each publish attempt.
func (b *Bundle) WaitStatus(t testing.TB, key, id, want string, within time.Duration) map[string]any {
	t.Helper()
	timeout := time.After(within)
	for {
		changed := b.Queue.signal()
		sc := Schedule(t, b.Do(t, "GET", "/v1/scheduler/"+id, key, "").Want(t, http.StatusOK))
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

// WaitIdle waits until no attempt runs and every unfinished job in the
// store (waiting, delayed or active) is one whose last attempt was final,
// so its outcome is only being written: after it, no retry or repeat of an
// export is still to come, so a count of deliveries is final.
func (b *Bundle) WaitIdle(t testing.TB, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	for {
		changed := b.Queue.signal()
		left := b.UnfinishedJobs(t)
		b.Queue.mu.Lock()
		idle := b.Queue.running == 0
		for _, id := range left {
			idle = idle && b.Queue.final[id]
		}
		b.Queue.mu.Unlock()
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

// UnfinishedJobs lists the ids of waiting, delayed and active jobs.
func (b *Bundle) UnfinishedJobs(t testing.TB) []string {
	t.Helper()
	var ids []string
	err := storetest.Query(context.Background(), b.Store, func(r store.Row) error {
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

// In is the RFC 3339 time d from now, for whenToExport.
func In(d time.Duration) string { return time.Now().Add(d).UTC().Format(time.RFC3339Nano) }

// PNG is the smallest bytes the image checks take for a PNG.
var PNG = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 64)...)

// InsertOrphan stores a due pending post of acme to the saved webhook
// hook without a publish job, as only a lost job leaves one, and returns
// its id.
func (b *Bundle) InsertOrphan(t testing.TB, hook string) string {
	t.Helper()
	now := b.Store.Now()
	sc := &store.Schedule{WorkspaceID: b.AcmeID, UserID: b.AcmeUser, ExportTo: "webhook", Status: store.SchedulePending,
		WhenToExport: &now, WebhookID: &hook, Content: `{"title":"orphan"}`}
	if err := b.Store.InsertSchedule(context.Background(), nil, sc); err != nil {
		t.Fatal(err)
	}
	return sc.ID
}
