package creditstore_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestCreditsNeverExceedTheLimitUnderConcurrency(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _, _ := s.EnsureWorkspaceUser(ctx, "acme", "free", "a@acme.test")
		other, _, _ := s.EnsureWorkspaceUser(ctx, "other", "free", "o@other.test")
		var granted atomic.Int32
		var wg sync.WaitGroup
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, ok, err := creditstore.New(s).ReserveCredits(ctx, ws.ID, "2026-11", 1, 7)
				if err != nil && !s.IsConflict(err) {
					t.Error(err)
				}
				if ok {
					granted.Add(1)
				}
			}()
		}
		wg.Wait()
		used, _ := creditstore.New(s).CreditsUsed(ctx, ws.ID, "2026-11")
		if int(granted.Load()) != used || used > 7 || used < 1 {
			t.Fatalf("granted %d, used %d, limit 7", granted.Load(), used)
		}
		// Fill up sequentially (a concurrent first insert may have lost to a conflict).
		for used < 7 {
			if _, ok, err := creditstore.New(s).ReserveCredits(ctx, ws.ID, "2026-11", 1, 7); err != nil || !ok {
				t.Fatalf("reserve below limit: %v %v", ok, err)
			}
			used++
		}
		if _, ok, _ := creditstore.New(s).ReserveCredits(ctx, ws.ID, "2026-11", 1, 7); ok {
			t.Fatal("reserved over the limit")
		}
		if err := creditstore.New(s).RefundCredits(ctx, ws.ID, "2026-11", 1); err != nil {
			t.Fatal(err)
		}
		if n, ok, _ := creditstore.New(s).ReserveCredits(ctx, ws.ID, "2026-11", 1, 7); !ok || n != 7 {
			t.Fatalf("after refund: %d %v", n, ok)
		}
		if n, _ := creditstore.New(s).CreditsUsed(ctx, other.ID, "2026-11"); n != 0 {
			t.Fatalf("other workspace charged: %d", n)
		}
		if n, ok, _ := creditstore.New(s).ReserveCredits(ctx, ws.ID, "2026-12", 1, 7); !ok || n != 1 {
			t.Fatalf("a new month starts at zero: %d %v", n, ok)
		}
		if _, ok, _ := creditstore.New(s).ReserveCredits(ctx, other.ID, "2026-11", 8, 7); ok {
			t.Fatal("a reservation larger than the limit passed")
		}
	})
}
