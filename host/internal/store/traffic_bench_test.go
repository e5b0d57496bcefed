package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// BenchmarkRecordTraffic measures the SQLite cost of one traffic event in
// group-commit batches of several sizes, every event a new session's
// pageview (BenchmarkCollectVsBare's workload: 50 pages, half of the visits
// from AI assistants). The baseline, in the same run and the same file, is
// a bare insert: the same batch as one multi-row INSERT into a table with
// only an integer key, in its own transaction; no session, no rollups, no
// second index. The order of the two flips every iteration. ratio is
// RecordTraffic's time over the bare insert's.
//
//	go test -run '^$' -bench RecordTraffic ./host/internal/store/
func BenchmarkRecordTraffic(b *testing.B) {
	for _, batch := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			ctx := context.Background()
			s := storetest.SQLite(b)
			site := trafficSite(b, s)
			if _, err := storetest.Exec(ctx, s, `CREATE TABLE bench_bare_events (id INTEGER PRIMARY KEY, site_id TEXT NOT NULL, session_id TEXT NOT NULL,
				path TEXT NOT NULL, referrer TEXT NOT NULL, source TEXT NOT NULL, at BIGINT NOT NULL)`); err != nil {
				b.Fatal(err)
			}
			bareSQL := `INSERT INTO bench_bare_events (site_id, session_id, path, referrer, source, at) VALUES ` +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?), ", batch), ", ")
			sources := []string{"chatgpt", "", "", "perplexity"}
			ua := "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
			events := make([]store.TrafficEvent, batch)
			args := make([]any, 0, 6*batch)
			var herald, bare time.Duration
			n, iter := 0, 0
			for b.Loop() {
				args = args[:0]
				for i := range events {
					n++
					events[i] = store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, SessionID: fmt.Sprintf("s%d", n),
						Path: fmt.Sprintf("/docs/%d", n%50), Title: "Docs", Referrer: "https://chatgpt.com/", Source: sources[n%4],
						UserAgent: ua, DurationMs: 0, ScrollDepth: -1, At: s.Now()}
					e := events[i]
					args = append(args, e.SiteID, e.SessionID, e.Path, e.Referrer, e.Source, e.At)
				}
				record := func() {
					t0 := time.Now()
					if _, err := traffic.Record(ctx, s, events); err != nil {
						b.Fatal(err)
					}
					herald += time.Since(t0)
				}
				insert := func() {
					t0 := time.Now()
					if err := s.Tx(ctx, func(q store.Querier) error {
						_, err := q.Exec(ctx, bareSQL, args...)
						return err
					}); err != nil {
						b.Fatal(err)
					}
					bare += time.Since(t0)
				}
				if iter%2 == 0 {
					record()
					insert()
				} else {
					insert()
					record()
				}
				iter++
			}
			b.ReportMetric(float64(herald.Nanoseconds())/float64(n)/1000, "µs/event")
			b.ReportMetric(float64(bare.Nanoseconds())/float64(n)/1000, "bare-µs/event")
			b.ReportMetric(float64(herald)/float64(bare), "ratio")
		})
	}
}
