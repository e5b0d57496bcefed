package traffic_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Stats are scoped to the caller's workspace: another workspace's site key
// is not found, exactly like an unknown key, and lists never show it.
func TestStatsAndSitesAreScopedToTheCallersWorkspace(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	status, out := b.call(t, "POST", "/v1/ai-traffic/collect", fmt.Sprintf(`{"siteKey":%q,"path":"/a","referrer":"https://chatgpt.com/","sessionId":"s1"}`, b.siteKey()), map[string]string{"api-key": ""})
	if status != http.StatusAccepted {
		t.Fatalf("collect: %d %v", status, out)
	}
	if got := b.stats(t, "days=1"); num(got["totals"].(map[string]any)["visits"]) != 1 {
		t.Fatalf("the owner's stats: %v", got)
	}
	other, err := auth.CreateKey(context.Background(), b.store, "rival", "business", "o@rival.test")
	if err != nil {
		t.Fatal(err)
	}
	as := map[string]string{"api-key": other}
	for _, path := range []string{"/v1/ai-traffic/stats?siteKey=" + b.siteKey(), "/v1/ai/generate/ai-traffic?siteKey=" + b.siteKey(), "/v1/ai-traffic/stats"} {
		status, out := b.call(t, "GET", path, "", as)
		if status != http.StatusNotFound {
			t.Fatalf("GET %s as another workspace: %d, want 404 (the report of %v)", path, status, out["siteKey"])
		}
		if msg, ok := out["message"].(string); !ok || msg == "" {
			t.Fatalf("GET %s: 404 without a message: %v", path, out)
		}
	}
	status, list := b.call(t, "GET", "/v1/ai-traffic/sites", "", as)
	sites, ok := list["sites"].([]any)
	if status != http.StatusOK || !ok || len(sites) != 0 {
		t.Fatalf("another workspace's site list: %d %v", status, list)
	}
}
