package dashboard_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/analytics"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/events"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/impact"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/pluginhost/pluginhosttest"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/tracker"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/plugins/ga4"
	"github.com/heraldhq/herald/plugins/ga4/ga4test"
)

func TestMain(m *testing.M) { pluginhosttest.Main(m) }

// plugins is the real plugin manager: the wordpress and webhook plugins
// run as subprocesses of this test binary and may reach loopback fakes.
func plugins(t testing.TB) *pluginhost.Manager { return pluginhosttest.Manager(t, true) }

// bundle is a real host in this process, wired as `herald serve` wires it
// (host/serve.go): the API with every area, a running job queue, the real
// destination plugins, a guarded site fetcher pointed at a local TLS site
// named example.com, and scripted engines instead of provider plugins.
type bundle struct {
	*apitest.Server
	store   *store.Store
	key     string
	ws      store.Workspace
	engines *engines
	// google is the fake Google the in-process ga4 plugin calls.
	google *ga4test.Google
	logs   *logCheck
}

// logCheck is the services' log: every WARN or ERROR line fails the test
// when it ends: no dashboard flow expects one.
type logCheck struct {
	mu    sync.Mutex
	lines []string
}

func (l *logCheck) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(string(p)))
	return len(p), nil
}

func (l *logCheck) check(t testing.TB) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		t.Errorf("unexpected line in the server's log: %s", line)
	}
}

func setup(t testing.TB, st *store.Store) *bundle {
	t.Helper()
	ctx := context.Background()
	b := &bundle{store: st, engines: newEngines(), logs: &logCheck{}}
	// Registered first, so it runs last: after the queue has stopped.
	t.Cleanup(func() { b.logs.check(t) })
	log := hclog.New(&hclog.LoggerOptions{Output: b.logs, Level: hclog.Warn})
	var err error
	if b.key, err = auth.CreateKey(ctx, st, "acme", "business", "owner@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.ws, _, err = st.EnsureWorkspaceUser(ctx, "acme", "business", "owner@acme.test"); err != nil {
		t.Fatal(err)
	}
	b.Server = apitest.Reserve(t)
	blobs, err := blob.NewFS(t.TempDir(), b.URL)
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(jobs.Options{Store: st, PollInterval: 100 * time.Millisecond, Lease: 5 * time.Second, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	// The default plans, with one refresh a day on business so that a
	// test reaches the refresh limit (429 and Retry-After) in two clicks.
	planMap := config.DefaultPlans()
	business := planMap["business"]
	business.RefreshesPer24h = 1
	business.PromptsPerReport = 3
	planMap["business"] = business
	planTable := plans.New(planMap)
	fetcher := exampleSite(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	voices, err := voice.New(voice.Deps{Store: st, Fetcher: fetcher, Queue: q, Logger: log})
	must(err)
	q.Mount([]jobs.Route{ // voice's rows of the host's job table (host/jobs.go)
		{Queue: jobs.ContentQueue, Name: voice.JobCreate, Handler: jobs.HandlerFunc(voices.RunCreate), Options: voice.SourceJobOptions},
		{Queue: jobs.ContentQueue, Name: voice.JobRefresh, Handler: jobs.HandlerFunc(voices.RunRefresh), Options: voice.SourceJobOptions},
	})
	credits := quota.New(st, config.Limits{}).Follow(planTable)
	generator, err := generate.New(generate.Deps{Models: b.engines, Queue: q, Store: st, Quota: credits, Blobs: blobs, Voices: voices, Logger: log})
	must(err)
	contentSvc, err := content.New(content.Deps{Logger: log, Generator: generator, Queue: q, Quota: credits})
	must(err)
	// content's and generate's rows of the job table (host/jobs.go).
	q.Mount([]jobs.Route{
		{Queue: jobs.ContentQueue, Name: content.JobImproveSimple, Handler: jobs.HandlerFunc(contentSvc.RunImproveSimple), Options: content.ImproveJobOptions},
		{Queue: jobs.ContentQueue, Name: content.JobImproveValidated, Handler: jobs.HandlerFunc(contentSvc.RunImproveValidated), Options: content.ImproveJobOptions},
		{Queue: jobs.ContentQueue, Name: content.JobBlogPost, Handler: jobs.HandlerFunc(contentSvc.RunBlogPost), Options: content.BlogJobOptions},
		{Queue: jobs.AIQueue, Handler: jobs.HandlerFunc(generator.RunText), Options: generate.TextJobOptions},
	})
	dests, err := destination.New(destination.Deps{Store: st, Plugins: plugins(t), SecretKey: "dashboard-test-secret", Plans: planTable, Quota: credits, Logger: log})
	must(err)
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	targets := &lateTargets{}
	sched, err := schedule.New(schedule.Deps{
		Store: st, Queue: q, Destinations: plugins(t), Credentials: dests, Blobs: blobs,
		Plans: planTable, AllowedPrivateCIDRs: loopback, Logger: log, Quota: credits,
		Trackers: targets,
	})
	must(err)
	vis, err := visibility.New(visibility.Deps{Store: st, Queue: q, Quota: credits, Models: b.engines, Site: fetcher, Plans: planTable, Logger: log,
		Config: config.Visibility{Engines: []string{"gpt-4o", "claude"}, JudgeModel: "gpt-4o", Concurrency: 4}})
	must(err)
	q.Mount([]jobs.Route{{Queue: jobs.SEOQueue, Name: visibility.JobReport, Handler: jobs.HandlerFunc(vis.RunReport), Options: visibility.ReportJobOptions}})
	w, err := traffic.NewWriter(context.Background(), st, traffic.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close) // after the server: cleanups run last-in first-out
	// Google Analytics through the ga4 plugin (in process) against a fake Google.
	b.google = ga4test.New(t)
	ga := ga4.New()
	must(ga.Configure(ctx, b.google.Settings()))
	gaSvc, err := analytics.New(analytics.Deps{Store: st, Plugin: ga, SecretKey: "dashboard-test-secret", Logger: log})
	must(err)
	trafficSvc, err := traffic.New(traffic.Deps{Store: st, Writer: w, BaseURL: b.URL, External: gaSvc})
	must(err)
	agentSvc, err := agent.New(agent.Deps{
		Store: st, Quota: quota.New(st, config.Limits{}).Follow(planTable), Models: b.engines, Plans: planTable, Traffic: trafficSvc, Scheduler: sched,
		Voices: voices, Images: generator, Registerer: prometheus.NewRegistry(), Logger: log,
	})
	must(err)
	must(q.Start(ctx))
	t.Cleanup(func() { q.Stop(context.Background()) })
	eventSvc, err := events.New(events.Deps{Store: st, Quota: credits, SecretKey: "dashboard-test-secret"})
	if err != nil {
		t.Fatal(err)
	}
	trackers, err := tracker.New(tracker.Deps{Store: st, Queue: q, Quota: credits, Plans: planTable, Reports: vis, Traffic: trafficSvc})
	must(err)
	targets.svc = trackers
	impactSvc, err := impact.New(impact.Deps{Schedules: sched, Trackers: trackers, Pages: trafficSvc, Writer: generator, Credits: credits, Proposals: sched})
	must(err)
	b.Serve(t, api.Deps{
		Logger: log,
		Events: events.NewHandler(eventSvc),
		Store:  st, Auth: auth.NewAuthenticator(st, ""),
		MaxBodyBytes: 4 << 20, Blobs: blobs,
		Voices:       voice.NewHandler(voices),
		Traffic:      traffic.NewHandler(trafficSvc),
		Jobs:         jobs.NewAPIHandler(q),
		Generate:     generate.NewHandler(generator),
		Content:      content.NewHandler(contentSvc),
		Scheduler:    schedule.NewHandler(sched),
		Destinations: destination.NewHandler(dests),
		Visibility:   visibility.NewHandler(vis),
		Trackers:     tracker.NewHandler(trackers),
		Impact:       impact.NewHandler(impactSvc),
		Agent:        agent.NewHandler(agentSvc),
		Analytics:    analytics.NewHandler(gaSvc),
	})
	return b
}

// lateTargets checks a post's targets with the tracker service, built
// after the scheduler (as host/impact.go does).
type lateTargets struct{ svc *tracker.Service }

func (l *lateTargets) CheckTargets(ctx context.Context, workspaceID, trackerID string, prompts []string) error {
	return l.svc.CheckTargets(ctx, workspaceID, trackerID, prompts)
}

// siteHome is https://example.com's home page: Acme, industrial widgets.
const siteHome = `<!doctype html><html><head><title>Acme | Industrial widgets</title>
<meta name="description" content="Acme makes industrial widgets for factories.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme","description":"Industrial widgets for factories","address":{"addressLocality":"Lyon","addressCountry":"FR"}}</script></head>
<body><h1>Industrial widgets</h1><p>We write plainly. Our widgets last. Factories across Europe trust them.</p><a href="/about">About</a></body></html>`

// exampleSite serves https://example.com (home, about, a voice file) from
// a local TLS server and returns the guarded fetcher that reaches it.
func exampleSite(t testing.TB) *site.Fetcher {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, siteHome)
	})
	mux.HandleFunc("/about", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><body><main><p>We serve factories across Europe since 1990.</p></main></body></html>`)
	})
	mux.HandleFunc("/voice.md", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		io.WriteString(w, "# How Acme writes\n\nShort sentences. Plain words. We say what a widget does, then stop.\n")
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return site.New(site.Deps{
		UserAgent: "HeraldBot/test (+https://herald.test)", RootCAs: pool,
		AllowedPrivateCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Hosts:               map[string]string{"example.com:443": srv.Listener.Addr().String()},
	})
}

// call sends a JSON request with the workspace key and decodes the answer.
func (b *bundle) call(t testing.TB, method, path, body string, want int) map[string]any {
	t.Helper()
	r := b.Do(t, method, path, b.key, body).Want(t, want)
	if r.Body == nil {
		t.Fatalf("%s %s: %d %s, want a JSON object", method, path, r.Status, r.Raw)
	}
	return r.Body
}

// pngFile writes a small real PNG for the upload.
func pngFile(t testing.TB) string {
	t.Helper()
	p := t.TempDir() + "/launch.png"
	if err := os.WriteFile(p, pngBytes(t), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func pngBytes(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := 0; x < 16; x++ {
		for y := 0; y < 16; y++ {
			img.Set(x, y, color.RGBA{R: uint8(x * 16), G: 80, B: uint8(y * 16), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
