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
	b.srv.Do(t, "GET", "/v1/ai-traffic/stats", b.key, "").Want(t, 200) // one site, no siteKey
	second := b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"blog.acme.test"}`).Want(t, 201).Body
	r := b.srv.Do(t, "GET", "/v1/ai-traffic/stats", b.key, "")
	msg := r.Message()
	if status := r.Status; status != 400 || !strings.Contains(msg, "siteKey is required") || !strings.Contains(msg, b.siteKey()) || !strings.Contains(msg, second["siteKey"].(string)) {
		t.Fatalf("two sites, no siteKey: %d %q, want 400 asking for siteKey and listing both", status, msg)
	}
	if out := b.srv.Do(t, "GET", "/v1/ai-traffic/stats?siteKey="+second["siteKey"].(string), b.key, "").Want(t, 200).Body; out["domain"] != "blog.acme.test" {
		t.Fatalf("with siteKey: %v", out["domain"])
	}
}
