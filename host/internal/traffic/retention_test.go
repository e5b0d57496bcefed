package traffic_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

func TestRetentionPrunesOnlyEventsOlderThanKeep(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := context.Background()
	ws, _, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	site, _, err := s.CreateTrafficSite(ctx, store.TrafficSite{WorkspaceID: ws.ID, SiteKey: "ks_retention", Domain: "acme.test", Name: "Acme", IsActive: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	pv := func(session string, age time.Duration) store.TrafficEvent {
		return store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, SessionID: session, Path: "/", ScrollDepth: -1, DurationMs: -1, At: now.Add(-age).UnixMilli()}
	}
	if _, err := s.RecordTraffic(ctx, []store.TrafficEvent{pv("old", 20*24*time.Hour), pv("new", 2*24*time.Hour)}); err != nil {
		t.Fatal(err)
	}
	r := &traffic.Retention{Store: s, Keep: 10 * 24 * time.Hour, Every: time.Hour, Logger: hclog.NewNullLogger(), Now: func() time.Time { return now }}
	events, sessions, err := r.PruneOnce(ctx)
	if err != nil || events != 1 || sessions != 1 {
		t.Fatalf("pruned %d events and %d sessions (%v); want the old one of each", events, sessions, err)
	}
	if n, _ := s.TrafficEventCount(ctx, site.ID, store.TrafficPageview); n != 1 {
		t.Fatalf("%d pageviews left, want 1", n)
	}
	r.Start()
	r.Stop()
}
