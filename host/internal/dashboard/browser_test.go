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

var artifactsOnce sync.Once

// artifactDir is where screenshots go: $HERALD_ARTIFACTS_DIR/dashboard
// when set (CI keeps it), else the test's temporary directory. The path is
// logged so that a person can look at them.
func artifactDir(t *testing.T) string {
	dir := t.TempDir()
	if d := os.Getenv("HERALD_ARTIFACTS_DIR"); d != "" {
		dir = filepath.Join(d, "dashboard")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	artifactsOnce.Do(func() { t.Logf("dashboard screenshots in %s", dir) })
	return dir
}

// page is one headless Chromium tab on a host, collecting script errors
// and console warnings (a CSP violation shows up there) as problems.
type page struct {
	t        *testing.T
	b        *bundle
	ctx      context.Context
	shots    string
	mu       sync.Mutex
	problems []string
}

// open starts Chromium at width×height and signs in with the bundle's key
// (kept in the tab's session as the sign-in form keeps it).
func open(t *testing.T, b *bundle, width, height int) *page {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		storetest.Unavailable(t, "chromium is not installed (apt-get install chromium): "+err.Error())
	}
	p := &page{t: t, b: b, shots: artifactDir(t)}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true), // screenshots as wide as the layout
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	p.ctx = ctx
	// Listen starts the browser and opens the tab.
	err := chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			p.problems = append(p.problems, fmt.Sprintf("exception: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception))
		case *log.EventEntryAdded:
			// Failed requests the pages expect (401 of a broken key, 409 of
			// a webhook in use, 429 of a refresh) are network entries.
			if e.Entry.Source != log.EntrySourceNetwork && (e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning) {
				p.problems = append(p.problems, fmt.Sprintf("console %s/%s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.checkProblems)
	return p
}

// signIn puts the key in the tab's session and opens hash.
func (p *page) signIn(hash string) {
	p.t.Helper()
	p.run("sign in", chromedp.Navigate(p.b.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#apikey")),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`sessionStorage.setItem('herald.apiKey', %q)`, p.b.key)),
		chromedp.Navigate(p.b.URL+"/"+hash),
		chromedp.WaitVisible(chromedp.CSS(`#nav`)))
}

func (p *page) checkProblems() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) > 0 {
		p.t.Errorf("the pages logged problems:\n%s", strings.Join(p.problems, "\n"))
	}
}

func (p *page) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.failed(what)
		p.t.Fatalf("%s: %v", what, err)
	}
}

// until waits for a JavaScript condition to hold.
func (p *page) until(what, cond string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		p.failed(what)
		p.t.Fatalf("%s (waited for %s): %v", what, cond, err)
	}
}

// failed keeps a screenshot and the text of the page as they were when a
// step failed (bounded: the step may have used up the context).
func (p *page) failed(what string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), 5*time.Second)
	defer cancel()
	name := "FAILED-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(what))
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		os.WriteFile(filepath.Join(p.shots, name+".png"), png, 0o644)
	}
	if text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('main').innerText`)); err == nil {
		p.t.Logf("page text when %q failed:\n%s", what, text)
	}
}

func (p *page) shot(name string, full bool) {
	p.t.Helper()
	var capture chromedp.Action[[]byte] = chromedp.CaptureScreenshot()
	if full {
		capture = chromedp.FullScreenshot(100) // 100: PNG
	}
	png, err := chromedp.Run(p.ctx, capture)
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(p.shots, name+".png"), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *page) text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatalf("read %s: %v", sel, err)
	}
	return s
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

// audit is an accessibility check of the page as it stands: every form
// control has an accessible name, every button says what it does, every
// image has alt text, no id is used twice (labels and aria references
// would point at the wrong element), and visible text has AA contrast (4.5:1, 3:1 for
// large text) against the background it is drawn on. It returns the
// failures, at most 20.
const audit = `(() => {
  const out = [];
  const named = (el) => (el.labels && el.labels.length) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.title;
  for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
    if (el.offsetParent !== null && !named(el)) out.push('unlabelled ' + el.outerHTML.slice(0, 80));
  }
  for (const el of document.querySelectorAll('button, a[href]')) {
    if (el.offsetParent !== null && !(el.textContent.trim() || el.getAttribute('aria-label'))) out.push('nameless ' + el.outerHTML.slice(0, 80));
  }
  for (const el of document.querySelectorAll('img')) if (!el.hasAttribute('alt')) out.push('no alt ' + el.outerHTML.slice(0, 80));
  const ids = {};
  for (const el of document.querySelectorAll('[id]')) ids[el.id] = (ids[el.id] || 0) + 1;
  for (const [id, n] of Object.entries(ids)) if (n > 1) out.push('id used ' + n + ' times: ' + id);
  const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const bg = (el) => { for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor); if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3); } return [255, 255, 255]; };
  const walker = document.createTreeWalker(document.getElementById('main'), NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (!n.textContent.trim() || seen.has(el) || el.offsetParent === null || el.closest('.u-legend, canvas, [aria-hidden=true], button:disabled, summary')) continue;
    seen.add(el);
    const cs = getComputedStyle(el);
    const fg = rgb(cs.color).slice(0, 3);
    const a = lum(fg), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(cs.fontSize), bold = Number(cs.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) out.push('contrast ' + ratio.toFixed(2) + ' < ' + need + ': ' + el.tagName + '.' + el.className + ' "' + n.textContent.trim().slice(0, 40) + '"');
  }
  return out.slice(0, 20);
})()`

// wide names the elements wider than the page (what makes it scroll).
const wide = `[...document.querySelectorAll('#main *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
	.slice(0, 8).map((e) => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ')`

// accessible fails the test when the audit finds a problem, and checks
// that the page does not scroll sideways.
func (p *page) accessible(where string) {
	p.t.Helper()
	if bad := eval[[]string](p.t, p.ctx, audit); len(bad) > 0 {
		p.t.Errorf("%s: accessibility:\n%s", where, strings.Join(bad, "\n"))
	}
	if eval[bool](p.t, p.ctx, `document.documentElement.scrollWidth > document.documentElement.clientWidth`) {
		p.t.Errorf("%s scrolls sideways at %d px: %s", where, eval[int](p.t, p.ctx, `document.documentElement.clientWidth`), eval[string](p.t, p.ctx, wide))
	}
}

// maxFirstLoad is the budget of the dashboard's first load (the page, its
// styles and scripts, uPlot included; API answers excluded), compressed.
const maxFirstLoad = 150 * 1024

// pageWeight measures what the tab downloaded so far as the browser
// received it: the compressed bodies (encodedBodySize) of the document
// and every asset, not the API's answers. It fails over budget and writes
// the breakdown to file beside the screenshots.
func (p *page) pageWeight(file string, budget int) {
	p.t.Helper()
	type entry struct {
		Name    string
		Encoded int
		Decoded int
	}
	entries := eval[[]entry](p.t, p.ctx, `[performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
		.filter((e) => !new URL(e.name).pathname.startsWith('/v1/'))
		.map((e) => ({Name: new URL(e.name).pathname, Encoded: e.encodedBodySize, Decoded: e.decodedBodySize}))`)
	var enc, dec int
	var lines []string
	for _, e := range entries {
		enc += e.Encoded
		dec += e.Decoded
		lines = append(lines, fmt.Sprintf("%-40s %7d B compressed %7d B", e.Name, e.Encoded, e.Decoded))
	}
	lines = append(lines, fmt.Sprintf("%-40s %7d B compressed %7d B (%d files)", "total", enc, dec, len(entries)))
	report := strings.Join(lines, "\n")
	p.t.Logf("page weight:\n%s", report)
	if err := os.WriteFile(filepath.Join(p.shots, file), []byte(report+"\n"), 0o644); err != nil {
		p.t.Fatal(err)
	}
	if enc == 0 || enc > budget {
		p.t.Errorf("%s: %d bytes compressed; the budget is %d", file, enc, budget)
	}
}

// TestDashboardInChromium drives the real dashboard in headless Chromium
// against a real API: a broken key is refused with a visible error (typed
// in, and kept in the session), a good key signs in, the traffic chart
// draws the seeded days with a legend coloured as the source bars, a post
// with an image is scheduled to a saved webhook and cancelled, a voice is
// created and shown, and the visibility page charts the seeded history.
func TestDashboardInChromium(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	_, aiVisits := b.seedTraffic(t)
	b.seedReports(t)
	hook := b.call(t, "POST", "/v1/webhooks", `{"url":"http://127.0.0.1:9/hook","name":"Launch channel"}`, 201)["webhook"].(map[string]any)["id"].(string)
	image := pngFile(t)
	p := open(t, b, 1280, 900)
	ctx := p.ctx

	// A broken key typed in is refused with the API's reason.
	p.run("sign in with a broken key",
		chromedp.Navigate(b.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#apikey")),
		chromedp.SendKeys(chromedp.CSS("#apikey"), "hk_this-key-does-not-exist"),
		chromedp.Click(chromedp.CSS("#signin-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#signin-error")))
	if msg := p.text("#signin-error"); !strings.Contains(msg, "Herald refused this API key") {
		t.Fatalf("broken key message: %q", msg)
	}
	p.shot("signin-broken-key", true)
	p.accessible("sign-in")
	// A broken key kept in the session is checked before any page shows.
	p.run("reload with a broken key in the session",
		chromedp.Evaluate[chromedp.Void](`sessionStorage.setItem('herald.apiKey', 'hk_revoked')`),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("#signin-error")))
	if msg := p.text("#signin-error"); !strings.Contains(msg, "Herald refused the API key") {
		t.Fatalf("kept broken key message: %q", msg)
	}
	if navHidden := eval[bool](t, ctx, `document.getElementById('nav').hidden`); !navHidden {
		t.Fatal("pages are offered with a refused key")
	}

	// Sign in; the traffic page draws the seeded series.
	p.run("sign in",
		chromedp.SendKeys(chromedp.CSS("#apikey"), b.key),
		chromedp.Click(chromedp.CSS("#signin-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(`#traffic-chart[data-rendered="true"] canvas`)))
	p.pageWeight("page-weight.txt", maxFirstLoad)
	if got := p.text("#stat-ai-visits .stat-value"); got != fmt.Sprint(aiVisits) {
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
	// The legend's colour of each source is its bar's colour.
	agree := eval[[]string](t, ctx, `(() => {
		const legend = {};
		for (const s of document.querySelectorAll('#traffic-chart .u-legend .u-series')) {
			const m = s.querySelector('.u-marker');
			if (m) legend[s.textContent.trim()] = getComputedStyle(m).borderColor;
		}
		return [...document.querySelectorAll('.bars li')].map((li) => {
			const label = li.querySelector('.bar-label').textContent.trim();
			const bar = getComputedStyle(li.querySelector('.bar-fill')).backgroundColor;
			return legend[label] === bar ? '' : label + ': legend ' + legend[label] + ', bar ' + bar;
		}).filter(Boolean);
	})()`)
	if len(agree) > 0 {
		t.Fatalf("the traffic legend and the source bars disagree: %v", agree)
	}
	if pages := p.text("#page-traffic"); !strings.Contains(pages, "/pricing") || !strings.Contains(pages, "GPTBot") || !strings.Contains(pages, "ChatGPT") {
		t.Fatalf("traffic page lacks top pages, crawlers or sources: %s", pages)
	}
	if snip := p.text("#snippet"); !strings.Contains(snip, "data-site=") {
		t.Fatalf("snippet: %q", snip)
	}
	p.accessible("traffic")
	p.run("7 days", chromedp.SetValue(chromedp.CSS("#days"), "7"), chromedp.Evaluate[chromedp.Void](`document.getElementById('days').dispatchEvent(new Event('change'))`),
		chromedp.WaitVisible(chromedp.CSS(`#traffic-chart[data-rendered="true"] canvas`)))
	// The 30 days' chart may still be the one shown when the wait above
	// ends: its table is replaced when the 7 days' stats arrive.
	p.until("the 7 days' chart, a row a day", `document.querySelectorAll('#traffic-chart details tbody tr').length === 7`)
	p.shot("traffic", true)

	// Schedule a post with an image to the saved webhook, then cancel it.
	p.run("schedule a post",
		chromedp.Navigate(b.URL+"/#/schedules"),
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
	if sc["status"] != "pending" || sc["webhookId"] != hook || content["title"] != "Launch day" || !strings.HasPrefix(fmt.Sprint(content["imageUrl"]), b.URL+"/v1/blobs/") || content["imageAlt"] != "Rocket on the pad" {
		t.Fatalf("schedule created by the dashboard: %v", sc)
	}
	if row := p.text("#page-schedules tbody"); !strings.Contains(row, "Launch day") || !strings.Contains(row, "pending") || !strings.Contains(row, "image") {
		t.Fatalf("list after create: %q", row)
	}
	p.shot("schedules", true)
	p.accessible("schedules")
	p.run("cancel it",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-cancel=%q]`, sc["id"]))),
		chromedp.WaitVisible(chromedp.CSS("#page-schedules tbody .status-cancelled")))
	if got := b.call(t, "GET", "/v1/scheduler/"+sc["id"].(string), "", 200)["schedule"].(map[string]any)["status"]; got != "cancelled" {
		t.Fatalf("status after cancel: %v", got)
	}

	// Create a voice from text and read it back.
	p.run("create a voice",
		chromedp.Navigate(b.URL+"/#/voices"),
		chromedp.WaitVisible(chromedp.CSS("#voice-form")),
		chromedp.SendKeys(chromedp.CSS("#voice-name"), "Plain and warm"),
		chromedp.SendKeys(chromedp.CSS("#voice-content"), "We write plainly and warmly. Short sentences. No jargon."),
		chromedp.Click(chromedp.CSS("#voice-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#voice-view pre")))
	if v := p.text("#voice-view"); !strings.Contains(v, "Plain and warm") || !strings.Contains(v, "Short sentences.") || strings.Contains(v, "null") || strings.Contains(v, "undefined") {
		t.Fatalf("voice view: %q", v)
	}

	// Visibility: latest scores, history against competitors, evidence.
	p.run("visibility",
		chromedp.Navigate(b.URL+"/#/visibility"),
		chromedp.WaitVisible(chromedp.CSS(`#visibility-chart[data-rendered="true"] canvas`)))
	legend := p.text("#visibility-chart .u-legend")
	if !strings.Contains(legend, "Globex Corp") || !strings.Contains(legend, "initech.io") {
		t.Fatalf("history chart lacks competitors: %q", legend)
	}
	if ev := p.text("#evidence h2"); ev != "Evidence (4 answers)" {
		t.Fatalf("evidence heading: %q", ev)
	}
	if got := p.text("#stat-visibility .stat-value"); got != "75.0" {
		t.Fatalf("visibility score card %q, want 75.0 (3 of 4 answers name Acme first)", got)
	}
	p.shot("visibility", true)
	p.accessible("visibility")
}

// TestEveryPageOnAPhone opens every page of the navigation at 390 px: none
// scrolls sideways, each passes the accessibility audit, and the heading
// of the page takes the focus when the user navigates.
func TestEveryPageOnAPhone(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	b.seedTraffic(t)
	b.seedReports(t)
	b.call(t, "POST", "/v1/webhooks", `{"url":"http://127.0.0.1:9/hook","name":"Launch channel"}`, 201)
	p := open(t, b, 390, 844)
	p.run("a phone", chromedp.EmulateViewport(390, 844))
	p.signIn("#/start") // an unknown page shows the first; every click below changes the hash
	pages := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#nav a')].map((a) => a.dataset.page)`)
	if len(pages) < 7 {
		t.Fatalf("navigation: %v", pages)
	}
	for _, name := range pages {
		p.run("open "+name, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#nav a[data-page=%q]`, name))))
		p.until(name+" rendered", fmt.Sprintf(`document.querySelector('#page-%s[aria-busy="false"] h1') !== null && document.activeElement === document.querySelector('#page-%s h1')`, name, name))
		if name == "traffic" || name == "visibility" {
			p.until(name+" chart", `!!document.querySelector('[data-rendered="true"] canvas')`)
		}
		p.accessible(name + " on a phone")
		p.shot("phone-"+name, true)
	}
	// Every page's module loaded: what a user who opens them all downloads.
	p.pageWeight("page-weight-all-pages.txt", 2*maxFirstLoad)
}
