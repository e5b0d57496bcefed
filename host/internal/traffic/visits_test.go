package traffic_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// pageviews are n pageviews of the site at at from source, each its own
// session.
func pageviews(siteID string, at time.Time, source string, n int) []store.TrafficEvent {
	var out []store.TrafficEvent
	for i := 0; i < n; i++ {
		out = append(out, store.TrafficEvent{SiteID: siteID, Kind: store.TrafficPageview, Path: "/",
			SessionID: fmt.Sprintf("%d-%s-%d", at.Unix(), source, i), Source: source, DurationMs: -1, ScrollDepth: -1, At: at.UnixMilli()})
	}
	return out
}

// DailyVisits, what a tracker's trend asks: the visits per day and source
// of the workspace's site on the registrable domain, within the window;
// another domain or another workspace gets no site.
func TestDailyVisitsAreTheTrackedDomainsWithinTheWindow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b, ctx := setup(t, st), context.Background()
		site, err := st.TrafficSiteByKey(ctx, b.siteKey())
		if err != nil {
			t.Fatal(err)
		}
		day := time.Now().UTC().Truncate(24 * time.Hour).Add(time.Hour)
		events := append(pageviews(site.ID, day.AddDate(0, 0, -5), "chatgpt", 4), // before the window
			append(pageviews(site.ID, day.AddDate(0, 0, -1), "chatgpt", 2), pageviews(site.ID, day, "claude", 1)...)...)
		if _, err := traffic.Record(ctx, st, events); err != nil {
			t.Fatal(err)
		}
		svc, err := traffic.New(traffic.Deps{Store: st, Writer: b.writer, BaseURL: "http://herald.test"})
		if err != nil {
			t.Fatal(err)
		}
		firstDay := day.Unix()/86400 - 2
		id, visits, err := svc.DailyVisits(ctx, b.ws.ID, "acme.test", firstDay, 3)
		if err != nil || id != site.ID {
			t.Fatalf("site %q, %v; want %q", id, err, site.ID)
		}
		if got := fmt.Sprint(visits); got != fmt.Sprintf("map[%d:map[chatgpt:2] %d:map[claude:1]]", firstDay+1, firstDay+2) {
			t.Errorf("visits = %s", got)
		}
		for _, tc := range []struct{ ws, domain string }{{b.ws.ID, "globex.test"}, {"another-workspace", "acme.test"}} {
			if id, visits, err := svc.DailyVisits(ctx, tc.ws, tc.domain, firstDay, 3); id != "" || visits != nil || err != nil {
				t.Errorf("%s %s: site %q, %v, %v; want none", tc.ws, tc.domain, id, visits, err)
			}
		}
	})
}
