package lease_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/lease"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// backends runs fn with a factory of Limiters that share one backend, as
// the hosts of one deployment do: the database (SQLite, PostgreSQL) and
// Redis.
func backends(t *testing.T, fn func(t *testing.T, newHost func() *lease.Limiter)) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		fn(t, func() *lease.Limiter { return newLimiter(t, lease.Deps{Store: s, TTL: time.Second}) })
	})
	t.Run("redis", func(t *testing.T) {
		u := os.Getenv("HERALD_TEST_REDIS_URL")
		if u == "" {
			storetest.Unavailable(t, "HERALD_TEST_REDIS_URL is not set")
		}
		fn(t, func() *lease.Limiter { return newLimiter(t, lease.Deps{RedisURL: u, TTL: time.Second}) })
	})
}

func newLimiter(t *testing.T, d lease.Deps) *lease.Limiter {
	t.Helper()
	l, err := lease.New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// uniqueName keeps parallel runs on one Redis apart.
func uniqueName(t *testing.T) string { return t.Name() + "-" + store.NewID() }

// Two hosts, 40 holders split between them, a limit of 3: never more than
// 3 hold a slot at once, and all 40 get one in turn.
func TestAtMostNHoldAcrossHosts(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, newHost func() *lease.Limiter) {
		hosts := []*lease.Limiter{newHost(), newHost()}
		name := uniqueName(t)
		var (
			mu           sync.Mutex
			now, most, n int
			wg           sync.WaitGroup
		)
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				release, err := hosts[i%2].Acquire(context.Background(), name, 3)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				now++
				n++
				most = max(most, now)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond) // the work done while holding a slot
				mu.Lock()
				now--
				mu.Unlock()
				release()
			}()
		}
		wg.Wait()
		if most > 3 || n != 40 {
			t.Fatalf("at most %d held at once (limit 3), %d of 40 got a slot", most, n)
		}
		if most < 2 {
			t.Fatalf("never more than %d at once: the holders did not overlap, the test proves nothing", most)
		}
	})
}

// A host that dies holding slots (it stops renewing and never releases)
// frees them when their lease runs out, not before; a live host's slots
// are renewed past the lease.
func TestTheSlotsOfADeadHostFreeWithinTheLease(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, newHost func() *lease.Limiter) {
		dead, live, other := newHost(), newHost(), newHost()
		name := uniqueName(t)
		for range 2 {
			if _, err := dead.Acquire(context.Background(), name, 3); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := live.Acquire(context.Background(), name, 3); err != nil {
			t.Fatal(err)
		}
		dead.Close() // no renewal, no release: as after SIGKILL
		short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if _, err := other.Acquire(short, name, 3); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a slot was free before the dead host's lease ended: %v", err)
		}
		// Within the lease (1s) plus a margin, both of the dead host's
		// slots come back; the live host's (renewed every TTL/3) does not.
		ctx, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel2()
		for range 2 {
			if _, err := other.Acquire(ctx, name, 3); err != nil {
				t.Fatalf("the dead host's slots did not come back: %v", err)
			}
		}
		late, cancel3 := context.WithTimeout(context.Background(), 2500*time.Millisecond)
		defer cancel3()
		if _, err := other.Acquire(late, name, 3); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("the live host's renewed slot was taken: %v", err)
		}
	})
}
