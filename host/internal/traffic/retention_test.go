package traffic_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/internal/testwait"
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
	if _, err := traffic.Record(ctx, s, []store.TrafficEvent{pv("old", 20*24*time.Hour), pv("new", 2*24*time.Hour)}); err != nil {
		t.Fatal(err)
	}
	oldDay := store.Day(now.Add(-20 * 24 * time.Hour).UnixMilli())
	rollups := func() []store.TrafficDailyRow {
		rows, err := s.TrafficDaily(ctx, site.ID, oldDay-1, store.Day(now.UnixMilli()))
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	before := rollups()
	r := &traffic.Retention{Store: s, Keep: 10 * 24 * time.Hour, Every: time.Hour, Logger: hclog.NewNullLogger(), Now: func() time.Time { return now }}
	events, sessions, err := r.PruneOnce(ctx)
	if err != nil || events != 1 || sessions != 1 {
		t.Fatalf("pruned %d events and %d sessions (%v); want the old one of each", events, sessions, err)
	}
	if n, _ := s.TrafficEventCount(ctx, site.ID, store.TrafficPageview); n != 1 {
		t.Fatalf("%d pageviews left, want 1", n)
	}

	// The loop prunes at its start, not only after Every (an hour here):
	// a host that restarts more often than hourly still prunes.
	if _, err := traffic.Record(ctx, s, []store.TrafficEvent{pv("old2", 15*24*time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.TrafficEventCount(ctx, site.ID, store.TrafficPageview); n != 2 {
		t.Fatalf("%d pageviews before the loop, want 2", n)
	}
	r.Start()
	var n int64
	pruned := func() bool {
		var err error
		if n, err = s.TrafficEventCount(ctx, site.ID, store.TrafficPageview); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if err := testwait.Until(10*time.Second, pruned); err != nil {
		t.Fatalf("the started pruner left %d pageviews after 10s, want 1", n)
	}
	r.Stop()

	// Rollups stay: stats over the pruned days do not change (the second
	// old event added its own day's rollup).
	after := rollups()
	if len(after) != len(before)+1 {
		t.Fatalf("rollup rows %d before pruning, %d after (want one more, for the event added in between)", len(before), len(after))
	}
	for _, row := range after {
		if row.Day == oldDay && row.Pageviews != 1 {
			t.Fatalf("the pruned day's rollup changed: %+v", row)
		}
	}
}
