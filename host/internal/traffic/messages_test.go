package traffic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Traffic answers carry a message like every other area's, beside SPEC's
// fields, which stay as they are.
func TestTrafficAnswersCarryAMessage(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	b := setup(t, st)

	status, out := b.call(t, "GET", "/v1/ai-traffic/sites", "", nil)
	if sites, _ := out["sites"].([]any); status != 200 || out["message"] != "Sites fetched" || len(sites) != 1 {
		t.Fatalf("list sites: %d %v, want message %q and SPEC's sites", status, out, "Sites fetched")
	}

	for _, c := range []struct{ path, want string }{
		{"/v1/ai-traffic/stats", "AI traffic for acme.test over the last 30 days"},
		{"/v1/ai-traffic/stats?days=7&siteKey=" + b.siteKey(), "AI traffic for acme.test over the last 7 days"},
		{"/v1/ai-traffic/stats?days=1", "AI traffic for acme.test today"},
		{"/v1/ai/generate/ai-traffic?days=90", "AI traffic for acme.test over the last 90 days"},
	} {
		status, out := b.call(t, "GET", c.path, "", nil)
		if status != 200 || out["message"] != c.want || out["siteKey"] != b.siteKey() {
			t.Errorf("GET %s: %d message %q, want %q", c.path, status, out["message"], c.want)
		}
	}

	status, out = b.call(t, "POST", "/v1/ai-traffic/sites/ensure", "", nil)
	if site, _ := out["site"].(map[string]any); status != 200 || out["message"] != "Site ready: acme.test" || site["siteKey"] != b.siteKey() || out["needsDomain"] != false {
		t.Fatalf("ensure with a site: %d %v", status, out)
	}
	bare, err := auth.CreateKey(context.Background(), st, "bare", "business", "o@bare.test")
	if err != nil {
		t.Fatal(err)
	}
	status, out = b.call(t, "POST", "/v1/ai-traffic/sites/ensure", "", map[string]string{"api-key": bare})
	msg, _ := out["message"].(string)
	if status != 200 || !strings.Contains(msg, "POST /v1/ai-traffic/sites") || out["site"] != nil || out["needsDomain"] != true {
		t.Fatalf("ensure without a domain: %d %v, want a message pointing to POST /v1/ai-traffic/sites", status, out)
	}
}
