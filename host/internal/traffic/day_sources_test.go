package traffic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// TestSeriesCountsEachDaysAIVisitsPerSource: every point of the daily
// series splits its AI visits by source (most first, ties by id), leaves
// out sources without a visit that day and never lists direct visits.
func TestSeriesCountsEachDaysAIVisitsPerSource(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		ctx := context.Background()
		site, err := st.TrafficSiteByKey(ctx, b.siteKey())
		if err != nil {
			t.Fatal(err)
		}
		today := time.Now().UTC().Truncate(24 * time.Hour).Add(time.Hour)
		yesterday := today.AddDate(0, 0, -1)
		var events []store.TrafficEvent
		visit := func(at time.Time, source string, n int) {
			events = append(events, pageviews(site.ID, at, source, n)...)
		}
		visit(yesterday, "perplexity", 1)
		visit(yesterday, "chatgpt", 1)
		visit(today, "chatgpt", 3)
		visit(today, "claude", 1)
		visit(today, "", 2) // direct visits
		if _, err := traffic.Record(ctx, st, events); err != nil {
			t.Fatal(err)
		}
		series := b.stats(t, "days=3")["series"].([]any)
		got := make([]string, len(series))
		for i, p := range series {
			raw, _ := json.Marshal(p.(map[string]any)["sources"])
			got[i] = string(raw)
		}
		want := []string{`[]`, `[{"source":"chatgpt","visits":1},{"source":"perplexity","visits":1}]`, `[{"source":"chatgpt","visits":3},{"source":"claude","visits":1}]`}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("per-day sources, oldest day first:\n got %v\nwant %v", got, want)
		}
	})
}
