package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// TestRecordTrafficBatchesOfEverySize records batches whose row counts are
// and are not powers of two, and larger than one statement holds (the
// writer splits its multi-row statements by row count), with sessions seen
// before and pages upserted again, and checks every count.
func TestRecordTrafficBatchesOfEverySize(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		site := trafficSite(t, s)
		at := time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC).UnixMilli()
		s.SetClock(func() time.Time { return time.UnixMilli(at) })
		day := store.Day(at)
		var events, visits, aiViews int64
		paths := map[string]bool{}
		for round, n := range []int{1, 2, 3, 5, 7, 8, 9, 15, 17, 27, 33, 63, 65, 70, 130} {
			batch := make([]store.TrafficEvent, n)
			for i := range batch {
				// Every third event continues the session of the
				// previous round's event i (a second pageview).
				session := fmt.Sprintf("r%d-%d", round, i)
				if round > 0 && i%3 == 0 {
					session = fmt.Sprintf("r%d-%d", round-1, i)
				}
				source := ""
				if i%2 == 0 {
					source = "chatgpt"
				}
				path := fmt.Sprintf("/p/%d", (round*7+i)%90)
				batch[i] = store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, SessionID: session, Path: path,
					Source: source, DurationMs: 0, ScrollDepth: -1, At: at}
				paths[path] = true
			}
			out, err := traffic.Record(ctx, s, batch)
			if err != nil {
				t.Fatalf("batch of %d: %v", n, err)
			}
			for i, o := range out {
				if !o.Stored {
					t.Fatalf("batch of %d: event %d not stored", n, i)
				}
				if o.Source == "chatgpt" {
					aiViews++
				}
			}
			events += int64(n)
			stored, err := s.TrafficEventCount(ctx, site.ID, store.TrafficPageview)
			if err != nil || stored != events {
				t.Fatalf("after a batch of %d: %d events stored, want %d (%v)", n, stored, events, err)
			}
		}
		daily, err := s.TrafficDaily(ctx, site.ID, day, day)
		if err != nil {
			t.Fatal(err)
		}
		var sum store.TrafficDailyDelta
		for _, r := range daily {
			sum.Add(r.TrafficDailyDelta)
		}
		stored, err := s.TrafficEvents(ctx, site.ID, 10000)
		if err != nil {
			t.Fatal(err)
		}
		sessions := map[string]bool{}
		for _, e := range stored {
			sessions[e.SessionID] = true
		}
		visits = int64(len(sessions))
		if sum.Pageviews != events || sum.Visits != visits {
			t.Errorf("daily rollups: %d pageviews, %d visits; want %d, %d", sum.Pageviews, sum.Visits, events, visits)
		}
		pages, err := s.TrafficTopPages(ctx, site.ID, day, day, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var pageViews int64
		for _, p := range pages {
			pageViews += p.AIPageviews
		}
		if pageViews != aiViews {
			t.Errorf("page rollups: %d AI pageviews, want %d", pageViews, aiViews)
		}
	})
}
