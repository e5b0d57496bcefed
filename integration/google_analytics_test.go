package integration_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/plugins/ga4/ga4test"
)

// TestGoogleAnalyticsThroughThePlugin runs the real binary with the ga4
// plugin as its own subprocess, pointed at a local fake of Google's OAuth,
// Admin and Data APIs: connect with the authorization-code flow, map the
// site to a property, read stats from GA4, fall back to the script on a
// quota error, disconnect (revoked at Google). No token or secret appears
// in the host's output.
func TestGoogleAnalyticsThroughThePlugin(t *testing.T) {
	t.Parallel()
	g := ga4test.New(t)
	cfg := filepath.Join(t.TempDir(), "herald.hcl")
	var settings strings.Builder
	for k, v := range g.Settings() {
		fmt.Fprintf(&settings, "    %s = %q\n", k, v)
	}
	if err := os.WriteFile(cfg, []byte("plugin \"ga4\" {\n  kind = \"analytics\"\n  settings = {\n"+settings.String()+"  }\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := harness.Start(t, harness.Options{Env: map[string]string{"HERALD_CONFIG": cfg}, AllowLog: []harness.Allow{
		{Match: `Google Analytics report failed: .*quota exhausted`, Why: "the fake answers RESOURCE_EXHAUSTED for the second property"},
	}})
	status, site := call(t, "POST", p.URL+"/v1/ai-traffic/sites", p.Key, `{"domain":"acme.test"}`)
	if status != 201 {
		t.Fatalf("create site: %d %v", status, site)
	}
	siteKey := site["siteKey"].(string)

	status, start := call(t, "PUT", p.URL+"/v1/analytics/google", p.Key, `{"redirectUri":"`+p.URL+`/v1/analytics/google/callback"}`)
	if status != 200 {
		t.Fatalf("start: %d %v\n%s", status, start, p.Output())
	}
	back, err := g.Authorize(start["authorizationUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	// Google's redirect: the browser, without a key.
	status, conn := call(t, "GET", p.URL+"/v1/analytics/google/callback?"+back.Encode(), "", "")
	if status != 200 || conn["connected"] != true {
		t.Fatalf("callback: %d %v\n%s", status, conn, p.Output())
	}
	if status, again := call(t, "GET", p.URL+"/v1/analytics/google/callback?"+back.Encode(), "", ""); status != 400 {
		t.Errorf("replayed callback: %d %v", status, again)
	}
	status, props := call(t, "GET", p.URL+"/v1/analytics/google/properties", p.Key, "")
	if status != 200 || len(props["properties"].([]any)) != 4 {
		t.Fatalf("properties: %d %v", status, props)
	}
	if status, body := call(t, "PUT", p.URL+"/v1/analytics/google/sites/"+siteKey, p.Key, `{"propertyId":"`+ga4test.PropertyOK+`"}`); status != 200 {
		t.Fatalf("map site: %d %v", status, body)
	}
	status, stats := call(t, "GET", p.URL+"/v1/ai-traffic/stats?days=30&siteKey="+siteKey, p.Key, "")
	if status != 200 || stats["source"] != "google_analytics" || stats["googleAnalyticsConnected"] != true {
		t.Fatalf("stats: %d %v %v\n%s", status, stats["source"], stats["sourceReason"], p.Output())
	}
	if tot := stats["totals"].(map[string]any); tot["aiVisits"] != float64(30*20) {
		t.Errorf("AI visits %v, want %d", tot["aiVisits"], 30*20)
	}
	if status, body := call(t, "PUT", p.URL+"/v1/analytics/google/sites/"+siteKey, p.Key, `{"propertyId":"`+ga4test.PropertyQuota+`"}`); status != 200 {
		t.Fatalf("map site: %d %v", status, body)
	}
	status, stats = call(t, "GET", p.URL+"/v1/ai-traffic/stats?days=30&siteKey="+siteKey, p.Key, "")
	if status != 200 || stats["source"] != "script" || !strings.Contains(stats["sourceReason"].(string), "quota") {
		t.Errorf("stats on quota: %d %v %v", status, stats["source"], stats["sourceReason"])
	}
	status, out := call(t, "DELETE", p.URL+"/v1/analytics/google", p.Key, "")
	if status != 200 || out["disconnected"] != true || g.Revocations.Load() != 1 {
		t.Errorf("disconnect: %d %v, %d revocations", status, out, g.Revocations.Load())
	}
	list, err := p.Run(context.Background(), "plugins", "--check")
	if err != nil || !strings.Contains(list, "analytics ga4") {
		t.Errorf("herald plugins --check: %v\n%s", err, list)
	}
	for _, secret := range []string{g.ClientSecret, "ya29.", "1//0g", "4/0A"} {
		if strings.Contains(p.Output(), secret) || strings.Contains(list, secret) {
			t.Errorf("herald printed %q", secret)
		}
	}
}
