package dashboard_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// chromiumPath is Debian's chromium package; the test downloads nothing.
const chromiumPath = "/usr/bin/chromium"

// artifactDir is where screenshots go: $HERALD_ARTIFACTS_DIR/dashboard
// when set (CI keeps it), else the test's temporary directory.
func artifactDir(t *testing.T) string {
	dir := t.TempDir()
	if d := os.Getenv("HERALD_ARTIFACTS_DIR"); d != "" {
		dir = filepath.Join(d, "dashboard")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDashboardInChromium drives the real dashboard in headless Chromium
// against a real API: a broken key is refused with a visible error (typed
// in, and kept in the session), a good key signs in, the traffic chart
// draws the seeded days, a post with an image is scheduled to a saved
// webhook and cancelled, a voice is created and shown, and the
// visibility page charts the seeded history. Each page is screenshotted,
// and the page must log no script error or CSP violation.
func TestDashboardInChromium(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(chromiumPath); err != nil {
		storetest.Unavailable(t, "chromium is not installed (apt-get install chromium): "+err.Error())
	}
	b := setup(t, storetest.SQLite(t))
	_, aiVisits := b.seedTraffic(t)
	b.seedReports(t)
	hook := b.call(t, "POST", "/v1/webhooks", `{"url":"http://127.0.0.1:9/hook","name":"Launch channel"}`, 201)["webhook"].(map[string]any)["id"].(string)
	shots := artifactDir(t)
	image := pngFile(t)

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
		chromedp.WindowSize(1280, 900),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	// Script errors and console messages other than failed requests (the
	// broken key's 401s) fail the test: a CSP violation shows up here.
	var mu sync.Mutex
	var problems []string
	// Listen starts the browser and opens the tab.
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, fmt.Sprintf("exception: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception))
		case *log.EventEntryAdded:
			if e.Entry.Source != log.EntrySourceNetwork && (e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning) {
				problems = append(problems, fmt.Sprintf("console %s/%s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	shot := func(name string, capture chromedp.Action[[]byte]) {
		t.Helper()
		png, err := chromedp.Run(ctx, capture)
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}

	// A broken key typed in is refused with the API's reason.
	run("sign in with a broken key",
		chromedp.Navigate(b.url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#apikey")),
		chromedp.SendKeys(chromedp.CSS("#apikey"), "hk_this-key-does-not-exist"),
		chromedp.Click(chromedp.CSS("#signin-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#signin-error")))
	if msg := text("#signin-error"); !strings.Contains(msg, "Herald refused this API key") {
		t.Fatalf("broken key message: %q", msg)
	}
	shot("signin-broken-key", chromedp.FullScreenshot(100))
	// A broken key kept in the session is checked before any page shows.
	run("reload with a broken key in the session",
		chromedp.Evaluate[chromedp.Void](`sessionStorage.setItem('herald.apiKey', 'hk_revoked')`),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("#signin-error")))
	if msg := text("#signin-error"); !strings.Contains(msg, "Herald refused the API key") {
		t.Fatalf("kept broken key message: %q", msg)
	}
	if navHidden := eval[bool](t, ctx, `document.getElementById('nav').hidden`); !navHidden {
		t.Fatal("pages are offered with a refused key")
	}

	// Sign in; the traffic page draws the seeded series.
	run("sign in",
		chromedp.SendKeys(chromedp.CSS("#apikey"), b.key),
		chromedp.Click(chromedp.CSS("#signin-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`#traffic-chart[data-rendered="true"] canvas`)))
	if got := text("#stat-ai-visits .stat-value"); got != fmt.Sprint(aiVisits) {
		t.Fatalf("AI visits card %q, want %d", got, aiVisits)
	}
	chart := eval[struct {
		Series int
		Legend string
	}](t, ctx, `({Series: document.querySelectorAll('#traffic-chart .u-legend .u-series').length,
		Legend: document.querySelector('#traffic-chart .u-legend').textContent})`)
	if chart.Series < 3 || !strings.Contains(chart.Legend, "All AI visits") {
		t.Fatalf("traffic chart legend: %+v", chart)
	}
	if pages := text("#page-traffic"); !strings.Contains(pages, "/pricing") || !strings.Contains(pages, "GPTBot") || !strings.Contains(pages, "ChatGPT") {
		t.Fatalf("traffic page lacks top pages, crawlers or sources: %s", pages)
	}
	if snip := text("#snippet"); !strings.Contains(snip, "data-site=") {
		t.Fatalf("snippet: %q", snip)
	}
	run("7 days", chromedp.SetValue(chromedp.CSS("#days"), "7"), chromedp.Evaluate[chromedp.Void](`document.getElementById('days').dispatchEvent(new Event('change'))`),
		chromedp.WaitVisible(chromedp.CSS(`#traffic-chart[data-rendered="true"] canvas`)))
	if rows := eval[int](t, ctx, `document.querySelectorAll('#traffic-chart details tbody tr').length`); rows != 7 {
		t.Fatalf("7 days chart has %d rows", rows)
	}
	shot("traffic", chromedp.FullScreenshot(100))

	// Schedule a post with an image to the saved webhook, then cancel it.
	run("schedule a post",
		chromedp.Navigate(b.url+"/#/schedules"),
		chromedp.WaitVisible(chromedp.CSS("#create-form")),
		chromedp.SetValue(chromedp.CSS("#exportTo"), "webhook"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('exportTo').dispatchEvent(new Event('change'))`),
		chromedp.SetValue(chromedp.CSS("#webhookId"), hook),
		chromedp.SendKeys(chromedp.CSS("#title"), "Launch day"),
		chromedp.SendKeys(chromedp.CSS("#text"), "We ship today."),
		chromedp.SetValue(chromedp.CSS("#when"), time.Now().AddDate(0, 1, 0).Format("2006-01-02T15:04")), // within the 10-year bound
		chromedp.SetUploadFiles(chromedp.CSS("#image"), []string{image}),
		chromedp.SendKeys(chromedp.CSS("#imageAlt"), "Rocket on the pad"),
		chromedp.Click(chromedp.CSS("#create-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#schedule-notice .ok")))
	list := b.call(t, "GET", "/v1/scheduler", "", 200)["schedulers"].([]any)
	if len(list) != 1 {
		t.Fatalf("want exactly one schedule, got %v", list)
	}
	sc := list[0].(map[string]any)
	content := sc["contentToExport"].(map[string]any)
	if sc["status"] != "pending" || sc["webhookId"] != hook || content["title"] != "Launch day" || !strings.HasPrefix(fmt.Sprint(content["imageUrl"]), "http://blobs.test/") || content["imageAlt"] != "Rocket on the pad" {
		t.Fatalf("schedule created by the dashboard: %v", sc)
	}
	if row := text("#page-schedules tbody"); !strings.Contains(row, "Launch day") || !strings.Contains(row, "pending") || !strings.Contains(row, "image") {
		t.Fatalf("list after create: %q", row)
	}
	shot("schedules", chromedp.FullScreenshot(100))
	run("cancel it",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-cancel=%q]`, sc["id"]))),
		chromedp.WaitVisible(chromedp.CSS("#page-schedules tbody .status-cancelled")))
	if got := b.call(t, "GET", "/v1/scheduler/"+sc["id"].(string), "", 200)["schedule"].(map[string]any)["status"]; got != "cancelled" {
		t.Fatalf("status after cancel: %v", got)
	}
	if row := text("#page-schedules tbody"); !strings.Contains(row, "cancelled") {
		t.Fatalf("list after cancel: %q", row)
	}
	shot("schedules-cancelled", chromedp.FullScreenshot(100))

	// Create a voice from text and read it back.
	run("create a voice",
		chromedp.Navigate(b.url+"/#/voices"),
		chromedp.WaitVisible(chromedp.CSS("#voice-form")),
		chromedp.SendKeys(chromedp.CSS("#voice-name"), "Plain and warm"),
		chromedp.SendKeys(chromedp.CSS("#voice-content"), "We write plainly and warmly. Short sentences. No jargon."),
		chromedp.Click(chromedp.CSS("#voice-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#voice-view pre")))
	if v := text("#voice-view"); !strings.Contains(v, "Plain and warm") || !strings.Contains(v, "Short sentences.") || strings.Contains(v, "null") || strings.Contains(v, "undefined") {
		t.Fatalf("voice view: %q", v)
	}
	shot("voices", chromedp.FullScreenshot(100))

	// Visibility: latest scores, history against competitors, evidence.
	run("visibility",
		chromedp.Navigate(b.url+"/#/visibility"),
		chromedp.WaitVisible(chromedp.CSS(`#visibility-chart[data-rendered="true"] canvas`)))
	legend := text("#visibility-chart .u-legend")
	if !strings.Contains(legend, "Globex Corp") || !strings.Contains(legend, "initech.io") {
		t.Fatalf("history chart lacks competitors: %q", legend)
	}
	if ev := text("#evidence h2"); ev != "Evidence (4 answers)" {
		t.Fatalf("evidence heading: %q", ev)
	}
	if got := text("#stat-visibility .stat-value"); got != "75.0" {
		t.Fatalf("visibility score card %q, want 75.0 (3 of 4 answers name Acme first)", got)
	}
	shot("visibility", chromedp.FullScreenshot(100))

	// A phone: the traffic page still fits.
	run("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)),
		chromedp.Navigate(b.url+"/#/traffic"),
		chromedp.WaitVisible(chromedp.CSS(`#traffic-chart[data-rendered="true"] canvas`)))
	if eval[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth`) {
		t.Error("the traffic page scrolls sideways on a 390 px phone")
	}
	shot("traffic-phone", chromedp.CaptureScreenshot())

	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("the pages logged problems:\n%s", strings.Join(problems, "\n"))
	}
	t.Logf("screenshots in %s", shots)
}

// eval runs a JavaScript expression in the page and returns its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}
