package events_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/events"
	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
)

// Two hosts (each its own store connection pool, deliverer and Redis
// wake-ups) share one PostgreSQL schema; 1,000 events go to one
// subscription and host A is killed (its in-flight attempts cancelled, its
// leases left to expire) after a third of them arrived. Every event must
// arrive, every delivery end delivered, and only attempts in flight at the
// kill may arrive twice (with the same webhook-id, for the receiver to
// drop).
func TestTwoHostsDeliverEachEventOnceWhenOneIsKilled(t *testing.T) {
	t.Parallel()
	redisURL := os.Getenv("HERALD_TEST_REDIS_URL")
	if redisURL == "" {
		storetest.Unavailable(t, "HERALD_TEST_REDIS_URL is not set")
	}
	ctx := context.Background()
	schemaURL := storetest.NewSchema(t, storetest.DatabaseURL(t))
	open := func() *store.Store {
		s, err := store.Open(ctx, schemaURL, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return s
	}
	stA, stB := open(), open()
	b := setupOn(t, stA)

	var mu sync.Mutex
	arrivals := map[string]int{}
	total := 0
	killAt := make(chan struct{})
	recv := newReceiver(t)
	recv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals[r.Header.Get("webhook-id")]++
		total++
		if total == 333 {
			close(killAt)
		}
		mu.Unlock()
		time.Sleep(time.Millisecond) // a receiver that takes its time
		w.WriteHeader(http.StatusNoContent)
	})
	b.recv = recv
	b.subscribe(t, "standard", catalog.ReportCompleted)

	// A worker sends its claimed batch at once (and, with MaxBatch = Batch,
	// never claims more while a backlog builds), so at most workers × batch
	// attempts of host A are in flight when it is killed.
	const workers, batch = 4, 8
	prefix := fmt.Sprintf("herald-test-%d", time.Now().UnixNano())
	host := func(st *store.Store, name string) *events.Deliverer {
		svc, err := events.New(events.Deps{Store: st, Quota: quota.New(st, config.DefaultLimits()), SecretKey: secretKey,
			AllowedPrivateCIDRs: b.allowed()})
		if err != nil {
			t.Fatal(err)
		}
		wake, err := events.NewRedisWake(redisURL, prefix, name)
		if err != nil {
			t.Fatal(err)
		}
		d := events.NewDeliverer(svc, events.DelivererOptions{Host: name, Workers: workers, Batch: batch, MaxBatch: batch, Lease: 2 * time.Second, Poll: 5 * time.Second, Wake: wake})
		if err := d.Start(ctx); err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, bHost := host(stA, "a"), host(stB, "b")
	t.Cleanup(func() { bHost.Stop(ctx) })

	for i := range 1000 {
		b.emit(t, reportEvent(b.acmeWS, fmt.Sprintf("r%d", i)))
	}
	<-killAt
	dead, cancel := context.WithCancel(ctx)
	cancel()
	a.Stop(dead)

	testwait.For(t, 60*time.Second, "every delivery delivered", func() bool {
		var left int
		if err := storetest.QueryRow(ctx, stB, `SELECT COUNT(*) FROM event_deliveries WHERE state <> 'delivered'`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		return left == 0
	})
	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) != 1000 {
		t.Fatalf("%d distinct webhook-ids arrived, want 1000", len(arrivals))
	}
	twice := 0
	for id, n := range arrivals {
		if n > 2 {
			t.Fatalf("%s arrived %d times", id, n)
		}
		if n == 2 {
			twice++
		}
	}
	if twice > workers*batch { // host A's workers, each with at most one batch in flight
		t.Fatalf("%d events arrived twice; only the %d attempts in flight at the kill may", twice, workers*batch)
	}
	t.Logf("1000 events, %d arrivals, %d repeated (in flight at the kill)", total, twice)
}
