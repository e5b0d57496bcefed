package store_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"testing"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// subscribe stores an active subscription of ws to types.
func subscribe(t *testing.T, s *store.Store, ws string, types ...string) store.EventSubscription {
	t.Helper()
	sub := store.EventSubscription{WorkspaceID: ws, DisplayURL: "https://r.test/****", Format: "standard", Events: types, Sealed: "x"}
	if err := s.CreateEventSubscription(context.Background(), &sub); err != nil {
		t.Fatal(err)
	}
	return sub
}

// eventsOf returns the types of ws's stored events, oldest first, and the
// number of deliveries they made.
func eventsOf(t *testing.T, s *store.Store, ws string) ([]string, int) {
	t.Helper()
	ctx := context.Background()
	list, err := s.ListEvents(ctx, ws, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	types := make([]string, len(list))
	for i, e := range list {
		types[len(list)-1-i] = e.Type
	}
	var n int
	if err := storetest.QueryRow(ctx, s, `SELECT COUNT(*) FROM event_deliveries WHERE workspace_id = $1`, ws).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return types, n
}

func sameTypes(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestAnEventFansOutToTheSubscriptionsThatAskedAndIsGoneWithARolledBackTransaction(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		subscribe(t, s, "acme", catalog.ReportCompleted, catalog.ScheduleFailed)
		subscribe(t, s, "acme", catalog.ScheduleFailed)
		subscribe(t, s, "other", catalog.ReportCompleted)
		e := catalog.ReportDone("acme", false, catalog.Report{ReportID: "r1", WebsiteURL: "https://acme.test/"})
		if err := s.Tx(ctx, func(q store.Querier) error {
			_, err := s.EmitEvent(ctx, q, store.EventOf(e))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("the change failed")
		err := s.Tx(ctx, func(q store.Querier) error {
			if _, err := s.EmitEvent(ctx, q, store.EventOf(e)); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("rolled back transaction: %v", err)
		}
		types, deliveries := eventsOf(t, s, "acme")
		if !sameTypes(types, catalog.ReportCompleted) || deliveries != 1 {
			t.Fatalf("events %v, deliveries %d; want one report.completed delivered to the one subscription that asked", types, deliveries)
		}
		if types, n := eventsOf(t, s, "other"); len(types) != 0 || n != 0 {
			t.Fatalf("another workspace got %v (%d deliveries)", types, n)
		}
	})
}

func TestAScheduleOutcomeWritesItsEventOnceAndAStaleAttemptWritesNone(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		subscribe(t, s, "acme", catalog.SchedulePublished, catalog.ScheduleFailed)
		sc := newSchedule("acme", store.SchedulePending, ptr(int64(5)))
		if err := s.InsertSchedule(ctx, nil, sc); err != nil {
			t.Fatal(err)
		}
		first, _, _ := s.ClaimSchedule(ctx, "acme", sc.ID)
		second, _, _ := s.ReclaimSchedule(ctx, "acme", sc.ID, first.Attempts)
		failed := catalog.ScheduleFailure("acme", catalog.Schedule{ScheduleID: sc.ID, Destination: "webhook", Error: "late"})
		if ok, err := s.FinishSchedule(ctx, "acme", sc.ID, first.Attempts, store.ScheduleOutcome{Status: store.ScheduleFailed, Error: "late", Event: &failed}); err != nil || ok {
			t.Fatalf("stale attempt: %v %v", ok, err)
		}
		published := catalog.SchedulePublish("acme", catalog.Schedule{ScheduleID: sc.ID, Destination: "webhook"})
		if ok, err := s.FinishSchedule(ctx, "acme", sc.ID, second.Attempts, store.ScheduleOutcome{Status: store.SchedulePublished, Event: &published}); err != nil || !ok {
			t.Fatalf("owner: %v %v", ok, err)
		}
		if ok, _ := s.FinishSchedule(ctx, "acme", sc.ID, second.Attempts, store.ScheduleOutcome{Status: store.SchedulePublished, Event: &published}); ok {
			t.Fatal("a second outcome of the same attempt was recorded")
		}
		if types, n := eventsOf(t, s, "acme"); !sameTypes(types, catalog.SchedulePublished) || n != 1 {
			t.Fatalf("events %v (%d deliveries); want one schedule.published", types, n)
		}
	})
}

func TestAReportOutcomeWritesItsEventsWithIt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		subscribe(t, s, "acme", catalog.ReportFailed, catalog.TrackerRunCompleted)
		r := &store.VisibilityReport{WorkspaceID: "acme", WebsiteURL: "https://acme.test/", Input: `{}`, Engines: `[]`, CreditsMonth: "2026-11"}
		if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
			t.Fatal(err)
		}
		state, msg := store.ReportFailed, "boom"
		u := store.ReportUpdate{State: &state, Error: &msg, Events: []catalog.Event{
			catalog.ReportDone("acme", true, catalog.Report{ReportID: r.ID, Error: msg}),
		}}
		if err := s.UpdateVisibilityReport(ctx, "acme", r.ID, u); err != nil {
			t.Fatal(err)
		}
		// The same update of a report that is not the workspace's changes
		// nothing, so it reports nothing.
		if err := s.UpdateVisibilityReport(ctx, "acme", "missing", u); err != nil {
			t.Fatal(err)
		}
		if types, n := eventsOf(t, s, "acme"); !sameTypes(types, catalog.ReportFailed) || n != 1 {
			t.Fatalf("events %v (%d deliveries)", types, n)
		}
	})
}

func TestCreditsLowAndExhaustedHappenOnceAMonthAndNotForARolledBackReservation(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w, _, err := s.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
		if err != nil {
			t.Fatal(err)
		}
		ws := w.ID
		subscribe(t, s, ws, catalog.CreditsLow, catalog.CreditsExhausted)
		// A reservation that crosses 80% inside a transaction that rolls
		// back leaves no event.
		boom := errors.New("the report could not be queued")
		_ = s.Tx(ctx, func(q store.Querier) error {
			if _, _, err := creditstore.New(s).ReserveCreditsTx(ctx, q, ws, "2026-11", 9, 10); err != nil {
				return err
			}
			return boom
		})
		if types, _ := eventsOf(t, s, ws); len(types) != 0 {
			t.Fatalf("rolled back reservation left %v", types)
		}
		for _, n := range []int{7, 1, 1} { // 7: below 80%; 8: low; 9: nothing new
			if _, ok, err := creditstore.New(s).ReserveCredits(ctx, ws, "2026-11", n, 10); err != nil || !ok {
				t.Fatal(ok, err)
			}
		}
		_ = creditstore.New(s).RefundCredits(ctx, ws, "2026-11", 2) // back to 7, then over 80% again: still once
		for _, n := range []int{1, 2} {                             // 8 (low again: deduplicated), 10 (exhausted)
			if _, ok, err := creditstore.New(s).ReserveCredits(ctx, ws, "2026-11", n, 10); err != nil || !ok {
				t.Fatal(ok, err)
			}
		}
		if types, n := eventsOf(t, s, ws); !sameTypes(types, catalog.CreditsLow, catalog.CreditsExhausted) || n != 2 {
			t.Fatalf("events %v (%d deliveries); want credits.low then credits.exhausted, once each", types, n)
		}
	})
}

func TestARefusedConnectionWritesItsEventOnlyWhenTheConnectionExists(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		subscribe(t, s, "acme", catalog.ConnectionFailed)
		e := catalog.ConnectionFailure("acme", catalog.Connection{Destination: "wordpress", Message: "401"})
		if err := destinationstore.New(s).SetConnectionCheck(ctx, "acme", "wordpress", destinationstore.ConnectionCheck{Result: "failed"}, &e); err != nil {
			t.Fatal(err)
		}
		if types, _ := eventsOf(t, s, "acme"); len(types) != 0 {
			t.Fatalf("a missing connection reported %v", types)
		}
		if err := destinationstore.New(s).PutConnection(ctx, &destinationstore.Connection{WorkspaceID: "acme", Destination: "wordpress", Sealed: "x"}); err != nil {
			t.Fatal(err)
		}
		if err := destinationstore.New(s).SetConnectionCheck(ctx, "acme", "wordpress", destinationstore.ConnectionCheck{Result: "failed"}, &e); err != nil {
			t.Fatal(err)
		}
		if types, n := eventsOf(t, s, "acme"); !sameTypes(types, catalog.ConnectionFailed) || n != 1 {
			t.Fatalf("events %v (%d deliveries)", types, n)
		}
	})
}
