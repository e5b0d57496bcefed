package visibility_test

import (
	"cmp"
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/tracker"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/internal/testwait"
	"github.com/heraldhq/herald/sdk"
)

// testPlans are small enough to reach every limit in a test.
func testPlans() map[string]config.Plan {
	return map[string]config.Plan{
		"free":     {PromptsPerReport: 3, RefreshesPer24h: 0, MonthlyAICredits: 100, FreeAudits: 2},
		"pro":      {PromptsPerReport: 25, RefreshesPer24h: 2, MonthlyAICredits: 40, Trackers: 2, TrackerCadences: []string{"weekly"}},
		"business": {PromptsPerReport: 50, RefreshesPer24h: 3, MonthlyAICredits: 2000, Trackers: 250, TrackerCadences: []string{"daily", "weekly"}},
	}
}

// fakeEngines answers scripted texts per engine; "broken" always fails.
// The judge (any call with a system prompt) grades deterministically.
type fakeEngines struct {
	models []string
	delay  time.Duration
	// gate, when set, holds the calls to gateOnly until it is closed.
	gate     chan struct{}
	gateOnly string
	mu       sync.Mutex
	calls    map[string]int // engine + "|" + prompt
	// asked is signalled after each engine call.
	asked chan string
}

func newFakeEngines(models ...string) *fakeEngines {
	return &fakeEngines{models: models, calls: map[string]int{}, asked: make(chan string, 1000)}
}

func (f *fakeEngines) Models() []string { return f.models }

func (f *fakeEngines) count(engine, prompt string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[engine+"|"+prompt]
}

func (f *fakeEngines) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

var promptAnswers = map[string]map[string]string{
	"gpt": {
		// The worst answer of 150,000 one-letter words.
		"worst case":                strings.Repeat("g ", 150000),
		"best work management tool": "Monday is where many teams start: its boards are flexible. Teams also like Acme.",
		"best widget supplier":      "Top picks: Acme, Globex Corp and Initech.",
		"widgets for factories":     "Globex Corp is the leader; see https://initech.io/widgets.",
		"crm for small teams":       "Start with Acme, then Zoho CRM (zoho.com) or Pipedrive. Globex Corp works too.",
		"crm for agencies":          "Agencies like Zoho CRM and HubSpot.",
		"crm for shops":             "Pipedrive fits shops.",
	},
	"claude": {
		"best work management tool": "Monday is eaten by email for most teams. Teams like Acme.",
		"best widget supplier":      "Acme (https://example.com) is great.",
		"widgets for factories":     "I would pick Globex Corp.",
		"crm for small teams":       "Zoho CRM is cheap; Freshsales is fine; Acme too.",
		"crm for agencies":          "HubSpot leads.",
		"crm for shops":             "Initech, or Globex for big shops.",
	},
}

var probeAnswers = map[string]map[string]string{
	"gpt":    {"What is": "Acme makes industrial widgets.", "What products": "WidgetPro widgets.", "Who are the customers": "Factories.", "Where is": "Lyon, France.", "Who are the main competitors": "Globex Corp."},
	"claude": {"What is": "Acme is a bakery.", "What products": "I don't know.", "Who are the customers": "Factories.", "Where is": "Paris.", "Who are the main competitors": "I don't know."},
}

func (f *fakeEngines) GenerateText(ctx context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	if model == "broken" && req.System != "" {
		return sdk.TextResponse{}, &sdk.Error{Code: sdk.CodeUnavailable, Message: "broken: upstream 503"}
	}
	if strings.Contains(req.System, "buyers") {
		return sdk.TextResponse{Text: `{"competitors":[{"name":"Initech","domain":"https://www.initech.io/"},{"name":"Globex Corp","domain":"not a domain"}],"prompts":["industrial widget suppliers in Europe","widgets for factories"]}`}, nil
	}
	if strings.Contains(req.System, "names a brand") {
		// The mention judge: the word names the brand when its sentence
		// speaks of boards.
		f.mu.Lock()
		f.calls["judge|mention"]++
		f.mu.Unlock()
		if _, ok := req.Options["response_format"]; !ok || !strings.Contains(req.Prompt, "What the brand sells: Industrial widgets") {
			return sdk.TextResponse{}, fmt.Errorf("the mention judge got no schema or no category: %s", req.Prompt)
		}
		return sdk.TextResponse{Text: fmt.Sprintf(`{"namesBrand": %t}`, strings.Contains(req.Prompt, "boards"))}, nil
	}
	if strings.Contains(req.System, "list every brand") {
		f.mu.Lock()
		f.calls["judge|discovery"]++
		f.mu.Unlock()
		return discoveryJudge(req)
	}
	if req.System != "" {
		return f.judge(req)
	}
	if f.gate != nil && model == f.gateOnly {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return sdk.TextResponse{}, ctx.Err()
		}
	}
	f.mu.Lock()
	f.calls[model+"|"+req.Prompt]++
	f.mu.Unlock()
	defer func() {
		// A signal for the tests that wait on calls; dropped when nobody
		// has read the last 1,000, so that a test making more calls than
		// that does not block its engine calls (and the queue's Stop).
		select {
		case f.asked <- model + "|" + req.Prompt:
		default:
		}
	}()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return sdk.TextResponse{}, ctx.Err()
		}
	}
	if model == "broken" {
		return sdk.TextResponse{}, &sdk.Error{Code: sdk.CodeUnavailable, Message: "broken: upstream 503"}
	}
	if text, ok := promptAnswers[model][req.Prompt]; ok {
		return sdk.TextResponse{Text: text, Model: model + "-v1"}, nil
	}
	for prefix, text := range probeAnswers[model] {
		if strings.HasPrefix(req.Prompt, prefix+" ") {
			return sdk.TextResponse{Text: text, Model: model + "-v1"}, nil
		}
	}
	return sdk.TextResponse{Text: "Generic answer about " + req.Prompt, Model: model + "-v1"}, nil
}

// judge: "don't know" → unknown; bakery or Paris → wrong; Factories →
// partly; anything else → correct.
func (f *fakeEngines) judge(req sdk.TextRequest) (sdk.TextResponse, error) {
	if _, ok := req.Options["response_format"]; !ok {
		return sdk.TextResponse{}, fmt.Errorf("the judge was not asked for structured output")
	}
	_, answer, _ := strings.Cut(req.Prompt, "Answer to grade:\n")
	if !strings.Contains(req.Prompt, "Site fact: ") {
		return sdk.TextResponse{}, fmt.Errorf("the judge got no site fact")
	}
	verdict := "correct"
	switch {
	case strings.Contains(answer, "don't know"):
		verdict = "unknown"
	case strings.Contains(answer, "bakery"), strings.Contains(answer, "Paris"):
		verdict = "wrong"
	case strings.Contains(answer, "Factories"):
		verdict = "partly"
	}
	var entities []map[string]string
	if strings.Contains(answer, "widgets") {
		entities = append(entities, map[string]string{"name": "industrial widgets", "kind": "category"})
	}
	b, _ := json.Marshal(map[string]any{"verdict": verdict, "explanation": "graded " + verdict, "entities": entities})
	return sdk.TextResponse{Text: "```json\n" + string(b) + "\n```"}, nil
}

// testSite serves https://example.com from a local TLS server.
type testSite struct {
	srv *httptest.Server
	// homes counts the home page's fetches (one per crawl).
	homes atomic.Int32
}

const siteHome = `<!doctype html><html><head><title>Acme | Industrial widgets</title>
<meta name="description" content="Acme makes industrial widgets for factories.">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
{"@type":"Organization","name":"Acme","description":"Industrial widgets for factories","address":{"addressLocality":"Lyon","addressCountry":"FR"}},
{"@type":"Product","name":"WidgetPro"}]}</script></head>
<body><h1>Industrial widgets</h1><a href="/about">About</a><p>Widgets since 1990.</p></body></html>`

func newTestSite(t testing.TB, robots string, llms bool) *testSite {
	t.Helper()
	mux := http.NewServeMux()
	ts := &testSite{}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		ts.homes.Add(1)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, siteHome)
	})
	mux.HandleFunc("/about", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><body><main><p>We serve factories across Europe.</p></main></body></html>`)
	})
	mux.HandleFunc("/sitemap.xml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, `<?xml version="1.0"?><urlset><url><loc>https://example.com/</loc></url></urlset>`)
	})
	if robots != "" {
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, robots) })
	}
	if llms {
		mux.HandleFunc("/llms.txt", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "# Acme\n> Industrial widgets\n") })
	}
	ts.srv = httptest.NewTLSServer(mux)
	t.Cleanup(ts.srv.Close)
	return ts
}

func (ts *testSite) fetcher() *site.Fetcher {
	pool := x509.NewCertPool()
	pool.AddCert(ts.srv.Certificate())
	return site.New(site.Deps{
		UserAgent: "HeraldBot/test (+https://herald.test)", RootCAs: pool,
		AllowedPrivateCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Hosts:               map[string]string{"example.com:443": ts.srv.Listener.Addr().String()},
	})
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type bundle struct {
	store                      *store.Store
	engines                    *fakeEngines
	queue                      *jobs.Queue
	svc                        *visibility.Service
	trackers                   *tracker.Service
	clock                      *clock
	srv                        *apitest.Server
	free, pro, business, other string // api keys
	freeID, proID, businessID  string
	engineNames                []string
	site                       *site.Fetcher
	testSite                   *testSite
	opt                        options
	// plans is the hosts' plan table (a test may Set it, as a reload).
	plans *plans.Table
}

type options struct {
	engines     []string
	ttl         time.Duration
	concurrency int
	judge       string // default gpt
	// plans replaces testPlans.
	plans map[string]config.Plan
	// models replaces the fake engines (which then only count nothing).
	models visibility.Models
	// limits are the host's limits (the name length); zero: the defaults.
	limits config.Limits
}

func setup(t testing.TB, s *store.Store, o ...options) *bundle {
	t.Helper()
	opt := options{engines: []string{"gpt", "claude", "broken"}}
	if len(o) > 0 {
		opt = o[0]
	}
	ctx := context.Background()
	b := &bundle{store: s, engines: newFakeEngines(append(opt.engines, "gpt-image-1")...), clock: &clock{t: time.Now().UTC()}, engineNames: opt.engines}
	for _, k := range []struct {
		key, id  *string
		ws, plan string
	}{{&b.free, &b.freeID, "freeco", "free"}, {&b.pro, &b.proID, "proco", "pro"}, {&b.business, &b.businessID, "bizco", "business"}, {&b.other, nil, "otherco", "business"}} {
		key, err := auth.CreateKey(ctx, s, k.ws, k.plan, "a@"+k.ws+".test")
		if err != nil {
			t.Fatal(err)
		}
		*k.key = key
		if k.id != nil {
			ws, _, _ := s.EnsureWorkspaceUser(ctx, k.ws, k.plan, "a@"+k.ws+".test")
			*k.id = ws.ID
		}
	}
	b.testSite = newTestSite(t, "User-agent: GPTBot\nDisallow: /\n", false)
	b.site = b.testSite.fetcher()
	b.opt = opt
	if opt.plans == nil {
		opt.plans = testPlans()
	}
	b.plans = plans.New(opt.plans)
	b.start(t)
	return b
}

// start runs a host: a queue, the service and the API over the store.
func (b *bundle) start(t testing.TB) {
	t.Helper()
	q, err := jobs.New(jobs.Options{Store: b.store, PollInterval: 50 * time.Millisecond, Lease: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	b.queue = q
	var models visibility.Models = b.engines
	if b.opt.models != nil {
		models = b.opt.models
	}
	b.svc, err = visibility.New(visibility.Deps{
		Store: b.store, Queue: q, Quota: quota.New(b.store, b.opt.limits), Models: models, Site: b.site, Plans: b.plans,
		Config: config.Visibility{Engines: b.opt.engines, JudgeModel: cmp.Or(b.opt.judge, "gpt"), Concurrency: max(4, b.opt.concurrency)},
		Now:    b.clock.now, CacheTTL: b.opt.ttl,
	})
	if err != nil {
		t.Fatal(err)
	}
	b.trackers, err = tracker.New(tracker.Deps{Store: b.store, Queue: q, Quota: quota.New(b.store, b.opt.limits), Plans: b.plans, Now: b.clock.now, Reports: b.svc})
	if err != nil {
		t.Fatal(err)
	}
	// The report job, as host/jobs.go mounts it.
	q.Mount([]jobs.Route{{Queue: jobs.SEOQueue, Name: visibility.JobReport, Handler: jobs.HandlerFunc(b.svc.RunReport), Options: visibility.ReportJobOptions}})
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	b.srv = apitest.Start(t, api.Deps{
		Store: b.store, MaxBodyBytes: 1 << 20,
		Jobs: jobs.NewAPIHandler(q), Visibility: visibility.NewHandler(b.svc), Trackers: tracker.NewHandler(b.trackers),
	})
}

// restart is another host over the same store, engines, site and clock.
func (b *bundle) restart(t testing.TB) *bundle {
	t.Helper()
	nb := *b
	nb.start(t)
	return &nb
}

// waitProgress polls the job until its progress reaches pct.
func (b *bundle) waitProgress(t testing.TB, key, jobID string, pct float64) map[string]any {
	t.Helper()
	var j map[string]any
	testwait.For(t, 30*time.Second, fmt.Sprintf("job %s reaches %v%%", jobID, pct), func() bool {
		j = b.srv.Do(t, "GET", "/v1/ai/generate/job/"+jobID, key, "").Want(t, http.StatusOK).Body
		p, _ := j["progress"].(float64)
		return p >= pct
	})
	return j
}

// waitJob polls the job route until the job completes or fails.
func (b *bundle) waitJob(t testing.TB, key, jobID string) map[string]any {
	t.Helper()
	var j map[string]any
	testwait.For(t, 30*time.Second, "job "+jobID+" finishes", func() bool {
		j = b.srv.Do(t, "GET", "/v1/ai/generate/job/"+jobID, key, "").Want(t, http.StatusOK).Body
		if j["state"] == "failed" {
			t.Fatalf("job failed: %v", j)
		}
		return j["state"] == "completed"
	})
	return j
}

// report queues a report and waits for it.
func (b *bundle) report(t testing.TB, key, body string) (jobID string, job map[string]any) {
	t.Helper()
	res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report", key, body).Want(t, http.StatusAccepted)
	jobID, _ = res.Body["jobId"].(string)
	if res.Body["message"] != "Report queued" || jobID == "" {
		t.Fatalf("queue response: %s", res.Raw)
	}
	return jobID, b.waitJob(t, key, jobID)
}

const reportBody = `{"websiteurl":"https://example.com","competitors":["Globex Corp","https://initech.io"],"prompts":["best widget supplier","widgets for factories"]}`
