package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func trafficSite(t *testing.T, s *store.Store) store.TrafficSite {
	t.Helper()
	ctx := context.Background()
	ws, _, err := s.EnsureWorkspaceUser(ctx, "acme", "business", "o@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	site, created, err := s.CreateTrafficSite(ctx, store.TrafficSite{WorkspaceID: ws.ID, SiteKey: "ks_a", Domain: "acme.test", Name: "Acme", IsActive: true})
	if err != nil || !created {
		t.Fatalf("create site: %v %v", created, err)
	}
	return site
}

func TestTrafficSitesAreUniquePerWorkspaceDomain(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		site := trafficSite(t, s)
		again, created, err := s.CreateTrafficSite(ctx, store.TrafficSite{WorkspaceID: site.WorkspaceID, SiteKey: "ks_b", Domain: "acme.test", Name: "x", IsActive: true})
		if err != nil || created || again.ID != site.ID || again.SiteKey != "ks_a" {
			t.Fatalf("duplicate domain: %+v created=%v err=%v", again, created, err)
		}
		got, err := s.TrafficSiteByKey(ctx, "ks_a")
		if err != nil || got.ID != site.ID {
			t.Fatalf("by key: %+v %v", got, err)
		}
		if err := s.SetTrafficSiteActive(ctx, site.WorkspaceID, site.ID, false); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.TrafficSiteByKey(ctx, "ks_a"); got.IsActive {
			t.Fatal("site still active")
		}
		if err := s.SetTrafficSiteActive(ctx, "other", site.ID, true); err != store.ErrNotFound {
			t.Fatalf("another workspace's site: %v, want ErrNotFound", err)
		}
	})
}

func TestRecordTraffic(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		site := trafficSite(t, s)
		day0 := time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC).UnixMilli()
		s.SetClock(func() time.Time { return time.UnixMilli(day0 + 3*86_400_000) })
		pv := func(session, path, source string, at int64) store.TrafficEvent {
			return store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, SessionID: session, Path: path, Source: source, DurationMs: 0, ScrollDepth: -1, At: at}
		}
		eng := func(session, path string, dur int64, scroll int, at int64) store.TrafficEvent {
			return store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficEngagement, SessionID: session, Path: path, DurationMs: dur, ScrollDepth: scroll, At: at}
		}
		// Batch 1: a ChatGPT visit with an engagement update in the same
		// batch, a direct visit, a crawler hit and an orphan update.
		out, err := s.RecordTraffic(ctx, []store.TrafficEvent{
			pv("a", "/docs", "chatgpt", day0),
			eng("a", "/docs", 4000, 30, day0+1),
			pv("b", "/", "", day0),
			{SiteID: site.ID, Kind: store.TrafficCrawler, Bot: "GPTBot", Path: "/docs", DurationMs: 0, ScrollDepth: -1, At: day0},
			eng("ghost", "/", 100, 10, day0),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !out[0].Stored || out[0].Source != "chatgpt" || !out[1].Stored || out[1].Source != "chatgpt" || out[4].Stored {
			t.Fatalf("outcomes: %+v", out)
		}
		// Batch 2, next day: the session goes on (its source stays ChatGPT
		// although this pageview came from no AI), the older pageview's
		// engagement grows, a stale update for another path is ignored.
		out, err = s.RecordTraffic(ctx, []store.TrafficEvent{
			eng("a", "/docs", 12000, 20, day0+86_400_000),
			pv("a", "/pricing", "", day0+86_400_000),
			eng("a", "/docs", 99000, 99, day0+86_400_000),
			eng("a", "/pricing", 3000, 50, day0+86_400_000),
		})
		if err != nil {
			t.Fatal(err)
		}
		if out[1].Source != "chatgpt" || out[2].Stored || !out[3].Stored {
			t.Fatalf("outcomes: %+v", out)
		}

		d0 := store.Day(day0)
		daily, err := s.TrafficDaily(ctx, site.ID, d0, d0+3)
		if err != nil {
			t.Fatal(err)
		}
		byKey := map[string]store.TrafficDailyDelta{}
		for _, r := range daily {
			if r.Day != d0 {
				t.Errorf("a visit's numbers belong to its start day: %+v", r)
			}
			byKey[r.Source] = r.TrafficDailyDelta
		}
		want := store.TrafficDailyDelta{Visits: 1, Pageviews: 2, EngagedVisits: 1, DurationMs: 15000, ScrollSum: 80, ScrollCount: 2}
		if byKey["chatgpt"] != want {
			t.Errorf("chatgpt rollup %+v, want %+v", byKey["chatgpt"], want)
		}
		if byKey[""] != (store.TrafficDailyDelta{Visits: 1, Pageviews: 1}) {
			t.Errorf("direct rollup %+v", byKey[""])
		}
		pages, err := s.TrafficTopPages(ctx, site.ID, d0, d0+3, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(pages) != 2 || pages[0].Path != "/docs" || pages[0].TrafficPageDelta != (store.TrafficPageDelta{AIVisits: 1, AIPageviews: 1, AIDurationMs: 12000}) ||
			pages[1].TrafficPageDelta != (store.TrafficPageDelta{AIPageviews: 1, AIDurationMs: 3000}) {
			t.Errorf("pages: %+v", pages)
		}
		crawlers, err := s.TrafficCrawlers(ctx, site.ID, d0, d0+3)
		if err != nil || len(crawlers) != 1 || crawlers[0] != (store.TrafficCrawlerRow{Day: d0, Bot: "GPTBot", Hits: 1}) {
			t.Errorf("crawlers: %+v %v", crawlers, err)
		}
		events, err := s.TrafficEvents(ctx, site.ID, 100)
		if err != nil || len(events) != 4 {
			t.Fatalf("events: %d %v", len(events), err)
		}
		for _, e := range events {
			if e.Path == "/docs" && e.Kind == store.TrafficPageview && (e.DurationMs != 12000 || e.ScrollDepth != 30) {
				t.Errorf("the pageview keeps its engagement: %+v", e)
			}
		}
	})
}

func TestTrafficTopPagesMixesMonthAndDayRows(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		site := trafficSite(t, s)
		today := store.Day(time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC).UnixMilli())
		s.SetClock(func() time.Time { return time.Unix(today*86400+3600, 0) })
		r := store.NewTrafficRollups()
		// One AI pageview of /p on each of the last 100 days.
		for d := today - 99; d <= today; d++ {
			r.AddPage(site.ID, d, "/p", store.TrafficPageDelta{AIPageviews: 1})
		}
		if err := s.AddTrafficRollups(ctx, r); err != nil {
			t.Fatal(err)
		}
		for _, days := range []int64{1, 9, 10, 11, 40, 41, 70, 100, 365} {
			pages, err := s.TrafficTopPages(ctx, site.ID, today-days+1, today, 5)
			if err != nil {
				t.Fatal(err)
			}
			want := min(days, 100)
			if len(pages) != 1 || pages[0].AIPageviews != want {
				t.Errorf("%d days: %+v, want %d pageviews", days, pages, want)
			}
		}
		// A window that ends before today uses day rows at its end.
		pages, _ := s.TrafficTopPages(ctx, site.ID, today-59, today-20, 5)
		if len(pages) != 1 || pages[0].AIPageviews != 40 {
			t.Errorf("past window: %+v, want 40", pages)
		}
	})
}
