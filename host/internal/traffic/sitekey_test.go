package traffic_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// With several sites, stats without siteKey is a 400 naming the field and
// the sites, not a silent report of the oldest one.
func TestStatsNeedsSiteKeyWhenSeveralSites(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	if status, _ := b.call(t, "GET", "/v1/ai-traffic/stats", "", nil); status != 200 {
		t.Fatalf("one site, no siteKey: %d, want 200", status)
	}
	status, second := b.call(t, "POST", "/v1/ai-traffic/sites", `{"domain":"blog.acme.test"}`, nil)
	if status != 201 {
		t.Fatalf("second site: %d %v", status, second)
	}
	status, out := b.call(t, "GET", "/v1/ai-traffic/stats", "", nil)
	msg, _ := out["message"].(string)
	if status != 400 || !strings.Contains(msg, "siteKey is required") || !strings.Contains(msg, b.siteKey()) || !strings.Contains(msg, second["siteKey"].(string)) {
		t.Fatalf("two sites, no siteKey: %d %q, want 400 asking for siteKey and listing both", status, msg)
	}
	status, out = b.call(t, "GET", "/v1/ai-traffic/stats?siteKey="+second["siteKey"].(string), "", nil)
	if status != 200 || out["domain"] != "blog.acme.test" {
		t.Fatalf("with siteKey: %d %v", status, out["domain"])
	}
}
