package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

func trafficSite(t testing.TB, s *store.Store) store.TrafficSite {
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
		if list, err := s.ListTrafficSites(ctx, site.WorkspaceID); err != nil || len(list) != 1 || list[0].ID != site.ID {
			t.Fatalf("ListTrafficSites = %+v %v", list, err)
		}
		if list, err := s.ListTrafficSites(ctx, "other"); err != nil || len(list) != 0 {
			t.Fatalf("another workspace's sites: %+v %v", list, err)
		}
		// A creation time given is kept; a missing one is the store's now.
		s.SetClock(func() time.Time { return time.UnixMilli(7777) })
		for key, at := range map[string]int64{"ks_then": 20, "ks_now": 0} {
			got, created, err := s.CreateTrafficSite(ctx, store.TrafficSite{WorkspaceID: site.WorkspaceID, SiteKey: key, Domain: key + ".test", CreatedAt: at})
			if want := map[string]int64{"ks_then": 20, "ks_now": 7777}[key]; err != nil || !created || got.CreatedAt != want {
				t.Fatalf("site %s: %+v %v %v, want created at %d", key, got, created, err, want)
			}
			if stored, err := s.TrafficSiteByKey(ctx, key); err != nil || stored.CreatedAt != got.CreatedAt {
				t.Fatalf("stored site %s: %+v %v", key, stored, err)
			}
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
		out, err := traffic.Record(ctx, s, []store.TrafficEvent{
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
		out, err = traffic.Record(ctx, s, []store.TrafficEvent{
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

func TestTrafficTopPagesCountsEveryDayOfTheWindowOnce(t *testing.T) {
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
		// A window that ends before today leaves out the days after it.
		pages, _ := s.TrafficTopPages(ctx, site.ID, today-59, today-20, 5)
		if len(pages) != 1 || pages[0].AIPageviews != 40 {
			t.Errorf("past window: %+v, want 40", pages)
		}
	})
}

// TestTrafficTopPagesMatchesDayByDaySums compares top pages over many
// windows with sums of the same data day by day: windows of 1 to 365 days
// ending today or earlier, starting on and just off block boundaries.
func TestTrafficTopPagesMatchesDayByDaySums(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		site := trafficSite(t, s)
		// Epoch day 20735 = 81*256 - 1: today is the last day of a
		// 256-day block, tomorrow starts the next one.
		today := int64(20735)
		s.SetClock(func() time.Time { return time.Unix(today*86400+3600, 0) })
		rng := rand.New(rand.NewPCG(7, 8))
		type dayPage struct {
			day  int64
			path string
		}
		views := map[dayPage]int64{}
		r := store.NewTrafficRollups()
		for d := today - 800; d <= today; d++ {
			for p := 0; p < 6; p++ {
				if rng.IntN(3) == 0 {
					continue
				}
				n := int64(1 + rng.IntN(5))
				path := fmt.Sprintf("/p%d", p)
				views[dayPage{d, path}] += n
				r.AddPage(site.ID, d, path, store.TrafficPageDelta{AIVisits: 1, AIPageviews: n, AIDurationMs: 10 * n})
			}
		}
		if err := s.AddTrafficRollups(ctx, r); err != nil {
			t.Fatal(err)
		}
		check := func(from, to int64) {
			t.Helper()
			want := map[string]int64{}
			for k, n := range views {
				if k.day >= from && k.day <= to {
					want[k.path] += n
				}
			}
			pages, err := s.TrafficTopPages(ctx, site.ID, from, to, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(pages) != len(want) {
				t.Fatalf("days %d..%d: %d pages, want %d", from, to, len(pages), len(want))
			}
			for i, p := range pages {
				if p.AIPageviews != want[p.Path] || p.AIDurationMs != 10*want[p.Path] {
					t.Errorf("days %d..%d: %s has %d pageviews, want %d", from, to, p.Path, p.AIPageviews, want[p.Path])
				}
				if i > 0 && pages[i-1].AIPageviews < p.AIPageviews {
					t.Errorf("days %d..%d: not sorted: %+v", from, to, pages)
				}
			}
		}
		for _, days := range []int64{1, 2, 3, 4, 5, 7, 15, 16, 17, 63, 64, 65, 200, 255, 256, 257, 300, 364, 365} {
			check(today-days+1, today) // ending today
		}
		for _, to := range []int64{today - 1, today - 3, today - 130, today - 255, today - 256, today - 257} {
			for _, days := range []int64{1, 6, 30, 100, 365} {
				check(to-days+1, to) // ending in the past
			}
		}
		for i := 0; i < 40; i++ {
			to := today - int64(rng.IntN(400))
			check(to-int64(rng.IntN(365)), to)
		}
		// Tomorrow starts a new 256-day block.
		s.SetClock(func() time.Time { return time.Unix((today+1)*86400+3600, 0) })
		check(today-363, today+1)
	})
}

func TestPruneTrafficKeepsRollupsAndRecentEvents(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		site := trafficSite(t, s)
		day0 := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC).UnixMilli()
		s.SetClock(func() time.Time { return time.UnixMilli(day0 + 40*86_400_000) })
		pv := func(session string, at int64) store.TrafficEvent {
			return store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, SessionID: session, Path: "/", Source: "chatgpt", ScrollDepth: -1, At: at}
		}
		// "old" has only old pageviews; "both" was seen then and 30 days later.
		if _, err := traffic.Record(ctx, s, []store.TrafficEvent{pv("old", day0), pv("both", day0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := traffic.Record(ctx, s, []store.TrafficEvent{pv("both", day0+30*86_400_000)}); err != nil {
			t.Fatal(err)
		}
		d0 := store.Day(day0)
		events, sessions, err := s.PruneTraffic(ctx, d0+1)
		if err != nil || events != 2 || sessions != 1 {
			t.Fatalf("pruned %d events, %d sessions, %v; want 2, 1", events, sessions, err)
		}
		if n, _ := s.TrafficEventCount(ctx, site.ID, store.TrafficPageview); n != 1 {
			t.Errorf("%d pageviews left, want the recent one", n)
		}
		// The session that went on keeps counting as one visit.
		if _, err := traffic.Record(ctx, s, []store.TrafficEvent{pv("both", day0+31*86_400_000)}); err != nil {
			t.Fatal(err)
		}
		daily, err := s.TrafficDaily(ctx, site.ID, d0, d0+40)
		if err != nil || len(daily) != 1 || daily[0].Visits != 2 || daily[0].Pageviews != 4 {
			t.Errorf("rollups after pruning: %+v %v", daily, err)
		}
		pages, err := s.TrafficTopPages(ctx, site.ID, d0, d0+40, 5)
		if err != nil || len(pages) != 1 || pages[0].AIPageviews != 4 {
			t.Errorf("top pages after pruning: %+v %v", pages, err)
		}

		// One event more than a prune statement deletes: pruning goes on
		// until a statement deletes fewer.
		_, err = storetest.Exec(ctx, s, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5001)
			INSERT INTO traffic_events (id, site_id, kind, session_id, day, path, title, referrer, source, bot,
				utm_source, utm_medium, utm_campaign, user_agent, duration_ms, scroll_depth, created_at)
			SELECT 'bulk' || CAST(i AS TEXT), CAST($1 AS TEXT), 'crawler', '', CAST($2 AS BIGINT), '/', '', '', '', 'GPTBot', '', '', '', '', -1, -1, 0 FROM n`,
			site.ID, d0)
		if err != nil {
			t.Fatal(err)
		}
		if events, _, err := s.PruneTraffic(ctx, d0+1); err != nil || events != 5001 {
			t.Fatalf("pruned %d of 5001 old events: %v", events, err)
		}
		if n, _ := s.TrafficEventCount(ctx, site.ID, store.TrafficCrawler); n != 0 {
			t.Errorf("%d old crawler hits left", n)
		}
	})
}
