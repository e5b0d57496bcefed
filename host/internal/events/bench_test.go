package events_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/events"
	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
	"github.com/heraldhq/herald/plugins/webhook"
	"github.com/heraldhq/herald/sdk"
)

// TestFanOutCost measures the outbox against plain webhook-destination
// deliveries in the same run (docs/BENCHMARKS.md, "Events"): N events
// (HERALD_BENCH_EVENTS, default 10,000) committed 10 per transaction while
// the deliverer runs, fanned out to 3 subscriptions on a local receiver:
// the median time from an event's commit to its first delivery attempt's
// arrival, and deliveries per second from the first commit to the last
// arrival. The baseline sends the same number of deliveries (3N) through
// the webhook destination's Export (same signing, same guarded client, 16
// at once, no queue). Set HERALD_BENCH_EVENTS_DATABASE=postgres to run on
// HERALD_TEST_DATABASE_URL.
func TestFanOutCost(t *testing.T) {
	raw := os.Getenv("HERALD_BENCH_EVENTS")
	if raw == "" {
		t.Skip("set HERALD_BENCH_EVENTS=10000 to run")
	}
	n, _ := strconv.Atoi(raw)
	st := storetest.SQLite(t)
	if os.Getenv("HERALD_BENCH_EVENTS_DATABASE") == "postgres" {
		st = storetest.Postgres(t)
	}
	b := setupOn(t, st)
	var (
		mu       sync.Mutex
		arrived  = map[string]time.Time{}
		count    atomic.Int64
		firstArr = make(map[string]bool)
	)
	b.recv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		id := r.Header.Get("webhook-id")
		mu.Lock()
		if !firstArr[id] {
			firstArr[id] = true
			arrived[id] = now
		}
		mu.Unlock()
		count.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	for range 3 {
		b.subscribe(t, "standard", catalog.ReportCompleted)
	}
	ctx := context.Background()

	// Baseline: 3N plain webhook-destination deliveries.
	t.Setenv(sdk.AllowedPrivateCIDRsEnv, "127.0.0.0/8")
	dest := webhook.New()
	secret := "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	start, cpu0 := time.Now(), processCPU()
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(3*n); i = next.Add(1) {
				id := fmt.Sprintf("base_%d", i)
				if _, err := dest.Export(ctx, sdk.ExportRequest{ScheduleID: id, IdempotencyKey: id, Content: sdk.Content{"title": "t", "text": "x"},
					Credentials: map[string]string{"url": b.recv.URL + "/hook", "secret": secret}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	base, baseCPU := time.Since(start), processCPU()-cpu0
	count.Store(0)

	// Events: N events committed 10 per transaction, 3N deliveries.
	d := events.NewDeliverer(b.svc, events.DelivererOptions{Host: "bench"})
	if err := d.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer d.Stop(ctx)
	committed := map[string]time.Time{}
	var ids []string
	start, cpu0 = time.Now(), processCPU()
	for i := 0; i < n; i += 10 {
		var batch []*store.Event
		if err := st.Tx(ctx, func(q store.Querier) error {
			batch = batch[:0]
			for j := i; j < min(i+10, n); j++ {
				e := reportEvent(b.acmeWS, fmt.Sprintf("r%d", j))
				if _, err := st.EmitEvent(ctx, q, e); err != nil {
					return err
				}
				batch = append(batch, e)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		at := time.Now()
		for _, e := range batch {
			committed[e.ID] = at
			ids = append(ids, e.ID)
		}
		st.EventsCommitted()
	}
	emitted := time.Since(start)
	testwait.For(t, 10*time.Minute, "every delivery arrived", func() bool { return count.Load() >= int64(3*n) })
	took, eventsCPU := time.Since(start), processCPU()-cpu0

	mu.Lock()
	defer mu.Unlock()
	subs, _ := st.ListEventSubscriptions(ctx, b.acmeWS)
	var lat []time.Duration
	for _, id := range ids {
		for _, s := range subs {
			if at, ok := arrived[id+"_"+s.ID]; ok {
				lat = append(lat, at.Sub(committed[id]))
			}
		}
	}
	slices.Sort(lat)
	if len(lat) != 3*n {
		t.Fatalf("%d first arrivals, want %d", len(lat), 3*n)
	}
	t.Logf("baseline: %d webhook-destination deliveries in %s (%.0f/s)", 3*n, base.Round(time.Millisecond), float64(3*n)/base.Seconds())
	t.Logf("events:   %d events x 3 subscriptions in %s (%.0f deliveries/s), commit -> first attempt p50 %s p90 %s p99 %s",
		n, took.Round(time.Millisecond), float64(3*n)/took.Seconds(), lat[len(lat)/2].Round(time.Millisecond),
		lat[len(lat)*9/10].Round(time.Millisecond), lat[len(lat)*99/100].Round(time.Millisecond))
	t.Logf("(committing the %d events took %s)", n, emitted.Round(time.Millisecond))
	t.Logf("cost ratio (events / baseline): %.2f", took.Seconds()/base.Seconds())
	// CPU of the whole test process (the receiver included, on both sides).
	t.Logf("CPU: baseline %.0f µs per delivery; events %.0f µs per event (%.0f µs per delivery)",
		float64(baseCPU.Microseconds())/float64(3*n), float64(eventsCPU.Microseconds())/float64(n), float64(eventsCPU.Microseconds())/float64(3*n))
}

// processCPU is the user and system time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
