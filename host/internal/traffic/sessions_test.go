package traffic_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// Sessionize is pure: these tests need no store.

func TestSessionizeEngagedRules(t *testing.T) {
	t.Parallel()
	const at = int64(1_780_000_000_000)
	pv := func(session, path string) store.TrafficEvent {
		return store.TrafficEvent{SiteID: "site", Kind: store.TrafficPageview, SessionID: session, Path: path, Source: "chatgpt", DurationMs: -1, ScrollDepth: -1, At: at}
	}
	eng := func(session string, dur int64) store.TrafficEvent {
		return store.TrafficEvent{SiteID: "site", Kind: store.TrafficEngagement, SessionID: session, DurationMs: dur, ScrollDepth: -1, At: at}
	}
	for _, tc := range []struct {
		name    string
		events  []store.TrafficEvent
		engaged bool
	}{
		{"one pageview, short", []store.TrafficEvent{pv("a", "/"), eng("a", 9_999)}, false},
		{"one pageview, visible 10 s", []store.TrafficEvent{pv("a", "/"), eng("a", 10_000)}, true},
		{"second pageview", []store.TrafficEvent{pv("a", "/"), pv("a", "/b")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sessions := map[store.TrafficSessionKey]*store.TrafficSession{}
			b, out, err := traffic.Sessionize(tc.events, sessions)
			if err != nil {
				t.Fatal(err)
			}
			sess := sessions[store.TrafficSessionKey{SiteID: "site", SessionID: "a"}]
			if sess == nil || !sess.New || sess.Engaged != tc.engaged {
				t.Fatalf("session = %+v, want new, engaged %v", sess, tc.engaged)
			}
			for i, o := range out {
				if !o.Stored || o.Source != "chatgpt" {
					t.Errorf("outcome %d = %+v, want stored from chatgpt", i, o)
				}
			}
			engaged := int64(0)
			if tc.engaged {
				engaged = 1
			}
			if got := b.Rollups.Daily("site", store.Day(at), "chatgpt"); got.EngagedVisits != engaged || got.Visits != 1 {
				t.Errorf("daily rollup = %+v, want 1 visit, %d engaged", got, engaged)
			}
		})
	}
}

func TestSessionizeEngagementWithoutPageview(t *testing.T) {
	t.Parallel()
	stored := &store.TrafficSession{SiteID: "site", SessionID: "old", Source: "", LastEventID: "ev1", LastPath: "/x", LastScroll: -1}
	sessions := map[store.TrafficSessionKey]*store.TrafficSession{{SiteID: "site", SessionID: "old"}: stored}
	b, out, err := traffic.Sessionize([]store.TrafficEvent{
		{SiteID: "site", Kind: store.TrafficEngagement, SessionID: "none", DurationMs: 5000, ScrollDepth: -1},
		{SiteID: "site", Kind: store.TrafficEngagement, SessionID: "old", Path: "/other", DurationMs: 5000, ScrollDepth: -1},
		{SiteID: "site", Kind: store.TrafficEngagement, SessionID: "old", Path: "/x", DurationMs: 5000, ScrollDepth: 40},
	}, sessions)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Stored || out[1].Stored || !out[2].Stored {
		t.Fatalf("outcomes = %+v, want only the engagement of the stored pageview's path stored", out)
	}
	if len(b.Inserts) != 0 || len(b.Updates) != 1 || b.Updates[0] != (store.TrafficEventUpdate{ID: "ev1", SiteID: "site", DurationMs: 5000, ScrollDepth: 40}) {
		t.Fatalf("inserts %v, updates %+v: want one update of ev1", b.Inserts, b.Updates)
	}
	if !stored.Dirty || stored.DurationMs != 5000 {
		t.Fatalf("session = %+v, want dirty with 5000 ms", stored)
	}
}
