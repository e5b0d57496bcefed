package dashboard_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestATrackerCreatedFromThePageRunsShowsItsTrendAndPauses: website →
// suggestions → a daily tracker created; its first run followed through the
// job → the trend chart per engine (you and each competitor) and the latest
// run's sources; a prompt's answers; paused from its row (the API agrees).
// The page passes the audit at desktop width and at 390 px.
func TestATrackerCreatedFromThePageRunsShowsItsTrendAndPauses(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	// The workspace tracks example.com's AI traffic: the trend joins visits.
	b.call(t, "POST", "/v1/ai-traffic/sites", `{"domain":"https://example.com/","name":"Acme"}`, 201)
	p := open(t, b, 1280, 900)
	p.signIn("#/trackers")
	p.run("suggest",
		chromedp.WaitVisible(chromedp.CSS("#tracker-website")),
		chromedp.SendKeys(chromedp.CSS("#tracker-website"), "https://example.com"),
		chromedp.Click(chromedp.CSS("#tracker-suggest")),
		chromedp.WaitVisible(chromedp.CSS("#prompts-list input")))
	comps := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#competitors-list input')].map((x) => x.value)`)
	if strings.Join(comps, ",") != "Globex Corp,Initech" {
		t.Fatalf("suggested competitors: %v", comps)
	}
	p.accessible("tracker editor")
	p.run("create",
		chromedp.Evaluate[chromedp.Void](`window.sawProgress = false; new MutationObserver(() => {
			if (document.querySelector('#trackers-status progress')) window.sawProgress = true;
		}).observe(document.body, {subtree: true, childList: true})`),
		selectValue("#tracker-cadence", "daily"),
		chromedp.Click(chromedp.CSS("#tracker-save")))
	p.until("the first run completes and the trend is drawn",
		`document.querySelectorAll('#trend-engines figure[data-rendered="true"]').length === 2`)
	if !eval[bool](t, p.ctx, `window.sawProgress`) {
		t.Fatal("the run's progress was never shown")
	}
	list := b.call(t, "GET", "/v1/visibility/trackers", "", 200)["trackers"].([]any)
	if len(list) != 1 {
		t.Fatalf("%d trackers, want 1", len(list))
	}
	tr := list[0].(map[string]any)
	if tr["cadence"] != "daily" || tr["active"] != true || tr["lastReportId"] == nil {
		t.Fatalf("tracker after its first run: %v", tr)
	}
	// Each engine's chart has a series for you and for each competitor.
	heads := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#trend-chart-0 details thead th')].map((x) => x.textContent)`)
	if strings.Join(heads, "|") != "Date|Acme (you)|Globex Corp|Initech" {
		t.Fatalf("trend chart columns: %v", heads)
	}
	if n := eval[int](t, p.ctx, `document.querySelectorAll('#trend-sources table').length`); n < 1 {
		t.Fatalf("no sources table: %s", p.text("#trend-sources"))
	}
	// The chart's numbers are the API's: the day's visibility of each brand.
	trend := b.call(t, "GET", "/v1/visibility/trackers/"+tr["id"].(string)+"/trend", "", 200)
	engine := trend["engines"].([]any)[0].(string)
	point := trend["series"].([]any)[0].(map[string]any)
	var want []string
	for _, br := range trend["brands"].([]any) {
		fig := point["engines"].(map[string]any)[engine].(map[string]any)[br.(map[string]any)["slug"].(string)].(map[string]any)
		want = append(want, fmt.Sprintf("%.1f", fig["visibility"]))
	}
	row := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#trend-chart-0 details tbody tr:last-child td')].map((x) => x.textContent)`)
	if strings.Join(row, "|") != strings.Join(want, "|") || eval[string](t, p.ctx, `document.querySelector('#trend-chart-0 details tbody tr:last-child th').textContent`) != point["day"] {
		t.Fatalf("chart table's last day %v %q, API %s %v", row, eval[string](t, p.ctx, `document.querySelector('#trend-chart-0 details tbody tr:last-child th').textContent`), point["day"], want)
	}
	if n := eval[int](t, p.ctx, `document.querySelectorAll('#trend-traffic figure[data-rendered="true"]').length`); trend["traffic"] == nil || n == 0 {
		t.Fatalf("visibility-and-visits: the API's traffic %v, %d charts drawn", trend["traffic"], n)
	}
	if got := p.text("#trend-answers"); !strings.Contains(got, "gpt-4o") || !strings.Contains(got, "claude") {
		t.Fatalf("a prompt's answers: %q", got)
	}
	p.shot("trackers-trend", true)
	p.accessible("trackers trend")

	p.run("pause", chromedp.Click(chromedp.CSS(`#trackers button[data-action=toggle]`)))
	p.until("shown paused", `document.querySelector('#trackers button[data-action=toggle]')?.textContent === 'Resume'`)
	if got := b.call(t, "GET", "/v1/visibility/trackers/"+tr["id"].(string), "", 200)["tracker"].(map[string]any); got["active"] != false {
		t.Fatalf("after pause the API says %v", got)
	}
	if got := p.text("#trackers tbody"); !strings.Contains(got, "paused") {
		t.Fatalf("row after pause: %q", got)
	}

	// Edit: the form holds the tracker's prompts; the cadence changes.
	p.run("edit",
		chromedp.Click(chromedp.CSS(`#trackers button[aria-label^="Edit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#tracker-save")))
	if n := eval[int](t, p.ctx, `document.querySelectorAll('#prompts-list input').length`); n != len(tr["prompts"].([]any)) {
		t.Fatalf("the edit form holds %d prompts, the tracker %d", n, len(tr["prompts"].([]any)))
	}
	p.run("weekly", selectValue("#tracker-cadence", "weekly"), chromedp.Click(chromedp.CSS("#tracker-save")))
	p.until("shown weekly", `/^weekly at/.test(document.querySelector('#trackers tbody td[data-label=Cadence]')?.textContent || '')`)
	if got := b.call(t, "GET", "/v1/visibility/trackers/"+tr["id"].(string), "", 200)["tracker"].(map[string]any); got["cadence"] != "weekly" || got["active"] != false {
		t.Fatalf("after the edit the API says %v", got)
	}

	// Run now: 202, the job followed, a second run in the history.
	p.run("run now", chromedp.Click(chromedp.CSS(`#trackers button[data-action=run]`)))
	p.until("the run completes", `document.querySelector('#trackers-status .ok')?.textContent === 'Run complete.'`)
	if got := len(b.call(t, "GET", "/v1/ai/generate/seo-site-report/history", "", 200)["points"].([]any)); got != 2 {
		t.Fatalf("history has %d points after run now, want 2", got)
	}

	// Plan refusals are shown as the API's message, in workspaces of their
	// own (which do not see acme's tracker): pro trackers are weekly only
	// (400 naming cadence), free has none (403).
	refused := func(plan, cadence, want string) {
		t.Helper()
		key, err := auth.CreateKey(context.Background(), b.store, "ws-"+plan, plan, "owner@"+plan+".test")
		if err != nil {
			t.Fatal(err)
		}
		p.run("sign in on "+plan,
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`sessionStorage.setItem('herald.apiKey', %q)`, key)),
			chromedp.Navigate(b.URL+"/#/"),
			chromedp.Navigate(b.URL+"/#/trackers"),
			chromedp.WaitVisible(chromedp.CSS("#tracker-website")))
		if got := p.text("#trackers"); !strings.Contains(got, "No tracker yet") {
			t.Fatalf("%s sees another workspace's trackers: %q", plan, got)
		}
		p.run("a "+cadence+" tracker on "+plan,
			chromedp.SendKeys(chromedp.CSS("#tracker-website"), "https://example.com"),
			chromedp.Click(chromedp.CSS("#tracker-suggest")),
			chromedp.WaitVisible(chromedp.CSS("#tracker-save")),
			selectValue("#tracker-cadence", cadence),
			chromedp.Click(chromedp.CSS("#tracker-save")),
			chromedp.WaitVisible(chromedp.CSS("#tracker-save-status .error")))
		if got := p.text("#tracker-save-status .error"); !strings.Contains(got, want) {
			t.Fatalf("%s, %s: %q, want %q", plan, cadence, got, want)
		}
	}
	refused("pro", "daily", "(HTTP 400)")
	if got := p.text("#tracker-save-status .error"); !strings.Contains(got, "cadence") {
		t.Fatalf("the 400 does not name cadence: %q", got)
	}
	p.shot("trackers-refused", false)
	refused("free", "weekly", "(HTTP 403)")

	p.run("back to acme",
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`sessionStorage.setItem('herald.apiKey', %q)`, b.key)),
		chromedp.Navigate(b.URL+"/#/"),
		chromedp.Navigate(b.URL+"/#/trackers"))
	p.run("a phone", chromedp.EmulateViewport(390, 844))
	p.until("trend redrawn", `document.querySelectorAll('#trend-engines figure[data-rendered="true"]').length === 2`)
	p.accessible("trackers on a phone")
	p.shot("trackers-phone", true)
}
