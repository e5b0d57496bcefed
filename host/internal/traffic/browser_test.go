package traffic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
)

// chromiumPath is Debian's chromium package; the test downloads nothing.
const chromiumPath = "/usr/bin/chromium"

// TestBrowserReportsAChatGPTVisit drives a real headless Chromium through
// a page that carries the snippet, served from another origin than the API
// (so CORS is real): it lands with ?utm_source=chatgpt.com, stays visible,
// navigates within the page (history.pushState) and leaves; the pageviews
// and their engagement must reach the store and the stats.
func TestBrowserReportsAChatGPTVisit(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(chromiumPath); err != nil {
		storetest.Unavailable(t, "chromium is not installed (apt-get install chromium): "+err.Error())
	}
	st := storetest.SQLite(t)
	b := setup(t, st)
	ctx := context.Background()
	site, err := st.TrafficSiteByKey(ctx, b.siteKey())
	if err != nil {
		t.Fatal(err)
	}

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Acme docs</title>%s</head>
<body><h1>Acme</h1><div style="height:3000px">long page</div></body></html>`, b.site["snippet"])
	}))
	t.Cleanup(page.Close)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		// HeadlessChrome in the default agent is (rightly) dropped as a bot.
		chromedp.UserAgent(browserUA),
		chromedp.WindowSize(1200, 800),
	}
	actx, cancel := chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	bctx, cancel = context.WithTimeout(bctx, 60*time.Second)
	defer cancel()

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		testwait.For(t, 15*time.Second, what, ok)
	}
	pageviews := func() int64 {
		n, _ := st.TrafficEventCount(ctx, site.ID, store.TrafficPageview)
		return n
	}

	if err := chromedp.Do(bctx, chromedp.Navigate(page.URL+"/landing?utm_source=chatgpt.com")); err != nil {
		t.Fatal(err)
	}
	visibility, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.visibilityState`))
	if err != nil {
		t.Fatal(err)
	}
	waitFor("the landing pageview", func() bool { return pageviews() == 1 })
	// The visitor reads /landing for a while: the visible time the tracker
	// measures (a deliberate dwell, not a wait for the server).
	time.Sleep(1200 * time.Millisecond)
	if err := chromedp.Do(bctx,
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 1000)`),
		chromedp.Sleep(100*time.Millisecond),
		chromedp.Evaluate[chromedp.Void](`history.pushState({}, "", "/pricing")`),
	); err != nil {
		t.Fatal(err)
	}
	waitFor("the in-page navigation's pageview", func() bool { return pageviews() == 2 })
	time.Sleep(300 * time.Millisecond) // the visitor's dwell on /pricing
	// Leaving the page hides it: pagehide and visibilitychange fire, and the
	// keepalive request outlives the document.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}

	var events []store.StoredTrafficEvent
	waitFor("the engagement of both pages", func() bool {
		events, _ = st.TrafficEvents(ctx, site.ID, 10)
		return len(events) == 2 && events[0].DurationMs > 0 && events[1].DurationMs > 0
	})
	landing, pricing := events[0], events[1]
	if landing.Path != "/landing" || landing.Source != "chatgpt" || landing.UTMSource != "chatgpt.com" || landing.Title != "Acme docs" {
		t.Errorf("landing pageview: %+v", landing)
	}
	if landing.DurationMs < 1000 || landing.ScrollDepth < 50 {
		t.Errorf("landing engagement: %d ms visible, scrolled %d%%; want >= 1000 ms (visibility was %q) and >= 50%%", landing.DurationMs, landing.ScrollDepth, visibility)
	}
	if pricing.Path != "/pricing" || pricing.SessionID != landing.SessionID || pricing.Source != "chatgpt" {
		t.Errorf("in-page navigation: %+v", pricing)
	}

	s := b.stats(t, "days=1")
	tot := s["totals"].(map[string]any)
	if num(tot["visits"]) != 1 || num(tot["aiVisits"]) != 1 || num(tot["pageviews"]) != 2 {
		t.Errorf("totals: %v", tot)
	}
	src := s["sources"].([]any)[0].(map[string]any)
	if src["source"] != "chatgpt" || num(src["visits"]) != 1 || num(src["avgDurationMs"]) < 1000 || num(src["engagedVisits"]) != 1 {
		t.Errorf("ChatGPT source: %v", src)
	}
}
