package jobstore_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestConcurrencyLeases takes, renews, expires and releases the slots of a
// concurrency limit on both backends.
func TestConcurrencyLeases(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := int64(1_700_000_000_000)
		s.SetClock(func() time.Time { return time.UnixMilli(now) })
		take := func(name string, slots int, holder string) (int, bool) {
			t.Helper()
			slot, ok, err := jobstore.New(s).TakeLease(ctx, name, slots, holder, 1000)
			if err != nil {
				t.Fatal(err)
			}
			return slot, ok
		}

		for _, slots := range []int{0, -1} {
			if _, ok := take("none", slots, "a"); ok {
				t.Errorf("a limit of %d slots gave a lease", slots)
			}
		}

		// Every slot once, from whichever slot the random start picks, then
		// none; again after releasing them all, so the start varies.
		const slots = 8
		for round := range 12 {
			seen := map[int]string{}
			for i := range slots {
				holder := string(rune('a' + i))
				slot, ok := take("all", slots, holder)
				if !ok || slot < 0 || slot >= slots || seen[slot] != "" {
					t.Fatalf("round %d take %d: slot %d ok %v, held %v", round, i, slot, ok, seen)
				}
				seen[slot] = holder
			}
			if slot, ok := take("all", slots, "late"); ok {
				t.Fatalf("round %d: a ninth lease of 8 slots: slot %d", round, slot)
			}
			for slot, holder := range seen {
				if err := jobstore.New(s).ReleaseLease(ctx, "all", slot, holder); err != nil {
					t.Fatal(err)
				}
			}
		}

		// A lease lasts its ttl; a renewal extends it from now.
		slot, ok := take("one", 1, "a")
		if !ok || slot != 0 {
			t.Fatalf("the only slot: %d %v", slot, ok)
		}
		now += 999
		if _, ok := take("one", 1, "b"); ok {
			t.Fatal("a lease was taken 1 ms before it expired")
		}
		if ok, err := jobstore.New(s).RenewLease(ctx, "one", 0, "a", 1000); err != nil || !ok {
			t.Fatalf("renew by the holder: %v %v", ok, err)
		}
		if ok, err := jobstore.New(s).RenewLease(ctx, "one", 0, "b", 1000); err != nil || ok {
			t.Fatalf("renew by another holder: %v %v", ok, err)
		}
		now += 999
		if _, ok := take("one", 1, "b"); ok {
			t.Fatal("a renewed lease was taken before its renewed expiry")
		}
		now += 1
		if slot, ok := take("one", 1, "b"); !ok || slot != 0 {
			t.Fatalf("an expired lease: %d %v, want taken", slot, ok)
		}
		if ok, err := jobstore.New(s).RenewLease(ctx, "one", 0, "a", 1000); err != nil || ok {
			t.Fatalf("renew by the holder whose lease was taken: %v %v", ok, err)
		}
		// Releasing by a holder who lost the slot frees nothing.
		if err := jobstore.New(s).ReleaseLease(ctx, "one", 0, "a"); err != nil {
			t.Fatal(err)
		}
		if _, ok := take("one", 1, "c"); ok {
			t.Fatal("a release by the previous holder freed the slot")
		}
		if err := jobstore.New(s).ReleaseLease(ctx, "one", 0, "b"); err != nil {
			t.Fatal(err)
		}
		if slot, ok := take("one", 1, "c"); !ok || slot != 0 {
			t.Fatalf("a released slot: %d %v, want taken", slot, ok)
		}

		// A lowered limit counts only the slots below it.
		for range 3 {
			if _, ok := take("lower", 3, "x"); !ok {
				t.Fatal("three slots of three")
			}
		}
		if slot, ok := take("lower", 2, "y"); ok {
			t.Fatalf("limit lowered to 2 with 3 held: slot %d", slot)
		}
		if slot, ok := take("lower", 4, "y"); !ok || slot != 3 {
			t.Fatalf("limit raised to 4 with 3 held: %d %v, want slot 3", slot, ok)
		}
	})
}
