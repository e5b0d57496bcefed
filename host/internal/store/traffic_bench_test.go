package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// BenchmarkRecordTraffic measures the SQLite cost of one traffic event in
// group-commit batches of several sizes, every event a new session's
// pageview (BenchmarkCollectVsBare's workload: 50 pages, half of the visits
// from AI assistants).
//
//	go test -run '^$' -bench RecordTraffic ./host/internal/store/
func BenchmarkRecordTraffic(b *testing.B) {
	for _, batch := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := storetest.SQLite(b)
			site := trafficSite(b, s)
			sources := []string{"chatgpt", "", "", "perplexity"}
			ua := "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
			events := make([]store.TrafficEvent, batch)
			n := 0
			for b.Loop() {
				for i := range events {
					n++
					events[i] = store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, SessionID: fmt.Sprintf("s%d", n),
						Path: fmt.Sprintf("/docs/%d", n%50), Title: "Docs", Referrer: "https://chatgpt.com/", Source: sources[n%4],
						UserAgent: ua, DurationMs: 0, ScrollDepth: -1, At: s.Now()}
				}
				if _, err := s.RecordTraffic(context.Background(), events); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/1000, "µs/event")
		})
	}
}
