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
		site, at := trafficSiteAtNoon(t, s)
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

// TestRecordTrafficStoresEveryColumnOfEveryShape records, in one batch,
// the rows the writer inserts with constant columns (plain pageviews, new
// sessions holding only their first pageview) next to those it binds in
// full (pageviews with a bot or UTM tags, crawler hits, sessions with a
// second pageview or engagement), and reads every column back: a constant
// written for a row that does not have it would show here.
func TestRecordTrafficStoresEveryColumnOfEveryShape(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		site, at := trafficSiteAtNoon(t, s)
		ev := func(kind store.TrafficKind, session, path string, at int64) store.TrafficEvent {
			return store.TrafficEvent{SiteID: site.ID, Kind: kind, SessionID: session, Path: path, Title: "T " + path,
				Referrer: "https://r.test" + path, UserAgent: "UA " + path, DurationMs: 0, ScrollDepth: -1, At: at}
		}
		plain := ev(store.TrafficPageview, "plain", "/plain", at)
		plain.Source = "chatgpt"
		utm := ev(store.TrafficPageview, "utm", "/utm", at+1)
		utm.UTMSource, utm.UTMMedium, utm.UTMCampaign = "news", "email", "spring"
		medium := ev(store.TrafficPageview, "medium", "/medium", at+2)
		medium.UTMMedium = "cpc"
		crawler := ev(store.TrafficCrawler, "", "/crawled", at+3)
		crawler.Bot = "GPTBot"
		twice1 := ev(store.TrafficPageview, "twice", "/one", at+4)
		twice2 := ev(store.TrafficPageview, "twice", "/two", at+5)
		engaged := ev(store.TrafficPageview, "engaged", "/engaged", at+6)
		update := ev(store.TrafficEngagement, "engaged", "/engaged", at+7)
		update.DurationMs, update.ScrollDepth = 12000, 70
		if _, err := traffic.Record(ctx, s, []store.TrafficEvent{plain, utm, medium, crawler, twice1, twice2, engaged, update}); err != nil {
			t.Fatal(err)
		}

		events, err := s.TrafficEvents(ctx, site.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		engaged.DurationMs, engaged.ScrollDepth = 12000, 70
		want := []store.TrafficEvent{plain, utm, medium, crawler, twice1, twice2, engaged}
		if len(events) != len(want) {
			t.Fatalf("%d events stored, want %d", len(events), len(want))
		}
		for i, e := range events {
			if e.TrafficEvent != want[i] {
				t.Errorf("event %d stored as\n %+v\nwant\n %+v", i, e.TrafficEvent, want[i])
			}
		}
		ids := map[string]string{} // path → event id
		for _, e := range events {
			ids[e.Path] = e.ID
		}

		day := store.Day(at)
		var got []string
		err = storetest.Query(ctx, s, func(r store.Row) error {
			var x store.TrafficSession
			if err := r.Scan(&x.SessionID, &x.Source, &x.Day, &x.StartedAt, &x.Pageviews, &x.DurationMs, &x.Engaged,
				&x.LastEventID, &x.LastPath, &x.LastDay, &x.LastDurationMs, &x.LastScroll, &x.UpdatedAt); err != nil {
				return err
			}
			got = append(got, fmt.Sprintf("%s %q %d %d %d %d %t %t %s %d %d %d %d", x.SessionID, x.Source, x.Day-day, x.StartedAt-at,
				x.Pageviews, x.DurationMs, x.Engaged, x.LastEventID == ids[x.LastPath], x.LastPath, x.LastDay-day, x.LastDurationMs,
				x.LastScroll, x.UpdatedAt-at))
			return nil
		}, `SELECT session_id, source, day, started_at, pageviews, duration_ms, engaged, last_event_id, last_path, last_day,
			last_duration_ms, last_scroll, updated_at FROM traffic_sessions WHERE site_id = $1 ORDER BY session_id`, site.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkSessions := []string{
			`engaged "" 0 6 1 12000 true true /engaged 0 12000 70 7`,
			`medium "" 0 2 1 0 false true /medium 0 0 -1 2`,
			`plain "chatgpt" 0 0 1 0 false true /plain 0 0 -1 0`,
			`twice "" 0 4 2 0 true true /two 0 0 -1 5`,
			`utm "" 0 1 1 0 false true /utm 0 0 -1 1`,
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", checkSessions) {
			t.Errorf("sessions\n %q\nwant\n %q", got, checkSessions)
		}
	})
}

// trafficSiteAtNoon is a new site of s, and the store's clock stopped at
// noon UTC on 2026-03-30, epoch ms.
func trafficSiteAtNoon(t *testing.T, s *store.Store) (store.TrafficSite, int64) {
	t.Helper()
	at := time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC).UnixMilli()
	s.SetClock(func() time.Time { return time.UnixMilli(at) })
	return trafficSite(t, s), at
}
