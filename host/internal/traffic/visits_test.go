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

// DailyVisits, what a tracker's trend asks: the visits per day and source
// of the workspace's site on the registrable domain, within the window;
// another domain or another workspace gets no site.
func TestDailyVisitsAreTheTrackedDomainsWithinTheWindow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		ctx := context.Background()
		site, err := st.TrafficSiteByKey(ctx, b.siteKey())
		if err != nil {
			t.Fatal(err)
		}
		today := time.Now().UTC().Truncate(24 * time.Hour).Add(time.Hour)
		var events []store.TrafficEvent
		visit := func(at time.Time, source string, n int) {
			for i := 0; i < n; i++ {
				events = append(events, store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, Path: "/",
					SessionID: fmt.Sprintf("%d-%s-%d", at.Unix(), source, i), Source: source, DurationMs: -1, ScrollDepth: -1, At: at.UnixMilli()})
			}
		}
		visit(today.AddDate(0, 0, -5), "chatgpt", 4) // before the window
		visit(today.AddDate(0, 0, -1), "chatgpt", 2)
		visit(today, "claude", 1)
		if _, err := traffic.Record(ctx, st, events); err != nil {
			t.Fatal(err)
		}
		svc, err := traffic.New(traffic.Deps{Store: st, Writer: b.writer, BaseURL: "http://herald.test"})
		if err != nil {
			t.Fatal(err)
		}
		firstDay := today.Unix()/86400 - 2
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
