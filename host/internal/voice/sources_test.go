package voice_test

import (
	"context"
	"crypto/x509"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/jobs/jobstest"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

// brandSite is a local https site answering as example.com; its home page
// text and failure can change between fetches.
type brandSite struct {
	srv  *httptest.Server
	mu   sync.Mutex
	home string
	fail bool
}

func (s *brandSite) set(home string, fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.home, s.fail = home, fail
}

func page(title, body string) string {
	return `<html><head><title>` + title + `</title><meta property="og:site_name" content="Acme Tools"></head><body><nav>Menu</nav><main>` + body + `</main></body></html>`
}

func newBrandSite(t *testing.T) *brandSite {
	s := &brandSite{home: page("Acme Tools", "<h1>Tools that last</h1><p>We make garden tools that last for years. We test every rake by hand. You will feel the difference on the first day.</p><p><a href=\"/about\">About us</a></p>")}
	files := map[string][2]string{
		"/about":      {"text/html", page("About", "<p>We are a small team in Leeds. We answer every email ourselves.</p>")},
		"/other":      {"text/html", page("Other", "<p>Our new line of pruning shears is sharp and light. We love them.</p>")},
		"/style.md":   {"text/markdown", "# Style\n\nWe write short sentences. We never shout.\n"},
		"/notes.txt":  {"text/plain; charset=utf-8", "Plain notes about our tone. We are calm and direct."},
		"/guide.html": {"text/html", "<html><body><h1>Guide</h1><p>Say <b>we</b>, not the company.</p><script>x()</script></body></html>"},
		"/voice.json": {"application/json", `{"tone":"warm","rules":["Use we","Avoid jargon"],"n":3}`},
		"/logo.png":   {"image/png", "\x89PNG\r\n\x1a\n...."},
		"/wrong.md":   {"text/html", "<p>not markdown</p>"},
	}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("User-Agent"), "HeraldBot/") {
			http.Error(w, "no user agent", http.StatusTeapot)
			return
		}
		s.mu.Lock()
		home, fail := s.home, s.fail
		s.mu.Unlock()
		if fail {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, home)
			return
		}
		if f, ok := files[r.URL.Path]; ok {
			w.Header().Set("Content-Type", f[0])
			io.WriteString(w, f[1])
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *brandSite) fetcher(allowLoopback bool) *site.Fetcher {
	pool := x509.NewCertPool()
	pool.AddCert(s.srv.Certificate())
	d := site.Deps{UserAgent: site.UserAgent("test", "https://herald.test"), RootCAs: pool,
		Hosts: map[string]string{"example.com:443": s.srv.Listener.Addr().String()}, MaxPageBytes: 64 << 10}
	if allowLoopback {
		d.AllowedPrivateCIDRs = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}
	return site.New(d)
}

// profiler is the profile model: it answers with a profile naming the
// first words of the text it was given.
type profiler struct {
	mu   sync.Mutex
	reqs []sdk.TextRequest
	err  error
}

func (p *profiler) GenerateText(_ context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, req)
	if p.err != nil {
		return sdk.TextResponse{}, p.err
	}
	_, text, _ := strings.Cut(req.Prompt, "Text:\n")
	return sdk.TextResponse{Text: "## Tone\n- warm\nFrom: " + text, Model: model}, nil
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type bundle struct {
	srv        *apitest.Server
	svc        *voice.Service
	queue      *jobs.Queue
	site       *brandSite
	model      *profiler
	clock      *clock
	alice, bob string
	mallory    string
	aliceP     auth.Principal
	store      *store.Store
}

type opts struct {
	noModel, privateRefused, profileText bool
}

func setup(t *testing.T, s *store.Store, o opts) *bundle {
	t.Helper()
	ctx := context.Background()
	b := &bundle{store: s, site: newBrandSite(t), model: &profiler{}, clock: &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}}
	var err error
	for _, k := range []struct {
		key       *string
		ws, email string
	}{{&b.alice, "acme", "alice@acme.test"}, {&b.bob, "acme", "bob@acme.test"}, {&b.mallory, "other", "m@other.test"}} {
		if *k.key, err = auth.CreateKey(ctx, s, k.ws, "business", k.email); err != nil {
			t.Fatal(err)
		}
	}
	ws, u, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "alice@acme.test")
	b.aliceP = auth.Principal{WorkspaceID: ws.ID, UserID: u.ID}
	if b.queue, err = jobs.New(jobs.Options{Store: s, PollInterval: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	d := voice.Deps{Store: s, Fetcher: b.site.fetcher(!o.privateRefused), Models: b.model, Model: "gpt-4o-mini", Queue: b.queue, Now: b.clock.Now,
		Quota: quota.New(s, config.Limits{}).Follow(plans.New(nil))}
	if o.noModel {
		d.Models, d.Model = nil, ""
	}
	d.ProfileText = o.profileText
	if b.svc, err = voice.New(d); err != nil {
		t.Fatal(err)
	}
	b.queue.Mount(voiceJobs(b.svc))
	if err := b.queue.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.queue.Stop(context.Background()) })
	b.srv = apitest.Start(t, api.Deps{Store: s, MaxBodyBytes: 1 << 20, Voices: voice.NewHandler(b.svc)})
	return b
}

// voiceJobs are the voice rows of the host's job table (host/jobs.go).
func voiceJobs(svc *voice.Service) []jobs.Route {
	return []jobs.Route{
		{Queue: jobs.ContentQueue, Name: voice.JobCreate, Handler: jobs.HandlerFunc(svc.RunCreate), Options: voice.SourceJobOptions},
		{Queue: jobs.ContentQueue, Name: voice.JobRefresh, Handler: jobs.HandlerFunc(svc.RunRefresh), Options: voice.SourceJobOptions},
	}
}

func (b *bundle) waitJob(t *testing.T, ws, id string) jobstore.Job {
	t.Helper()
	return jobstest.WaitFinished(t, b.queue, ws, id, 15*time.Second)
}
