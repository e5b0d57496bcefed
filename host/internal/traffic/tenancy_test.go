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
	b.send(t, "POST", "/v1/ai-traffic/collect", fmt.Sprintf(`{"siteKey":%q,"path":"/a","referrer":"https://chatgpt.com/","sessionId":"s1"}`, b.siteKey()), nil).Want(t, http.StatusAccepted)
	if got := b.stats(t, "days=1"); num(got["totals"].(map[string]any)["visits"]) != 1 {
		t.Fatalf("the owner's stats: %v", got)
	}
	other, err := auth.CreateKey(context.Background(), b.store, "rival", "business", "o@rival.test")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/ai-traffic/stats?siteKey=" + b.siteKey(), "/v1/ai/generate/ai-traffic?siteKey=" + b.siteKey(), "/v1/ai-traffic/stats"} {
		r := b.srv.Do(t, "GET", path, other, "")
		if r.Status != http.StatusNotFound {
			t.Fatalf("GET %s as another workspace: %d, want 404 (the report of %v)", path, r.Status, r.Body["siteKey"])
		}
		if msg, ok := r.Body["message"].(string); !ok || msg == "" {
			t.Fatalf("GET %s: 404 without a message: %v", path, r.Body)
		}
	}
	r := b.srv.Do(t, "GET", "/v1/ai-traffic/sites", other, "")
	sites, ok := r.Body["sites"].([]any)
	if r.Status != http.StatusOK || !ok || len(sites) != 0 {
		t.Fatalf("another workspace's site list: %d %v", r.Status, r.Body)
	}
}
