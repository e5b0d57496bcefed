package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A transaction's events written at once: each event is stored exactly
// when its transaction commits, with exactly one delivery per active
// subscription of its own workspace that asked for its type; an event
// whose dedupe key had happened (before, or earlier in the same batch) is
// not written and makes no delivery.
func TestEventsWrittenTogetherFanOutOncePerSubscriptionAndOnlyWhenCommitted(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		both := subscribe(t, s, "acme", catalog.ReportCompleted, catalog.CreditsLow)
		subscribe(t, s, "acme", catalog.ReportCompleted)
		paused := subscribe(t, s, "acme", catalog.ReportCompleted)
		if _, err := storetest.Exec(ctx, s, `UPDATE event_subscriptions SET state = 'paused' WHERE id = $1`, paused.ID); err != nil {
			t.Fatal(err)
		}
		subscribe(t, s, "other", catalog.ReportCompleted, catalog.CreditsLow)
		report := func(ws string, i int) *store.Event {
			return store.EventOf(catalog.ReportDone(ws, false, catalog.Report{ReportID: fmt.Sprintf("r%d", i), WebsiteURL: "https://acme.test/"}))
		}
		low := func(ws string) *store.Event {
			return &store.Event{WorkspaceID: ws, Type: catalog.CreditsLow, DedupeKey: "credits.low:2026-12", Data: "{}", Link: "/credits"}
		}
		emit := func(events ...*store.Event) (int, error) {
			var n int
			err := s.Tx(ctx, func(q store.Querier) error {
				var err error
				n, err = s.EmitEvents(ctx, q, events)
				return err
			})
			return n, err
		}
		// Rolled back: nothing of it stays.
		boom := errors.New("the change failed")
		if err := s.Tx(ctx, func(q store.Querier) error {
			if _, err := s.EmitEvents(ctx, q, []*store.Event{report("acme", 0), low("acme")}); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Fatalf("rolled back transaction: %v", err)
		}
		if types, n := eventsOf(t, s, "acme"); len(types) != 0 || n != 0 {
			t.Fatalf("a rolled-back transaction left events %v and %d deliveries", types, n)
		}
		// More events than one statement writes, two workspaces, a dedupe
		// key twice in the batch.
		var batch []*store.Event
		for i := range 300 {
			batch = append(batch, report("acme", i))
		}
		batch = append(batch, low("acme"), low("acme"), report("other", 1))
		n, err := emit(batch...)
		if err != nil || n != 302 {
			t.Fatalf("wrote %d events (%v), want 302", n, err)
		}
		if n, err := emit(low("acme"), low("other")); err != nil || n != 1 {
			t.Fatalf("second month's batch wrote %d (%v), want only other's credits.low", n, err)
		}
		count := func(where string, args ...any) int {
			var c int
			if err := storetest.QueryRow(ctx, s, `SELECT COUNT(*) FROM event_deliveries WHERE `+where, args...).Scan(&c); err != nil {
				t.Fatal(err)
			}
			return c
		}
		if got := count(`workspace_id = $1`, "acme"); got != 300*2+1 {
			t.Fatalf("acme has %d deliveries, want 601 (300 reports to 2 active subscriptions, credits.low to 1)", got)
		}
		if got := count(`workspace_id = $1`, "other"); got != 2 {
			t.Fatalf("other has %d deliveries, want 2", got)
		}
		if got := count(`subscription_id = $1`, paused.ID); got != 0 {
			t.Fatalf("a paused subscription got %d deliveries", got)
		}
		if got := count(`subscription_id = $1 AND event_id IN (SELECT id FROM events WHERE type = $2)`, both.ID, catalog.CreditsLow); got != 1 {
			t.Fatalf("credits.low delivered %d times to its subscription, want 1", got)
		}
		if got := count(`id <> event_id || '_' || subscription_id OR state <> 'pending'`); got != 0 {
			t.Fatalf("%d deliveries are not pending under the event and subscription id", got)
		}
	})
}

// A claim's outcomes recorded together: each success is written only for
// the claim that still holds the delivery, and a success clears its
// subscription's failing_since; a failure then sets it again.
func TestAClaimsOutcomesAreWrittenOnlyWhileItHoldsThemAndSuccessesClearFailingSince(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ok := subscribe(t, s, "acme", catalog.ReportCompleted)
		mixed := subscribe(t, s, "acme", catalog.CreditsLow)
		if _, err := storetest.Exec(ctx, s, `UPDATE event_subscriptions SET failing_since = 1`); err != nil {
			t.Fatal(err)
		}
		var batch []*store.Event
		for i := range 4 {
			batch = append(batch, store.EventOf(catalog.ReportDone("acme", false, catalog.Report{ReportID: fmt.Sprintf("r%d", i), WebsiteURL: "https://acme.test/"})))
		}
		batch = append(batch, &store.Event{WorkspaceID: "acme", Type: catalog.CreditsLow, Data: "{}", Link: "/"},
			&store.Event{WorkspaceID: "acme", Type: catalog.CreditsLow, Data: "{}", Link: "/"})
		if err := s.Tx(ctx, func(q store.Querier) error { _, err := s.EmitEvents(ctx, q, batch); return err }); err != nil {
			t.Fatal(err)
		}
		claimed, err := s.ClaimEventDeliveries(ctx, "claim-1", s.Now()+60_000, 100)
		if err != nil || len(claimed) != 6 {
			t.Fatalf("claimed %d (%v), want 6", len(claimed), err)
		}
		// Another claim took one of the report deliveries (the first
		// claim's lease ended).
		var stolen string
		for _, c := range claimed {
			if c.SubscriptionID == ok.ID {
				stolen = c.ID
				break
			}
		}
		if _, err := storetest.Exec(ctx, s, `UPDATE event_deliveries SET lease_owner = 'claim-2', attempts = attempts + 1 WHERE id = $1`, stolen); err != nil {
			t.Fatal(err)
		}
		code := 204
		var results []store.DeliveryResult
		failedOnce := false
		for _, c := range claimed {
			o := store.DeliveryOutcome{State: store.DeliveryDelivered, ResponseCode: &code}
			if c.SubscriptionID == mixed.ID && !failedOnce {
				failedOnce = true
				msg, next, bad := "500", s.Now()+5000, 500
				o = store.DeliveryOutcome{State: store.DeliveryPending, ResponseCode: &bad, Error: &msg, NextAttemptAt: &next}
			}
			results = append(results, store.DeliveryResult{Claimed: c, Outcome: o})
		}
		if err := s.FinishEventDeliveries(ctx, results); err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if r.Owned != (r.Claimed.ID != stolen) {
				t.Fatalf("delivery %s owned %v", r.Claimed.ID, r.Owned)
			}
		}
		var delivered, pending, held int
		if err := storetest.QueryRow(ctx, s, `SELECT
			SUM(CASE WHEN state = 'delivered' AND response_code = 204 AND lease_owner IS NULL THEN 1 ELSE 0 END),
			SUM(CASE WHEN state = 'pending' AND lease_owner IS NULL AND response_code = 500 THEN 1 ELSE 0 END),
			SUM(CASE WHEN lease_owner = 'claim-2' AND state = 'pending' THEN 1 ELSE 0 END) FROM event_deliveries`).Scan(&delivered, &pending, &held); err != nil {
			t.Fatal(err)
		}
		if delivered != 4 || pending != 1 || held != 1 {
			t.Fatalf("delivered %d, retrying %d, held by the other claim %d; want 4, 1, 1", delivered, pending, held)
		}
		for _, c := range []struct {
			id      string
			failing bool
		}{{ok.ID, false}, {mixed.ID, true}} {
			sub, err := s.GetEventSubscription(ctx, "acme", c.id)
			if err != nil {
				t.Fatal(err)
			}
			if (sub.FailingSince != nil) != c.failing || (sub.FailingSince != nil && *sub.FailingSince == 1) {
				t.Fatalf("subscription %s failing_since %v, want failing %v since this claim", c.id, sub.FailingSince, c.failing)
			}
		}
	})
}
