package traffic_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// TestBenchPagesView times the pages view of a site with 5,000 pages over
// 90 days alone (no ingest run first), with the time of each input apart;
// HERALD_BENCH_PAGES=1 runs it (docs/BENCHMARKS.md).
func TestBenchPagesView(t *testing.T) {
	if os.Getenv("HERALD_BENCH_PAGES") == "" {
		t.Skip("HERALD_BENCH_PAGES=1 runs the pages view benchmark")
	}
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "")
		svc := b.service(t)
		seedPages(t, st, b)
		b.cites.cites = nil
		for i := 0; i < 5000; i += 3 {
			b.cites.cites = append(b.cites.cites, traffic.PageCitation{Path: fmt.Sprintf("/p/%d", i), Engine: "gpt-4o", Operator: "OpenAI", ReportID: "r", Answer: fmt.Sprint(i % 25)})
		}
		var siteID string
		storetest.QueryRow(context.Background(), st, `SELECT id FROM traffic_sites WHERE site_key = $1`, b.siteKey()).Scan(&siteID)
		to := store.Day(st.Now())
		from := to - 89
		p50 := func(name string, f func() int) {
			var times []time.Duration
			n := 0
			for i := 0; i < 21; i++ {
				s := time.Now()
				n = f()
				times = append(times, time.Since(s))
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			t.Logf("Herald (%s): %s: %d rows, p50 %v, max %v", st.Dialect, name, n, times[len(times)/2].Round(time.Microsecond), times[len(times)-1].Round(time.Microsecond))
		}
		p50("PageActivity (crawler and landing rows)", func() int {
			hits, visits, err := st.PageActivity(context.Background(), siteID, from, to)
			if err != nil {
				t.Fatal(err)
			}
			return len(hits) + len(visits)
		})
		principal := auth.Principal{WorkspaceID: b.workspaceID(t), Plan: "business"}
		p50("pages view, 5,000 pages over 90 days", func() int {
			r, err := svc.Pages(context.Background(), principal, b.siteKey(), 90)
			if err != nil {
				t.Fatal(err)
			}
			return len(r.Pages)
		})
	})
}
