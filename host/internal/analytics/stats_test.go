package analytics_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/plugins/ga4/ga4test"
)

func (b *bundle) stats(t *testing.T, query string) map[string]any {
	t.Helper()
	return b.srv.Do(t, "GET", "/v1/ai-traffic/stats?siteKey="+b.site+query, b.key, "").Want(t, http.StatusOK).Body
}

func (b *bundle) mapSite(t testing.TB, property string) {
	t.Helper()
	b.srv.Do(t, "PUT", "/v1/analytics/google/sites/"+b.site, b.key, `{"propertyId":"`+property+`"}`).Want(t, http.StatusOK)
}

func sourcesOf(r map[string]any) map[string]float64 {
	out := map[string]float64{}
	for _, s := range r["sources"].([]any) {
		m := s.(map[string]any)
		out[m["source"].(string)] = m["visits"].(float64)
	}
	return out
}

func TestStatsFromGoogleAnalytics(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		r := b.stats(t, "")
		if r["source"] != "script" || r["googleAnalyticsConnected"] != false || !strings.Contains(r["sourceReason"].(string), "not connected") {
			t.Fatalf("before connecting: %v %v %v", r["source"], r["googleAnalyticsConnected"], r["sourceReason"])
		}
		b.srv.Do(t, "GET", "/v1/ai-traffic/stats?source=google_analytics&siteKey="+b.site, b.key, "").WantError(t, http.StatusBadRequest, "not connected")
		b.connect(t, b.key)
		r = b.stats(t, "")
		if r["source"] != "script" || r["googleAnalyticsConnected"] != true || !strings.Contains(r["sourceReason"].(string), "no GA4 property") {
			t.Fatalf("connected, no property: %v %v", r["source"], r["sourceReason"])
		}
		b.mapSite(t, ga4test.PropertyOK)
		for _, path := range []string{"/v1/ai-traffic/stats", "/v1/ai/generate/ai-traffic"} {
			r = b.srv.Do(t, "GET", path+"?days=7&siteKey="+b.site, b.key, "").Want(t, http.StatusOK).Body
			if r["source"] != "google_analytics" || r["googleAnalyticsConnected"] != true || r["propertyId"] != ga4test.PropertyOK {
				t.Fatalf("%s: %v %v %v", path, r["source"], r["sourceReason"], r["propertyId"])
			}
		}
		// Seven days of the fake's rows, classified with Herald's table:
		// chatgpt.com (a utm value and a host), "perplexity" (a utm value),
		// copilot.microsoft.com (a host, also GA4's AI channel), and a host
		// only GA4's AI channel knows.
		want := map[string]float64{"chatgpt": 7 * 12, "perplexity": 7 * 5, "copilot": 7 * 2, "other_ai": 7 * 1}
		got := sourcesOf(r)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("source %s: %v visits, want %v (all: %v)", k, got[k], v, got)
			}
		}
		if len(got) != len(want) {
			t.Errorf("sources %v, want %v", got, want)
		}
		tot := r["totals"].(map[string]any)
		if tot["visits"] != float64(7*140) || tot["aiVisits"] != float64(7*20) || tot["pageviews"] != float64(7*274) {
			t.Errorf("totals %v", tot)
		}
		series := r["series"].([]any)
		if len(series) != 7 || series[6].(map[string]any)["aiVisits"] != float64(20) {
			t.Errorf("series %v", series)
		}
		pages := r["topPages"].([]any)
		if len(pages) != 4 || pages[0].(map[string]any)["path"] != "/pricing" {
			t.Errorf("top pages %v", pages)
		}
		eng := r["engagement"].(map[string]any)["ai"].(map[string]any)
		if eng["engagementRate"] != 0.7 { // (9+3+1+1)/20
			t.Errorf("AI engagement %v", eng)
		}
		// source=script forces the script and says so.
		r = b.stats(t, "&days=7&source=script")
		if r["source"] != "script" || r["googleAnalyticsConnected"] != true || r["sourceReason"] != "source=script was asked for" {
			t.Errorf("source=script: %v %v", r["source"], r["sourceReason"])
		}
		b.srv.Do(t, "GET", "/v1/ai-traffic/stats?source=matomo&siteKey="+b.site, b.key, "").WantError(t, http.StatusBadRequest, "source")
	})
}

func TestStatsFallBackOnGoogleErrors(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		b.connect(t, b.key)
		for prop, words := range map[string]string{ga4test.PropertyQuota: "quota exhausted", ga4test.PropertyForbidden: "lost its permission", ga4test.PropertyDeleted: "deleted"} {
			// The mapping is checked against the account's properties, which
			// list these.
			b.mapSite(t, prop)
			r := b.stats(t, "")
			if r["source"] != "script" || r["googleAnalyticsConnected"] != true || !strings.Contains(r["sourceReason"].(string), words) ||
				!strings.Contains(r["sourceReason"].(string), "script's stats") {
				t.Errorf("property %s: %v %q", prop, r["source"], r["sourceReason"])
			}
		}
		// Explicitly asked: the same fallback, never a 500.
		r := b.stats(t, "&source=google_analytics")
		if r["source"] != "script" {
			t.Errorf("source=google_analytics on a deleted property: %v", r["source"])
		}
	})
}

func TestRefreshRevokeAndDisconnect(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		// A token that lapses within the refresh margin is refreshed first.
		b.google.SetAccessTTL(time.Minute)
		b.connect(t, b.key)
		b.mapSite(t, ga4test.PropertyOK)
		b.google.ExpireAccessTokens()
		b.google.SetAccessTTL(time.Hour)
		calls := b.google.TokenCalls.Load()
		b.srv.Do(t, "GET", "/v1/analytics/google/properties", b.key, "").Want(t, http.StatusOK)
		if b.google.TokenCalls.Load() != calls+1 {
			t.Errorf("token calls %d → %d, want one refresh", calls, b.google.TokenCalls.Load())
		}
		b.srv.Do(t, "GET", "/v1/analytics/google/properties", b.key, "").Want(t, http.StatusOK)
		if b.google.TokenCalls.Load() != calls+1 {
			t.Error("a fresh token was refreshed again")
		}
		// The user removed the access in their Google account.
		b.google.RevokeAll()
		b.clock.add(time.Hour)
		b.srv.Do(t, "GET", "/v1/analytics/google/properties", b.key, "").WantError(t, http.StatusConflict, "reconnect")
		r := b.stats(t, "&days=3")
		if r["source"] != "script" || !strings.Contains(r["sourceReason"].(string), "reconnect") {
			t.Errorf("stats after a revoke: %v %q", r["source"], r["sourceReason"])
		}
		// Reconnect, then disconnect: revoked at Google, deleted here.
		b.connect(t, b.key)
		before := b.google.Revocations.Load()
		out := b.srv.Do(t, "DELETE", "/v1/analytics/google", b.key, "").Want(t, http.StatusOK).Body
		if out["disconnected"] != true || b.google.Revocations.Load() != before+1 {
			t.Errorf("disconnect %v, revocations %d → %d", out, before, b.google.Revocations.Load())
		}
		if n := countRows(t, st, "analytics_connections") + countRows(t, st, "analytics_site_properties"); n != 0 {
			t.Errorf("%d rows left after disconnect", n)
		}
		out = b.srv.Do(t, "DELETE", "/v1/analytics/google", b.key, "").Want(t, http.StatusOK).Body
		if out["disconnected"] != false {
			t.Errorf("second disconnect %v", out)
		}
		b.noSecretsLogged(t)
	})
}

func countRows(t *testing.T, st *store.Store, table string) int {
	var n int
	if err := storetest.QueryRow(t.Context(), st, "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReportCache(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		b.connect(t, b.key)
		b.mapSite(t, ga4test.PropertyOK)
		b.stats(t, "&days=30")
		n := b.google.RunReports.Load()
		if n != 2 {
			t.Fatalf("%d runReport calls for one report, want 2 (by day, by landing page)", n)
		}
		b.stats(t, "&days=30")
		if b.google.RunReports.Load() != n {
			t.Error("the same window within the cache time asked Google again")
		}
		b.stats(t, "&days=7")
		if b.google.RunReports.Load() != n+2 {
			t.Error("another window was answered from the cache")
		}
		b.clock.add(11 * time.Minute)
		b.stats(t, "&days=30")
		if b.google.RunReports.Load() != n+4 {
			t.Error("a report older than the cache time was reused")
		}
	})
}
