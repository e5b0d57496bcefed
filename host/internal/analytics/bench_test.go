package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/plugins/ga4/ga4test"
)

const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"

// BenchmarkStats365 answers a 365-day stats request from the script's
// rollups (a year of beacons: six visits a day from ChatGPT, Perplexity,
// Copilot, Google and direct, on five pages) and from a cached GA4 response
// of the same shape (six rows a day), in the same run, through the same
// traffic service. The GA4 answer is warmed once, so every iteration is a
// cache hit: what a dashboard reload costs.
func BenchmarkStats365(b *testing.B) {
	st := storetest.SQLite(b)
	ctx := context.Background()
	bn := setup(b, st)
	seedYear(b, bn)
	bn.connect(b, bn.key)
	bn.mapSite(b, ga4test.PropertyOK)
	days := int32(365)
	p := auth.Principal{WorkspaceID: bn.wsID}
	run := func(b *testing.B, source, want string) {
		q := traffic.StatsQuery{SiteKey: bn.site, Days: &days, Source: source}
		r, err := bn.traffic.Stats(ctx, p, q)
		if err != nil || r.Source != want || r.Totals.AIVisits == 0 {
			b.Fatalf("stats: %v %s (%s), %d AI visits", err, r.Source, r.SourceReason, r.Totals.AIVisits)
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := bn.traffic.Stats(ctx, p, q); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("script", func(b *testing.B) { run(b, "script", "script") })
	b.Run("ga4_cached", func(b *testing.B) {
		before := bn.google.RunReports.Load()
		run(b, "", "google_analytics")
		if n := bn.google.RunReports.Load() - before; n > 2 {
			b.Fatalf("%d runReport calls: the cache missed", n)
		}
	})
}

// seedYear collects six visits a day for the last 365 days through the
// tracking script's own path (Collect at each day's noon), so the script's
// rollups are the real ones.
func seedYear(tb testing.TB, bn *bundle) {
	tb.Helper()
	ctx := context.Background()
	referrers := []string{"https://chatgpt.com/", "https://www.perplexity.ai/search", "https://copilot.microsoft.com/",
		"https://www.google.com/", "", "https://chatgpt.com/c/1"}
	paths := []string{"/pricing", "/blog/ai-seo", "/", "/docs", "/", "/pricing"}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	for d := 364; d >= 0; d-- {
		bn.clock.mu.Lock()
		bn.clock.t = today.AddDate(0, 0, -d).Add(12 * time.Hour)
		bn.clock.mu.Unlock()
		for i, ref := range referrers {
			_, err := bn.traffic.Collect(ctx, traffic.Beacon{SiteKey: bn.site, Path: paths[i], Referrer: ref,
				SessionID: fmt.Sprintf("s-%d-%d", d, i), UserAgent: browserUA}, browserUA)
			if err != nil {
				tb.Fatal(err)
			}
		}
	}
	bn.clock.mu.Lock()
	bn.clock.t = time.Now().UTC()
	bn.clock.mu.Unlock()
	// Every beacon folded into the rollups before measuring.
	if err := bn.writer.Sync(ctx); err != nil {
		tb.Fatal(err)
	}
}
