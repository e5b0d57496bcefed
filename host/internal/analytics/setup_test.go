package analytics_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/analytics"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/testlog"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/plugins/ga4"
	"github.com/heraldhq/herald/plugins/ga4/ga4test"
)

// clock is a test's settable time, shared by the store and the service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// bundle is the API server with traffic and analytics over one store, the
// ga4 plugin (in process) pointed at a fake Google, two workspaces with a
// key and a site each.
type bundle struct {
	srv            *apitest.Server
	st             *store.Store
	google         *ga4test.Google
	svc            *analytics.Service
	clock          *clock
	log            *testlog.Buffer
	key, otherKey  string
	site, otherSit string
	wsID           string
	traffic        *traffic.Service
	writer         *traffic.Writer
}

const redirect = "https://herald.example/dashboard/"

func setup(t testing.TB, st *store.Store) *bundle {
	t.Helper()
	ctx := context.Background()
	b := &bundle{st: st, google: ga4test.New(t), clock: &clock{t: time.Now().UTC()}, log: &testlog.Buffer{}}
	st.SetClock(b.clock.now)
	plugin := ga4.New()
	if err := plugin.Configure(ctx, b.google.Settings()); err != nil {
		t.Fatal(err)
	}
	var err error
	b.svc, err = analytics.New(analytics.Deps{Store: st, Plugin: plugin, SecretKey: "test-secret-key-of-some-length", Now: b.clock.now,
		Logger: b.log.Logger(hclog.Trace)})
	if err != nil {
		t.Fatal(err)
	}
	w, err := traffic.NewWriter(ctx, st, traffic.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	th := new(traffic.Handler)
	b.srv = apitest.Start(t, api.Deps{Store: st, Traffic: th, Analytics: analytics.NewHandler(b.svc)})
	tsvc, err := traffic.New(traffic.Deps{Store: st, Writer: w, BaseURL: b.srv.URL, External: b.svc})
	if err != nil {
		t.Fatal(err)
	}
	*th = *traffic.NewHandler(tsvc)
	b.traffic, b.writer = tsvc, w
	if b.key, err = auth.CreateKey(ctx, st, "acme", "business", "owner@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.otherKey, err = auth.CreateKey(ctx, st, "globex", "business", "owner@globex.test"); err != nil {
		t.Fatal(err)
	}
	ws, _, err := st.EnsureWorkspaceUser(ctx, "acme", "business", "owner@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	b.wsID = ws.ID
	b.site = b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"acme.test"}`).Want(t, http.StatusCreated).Body["siteKey"].(string)
	b.otherSit = b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.otherKey, `{"domain":"globex.test"}`).Want(t, http.StatusCreated).Body["siteKey"].(string)
	return b
}

// connect runs the OAuth flow through the API: PUT, Google's consent, the
// callback. It returns the callback's query.
func (b *bundle) connect(t testing.TB, key string) string {
	t.Helper()
	out := b.srv.Do(t, "PUT", "/v1/analytics/google", key, `{"redirectUri":"`+redirect+`"}`).Want(t, http.StatusOK).Body
	back, err := b.google.Authorize(out["authorizationUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if back.Get("state") != out["state"] {
		t.Fatalf("state %q, answered %q", back.Get("state"), out["state"])
	}
	q := back.Encode()
	b.srv.Do(t, "GET", "/v1/analytics/google/callback?"+q, "", "").Want(t, http.StatusOK)
	return q
}
