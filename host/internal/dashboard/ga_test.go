package dashboard_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/plugins/ga4/ga4test"
)

// TestGoogleAnalyticsConnectedMappedAndComparedSideBySide: on the traffic
// page, a service-account key connects GA4, the site gets a property, and
// the panel lists per AI source the script's visits, GA4's sessions and the
// difference for the same window; Disconnect brings the connect button back.
func TestGoogleAnalyticsConnectedMappedAndComparedSideBySide(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	siteKey, _ := b.seedTraffic(t)
	script := b.call(t, "GET", "/v1/ai-traffic/stats?source=script&days=30&siteKey="+siteKey, "", 200)
	scriptChatGPT := 0.0
	for _, s := range script["sources"].([]any) {
		if m := s.(map[string]any); m["source"] == "chatgpt" {
			scriptChatGPT = m["visits"].(float64)
		}
	}
	p := open(t, b, 1280, 900)
	p.signIn("#/traffic")
	p.run("the panel", chromedp.WaitVisible(chromedp.CSS("#ga-connect")))
	p.run("connect a service account",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#ga-card details').open = true; document.getElementById('ga-sa-key').value = `+strconv.Quote(b.google.ServiceAccountKey())),
		chromedp.Click(chromedp.CSS("#ga-sa-connect")),
		chromedp.WaitVisible(chromedp.CSS("#ga-property")))
	p.until("the properties are listed", `document.querySelectorAll('#ga-property option').length === 5`)
	p.run("pick the property", chromedp.SetValue(chromedp.CSS("#ga-property"), ga4test.PropertyOK), chromedp.Click(chromedp.CSS("#ga-save")),
		chromedp.WaitVisible(chromedp.CSS("#ga-compare table")))
	rows := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#ga-compare tbody tr')].map((r) => [...r.cells].map((c) => c.textContent).join('|'))`)
	want := "ChatGPT|" + strconv.Itoa(int(scriptChatGPT)) + "|360|+" + strconv.Itoa(360-int(scriptChatGPT))
	if len(rows) == 0 || !strings.HasPrefix(rows[0], want) {
		t.Fatalf("side by side rows %q, want the first to start %q", rows, want)
	}
	if reason := p.text("#ga-reason"); !strings.Contains(reason, "google_analytics") || !strings.Contains(reason, ga4test.PropertyOK) {
		t.Errorf("the page does not say where its stats come from: %q", reason)
	}
	p.shot("traffic-google-analytics", true)
	p.accessible("traffic with Google Analytics")
	p.run("disconnect", chromedp.Click(chromedp.CSS("#ga-disconnect")), chromedp.WaitVisible(chromedp.CSS("#ga-connect")))
	if got := b.call(t, "GET", "/v1/analytics/google", "", 200); got["connected"] != false {
		t.Fatalf("still connected: %v", got)
	}
}
