package plansstore_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/plansstore"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestPlanVersionsAreAddedOnlyWhenTheBodyChanges seeds, applies and
// re-applies plan versions on both backends.
func TestPlanVersionsAreAddedOnlyWhenTheBodyChanges(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		s.SetClock(func() time.Time { return time.UnixMilli(5000) })
		if n, err := plansstore.New(s).LatestPlanVersionNumber(ctx); err != nil || n != 0 {
			t.Fatalf("no versions: %d %v, want 0", n, err)
		}
		if _, err := plansstore.New(s).LatestPlanVersion(ctx); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no versions: %v, want ErrNotFound", err)
		}
		add := func(body, digest string, onlyIfNone bool) (plansstore.PlanVersion, bool) {
			t.Helper()
			v, created, err := plansstore.New(s).AddPlanVersion(ctx, body, digest, "test", onlyIfNone)
			if err != nil {
				t.Fatal(err)
			}
			return v, created
		}
		v, created := add("a", "da", true) // a first start seeds
		if !created || v != (plansstore.PlanVersion{Version: 1, Body: "a", Digest: "da", Source: "test", CreatedAt: 5000}) {
			t.Fatalf("seed: %+v %v", v, created)
		}
		if v, created := add("b", "db", true); created || v.Version != 1 || v.Digest != "da" {
			t.Fatalf("a later start: %+v %v, want version 1 kept", v, created)
		}
		if v, created := add("a", "da", false); created || v.Version != 1 {
			t.Fatalf("the same digest again: %+v %v, want version 1", v, created)
		}
		if v, created := add("b", "db", false); !created || v.Version != 2 || v.Body != "b" {
			t.Fatalf("a new digest: %+v %v, want version 2", v, created)
		}
		if n, err := plansstore.New(s).LatestPlanVersionNumber(ctx); err != nil || n != 2 {
			t.Fatalf("latest number: %d %v, want 2", n, err)
		}
		if v, err := plansstore.New(s).LatestPlanVersion(ctx); err != nil || v.Version != 2 || v.Body != "b" || v.Digest != "db" {
			t.Fatalf("latest: %+v %v", v, err)
		}
	})
}

// TestConcurrentPlanVersionsGetConsecutiveNumbers adds different bodies at
// once: the loser of a race for a version number retries with the next.
func TestConcurrentPlanVersionsGetConsecutiveNumbers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const n = 4
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := fmt.Sprint("d", i)
				_, _, err := plansstore.New(s).AddPlanVersion(ctx, d, d, "test", false)
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if got, err := plansstore.New(s).LatestPlanVersionNumber(ctx); err != nil || got != n {
			t.Fatalf("after %d concurrent adds: version %d %v", n, got, err)
		}
	})
}
