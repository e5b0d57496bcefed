package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestPageSpansMigration writes traffic_pages as migration 00003 laid it
// out (day rows and their 4-, 16-, 64- and 256-day sums), runs 00007, and
// checks that top pages over many windows, which now read 8- and 512-day
// blocks, are the sums of the day rows.
func TestPageSpansMigration(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url, dir := "", t.TempDir()
			if dialect == "postgres" {
				url = testSchemaURL(t)
			}
			s, err := Open(ctx, url, dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			if err := s.b.migrate(ctx, 6); err != nil {
				t.Fatal(err)
			}
			const site, today = "site-1", int64(20800)
			s.SetClock(func() time.Time { return time.UnixMilli(today*86_400_000 + 3_600_000) })
			type key struct {
				span, period int64
				path         string
			}
			old := map[key]*TrafficPageDelta{}
			days := map[int64]map[string]TrafficPageDelta{}
			rng := rand.New(rand.NewPCG(7, 8))
			for day := today - 700; day <= today; day++ {
				days[day] = map[string]TrafficPageDelta{}
				for i := 0; i < 3; i++ {
					path := fmt.Sprintf("/p/%d", rng.IntN(12))
					d := TrafficPageDelta{AIVisits: 1, AIPageviews: int64(1 + rng.IntN(3)), AIDurationMs: int64(rng.IntN(9000))}
					x := days[day][path]
					x.add(d)
					days[day][path] = x
					for _, span := range []int64{1, 4, 16, 64, 256} {
						k := key{span, day / span, path}
						if old[k] == nil {
							old[k] = &TrafficPageDelta{}
						}
						old[k].add(d)
					}
				}
			}
			for k, v := range old {
				if _, err := s.exec(ctx, `INSERT INTO traffic_pages (site_id, span, period, path, ai_visits, ai_pageviews, ai_duration_ms)
					VALUES ($1, $2, $3, $4, $5, $6, $7)`, site, k.span, k.period, k.path, v.AIVisits, v.AIPageviews, v.AIDurationMs); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := s.queryRow(ctx, `SELECT COUNT(*) FROM traffic_pages WHERE span NOT IN (1, 8, 64, 512)`).Scan(&n); err != nil || n != 0 {
				t.Fatalf("rows of dropped spans left: %d %v", n, err)
			}
			for _, w := range [][2]int64{{today, today}, {today - 6, today}, {today - 29, today}, {today - 364, today},
				{today - 400, today - 37}, {today - 255, today - 100}, {today - 71, today - 8}, {today - 690, today - 300}} {
				want := map[string]TrafficPageDelta{}
				for day := w[0]; day <= w[1]; day++ {
					for path, d := range days[day] {
						x := want[path]
						x.add(d)
						want[path] = x
					}
				}
				got, err := s.TrafficTopPages(ctx, site, w[0], w[1], 100)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("window %v: %d pages, want %d", w, len(got), len(want))
				}
				for _, r := range got {
					if want[r.Path] != r.TrafficPageDelta {
						t.Fatalf("window %v, %s: %+v, want %+v", w, r.Path, r.TrafficPageDelta, want[r.Path])
					}
				}
			}
		})
	}
}
