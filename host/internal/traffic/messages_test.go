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

	r := b.srv.Do(t, "GET", "/v1/ai-traffic/sites", b.key, "")
	if sites, _ := r.Body["sites"].([]any); r.Status != 200 || r.Body["message"] != "Sites fetched" || len(sites) != 1 {
		t.Fatalf("list sites: %d %v, want message %q and SPEC's sites", r.Status, r.Body, "Sites fetched")
	}

	for _, c := range []struct{ path, want string }{
		{"/v1/ai-traffic/stats", "AI traffic for acme.test over the last 30 days"},
		{"/v1/ai-traffic/stats?days=7&siteKey=" + b.siteKey(), "AI traffic for acme.test over the last 7 days"},
		{"/v1/ai-traffic/stats?days=1", "AI traffic for acme.test today"},
		{"/v1/ai/generate/ai-traffic?days=90", "AI traffic for acme.test over the last 90 days"},
	} {
		r := b.srv.Do(t, "GET", c.path, b.key, "")
		if r.Status != 200 || r.Body["message"] != c.want || r.Body["siteKey"] != b.siteKey() {
			t.Errorf("GET %s: %d message %q, want %q", c.path, r.Status, r.Body["message"], c.want)
		}
	}

	out := b.srv.Do(t, "POST", "/v1/ai-traffic/sites/ensure", b.key, "").Want(t, 200).Body
	if site, _ := out["site"].(map[string]any); out["message"] != "Site ready: acme.test" || site["siteKey"] != b.siteKey() || out["needsDomain"] != false {
		t.Fatalf("ensure with a site: %v", out)
	}
	bare, err := auth.CreateKey(context.Background(), st, "bare", "business", "o@bare.test")
	if err != nil {
		t.Fatal(err)
	}
	out = b.srv.Do(t, "POST", "/v1/ai-traffic/sites/ensure", bare, "").Want(t, 200).Body
	msg, _ := out["message"].(string)
	if !strings.Contains(msg, "POST /v1/ai-traffic/sites") || out["site"] != nil || out["needsDomain"] != true {
		t.Fatalf("ensure without a domain: %v, want a message pointing to POST /v1/ai-traffic/sites", out)
	}
}
