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

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/events"
	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
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
// arrival. Two baselines send the same number of deliveries (3N) first:
// "bare", the webhook destination's Export called directly (same signing,
// same guarded client, 16 at once, no queue, no database); and
// "scheduled", 3N posts scheduled due now to saved webhooks through the
// scheduler's Create (8 at once, over three workspaces: a workspace holds
// 10,000 schedules) on a store of the same backend, each
// published by Herald's publisher (job claim, guarded update, plugin
// process over gRPC, outcome and its event recorded). Set
// HERALD_BENCH_EVENTS_DATABASE=postgres to run on HERALD_TEST_DATABASE_URL.
func TestFanOutCost(t *testing.T) {
	raw := os.Getenv("HERALD_BENCH_EVENTS")
	if raw == "" {
		t.Skip("set HERALD_BENCH_EVENTS=10000 to run")
	}
	n, _ := strconv.Atoi(raw)
	open := storetest.SQLite
	if os.Getenv("HERALD_BENCH_EVENTS_DATABASE") == "postgres" {
		open = storetest.Postgres
	}
	st := open(t)
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

	sched := scheduledBaseline(t, open(t), 3*n)

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
				batch = append(batch, reportEvent(b.acmeWS, fmt.Sprintf("r%d", j)))
			}
			_, err := st.EmitEvents(ctx, q, batch)
			return err
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
	t.Logf("bare baseline: %d webhook-destination Exports in %s (%.0f/s), CPU %.0f µs per delivery", 3*n, base.Round(time.Millisecond),
		float64(3*n)/base.Seconds(), float64(baseCPU.Microseconds())/float64(3*n))
	t.Logf("scheduled baseline: %d posts scheduled and published in %s (%.0f/s; creating them took %s), commit -> arrival p50 %s p90 %s p99 %s, CPU %.0f µs per delivery",
		3*n, sched.took.Round(time.Millisecond), float64(3*n)/sched.took.Seconds(), sched.created.Round(time.Millisecond),
		pct(sched.lat, 50), pct(sched.lat, 90), pct(sched.lat, 99), float64(sched.cpu.Microseconds())/float64(3*n))
	t.Logf("events: %d events x 3 subscriptions in %s (%.0f deliveries/s; committing the events took %s), commit -> first attempt p50 %s p90 %s p99 %s",
		n, took.Round(time.Millisecond), float64(3*n)/took.Seconds(), emitted.Round(time.Millisecond), pct(lat, 50), pct(lat, 90), pct(lat, 99))
	// CPU of the whole test process (the receiver included, on every side;
	// the database server's share on PostgreSQL left out).
	t.Logf("events CPU: %.0f µs per event (%.0f µs per delivery)",
		float64(eventsCPU.Microseconds())/float64(n), float64(eventsCPU.Microseconds())/float64(3*n))
	t.Logf("cost ratio (events / scheduled baseline): %.2f; (events / bare baseline): %.2f", took.Seconds()/sched.took.Seconds(), took.Seconds()/base.Seconds())
}

// pct is the p-th percentile of sorted durations.
func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[len(sorted)*p/100].Round(time.Millisecond)
}

// scheduledRun is what the scheduled-post baseline measured.
type scheduledRun struct {
	took, created, cpu time.Duration
	lat                []time.Duration
}

// scheduledBaseline schedules n posts due now to saved webhooks on a
// receiver answering 204, through the scheduler's Create (8 at once), and
// waits until each arrived: Herald's own plain webhook-destination
// deliveries. It returns the time from the first create to the last
// arrival, the time creating took, the process CPU, and each post's time
// from its commit (Create returned) to its arrival, sorted.
func scheduledBaseline(t *testing.T, st *store.Store, n int) scheduledRun {
	ctx := context.Background()
	var (
		mu      sync.Mutex
		arrived = make(map[string]time.Time, n)
	)
	rc := scheduletest.NewReceiverFunc(t, func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		id := r.Header.Get("webhook-id")
		mu.Lock()
		if _, ok := arrived[id]; !ok {
			arrived[id] = now
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	sb := scheduletest.Setup(t, st)
	// A business workspace holds at most 10,000 schedules: the posts are
	// spread over three business workspaces, each with its saved webhook.
	type poster struct {
		p    auth.Principal
		hook string
	}
	var posters []poster
	for i, name := range []string{"acme", "other", "third"} {
		key := map[string]string{"acme": sb.Acme, "other": sb.Other}[name]
		if key == "" {
			var err error
			if key, err = auth.CreateKey(ctx, st, name, "business", name+"@"+name+".test"); err != nil {
				t.Fatal(err)
			}
		}
		ws, u, err := st.EnsureWorkspaceUser(ctx, name, "business", name+"@"+name+".test")
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && ws.ID != sb.AcmeID {
			t.Fatalf("acme is %s, the harness's %s", ws.ID, sb.AcmeID)
		}
		posters = append(posters, poster{auth.Principal{WorkspaceID: ws.ID, UserID: u.ID, Plan: "business", Via: auth.ViaAPIKey}, sb.SaveWebhook(t, key, rc)})
	}
	committed := make([]time.Time, n)
	ids := make([]string, n)
	start, cpu0 := time.Now(), processCPU()
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				title := fmt.Sprintf("post %d", i)
				po := posters[i%int64(len(posters))]
				sc, err := sb.Svc.Create(ctx, po.p, schedule.NewSchedule{ExportTo: "webhook", WebhookID: &po.hook, Title: &title,
					WhenToExport: time.Now().UTC().Format(time.RFC3339Nano)})
				if err != nil {
					t.Error(err)
					return
				}
				committed[i], ids[i] = time.Now(), sc.ID
			}
		}()
	}
	wg.Wait()
	created := time.Since(start)
	if t.Failed() {
		t.FailNow()
	}
	testwait.For(t, 20*time.Minute, "every scheduled post arrived", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(arrived) >= n
	})
	took, cpu := time.Since(start), processCPU()-cpu0
	mu.Lock()
	defer mu.Unlock()
	lat := make([]time.Duration, 0, n)
	for i, id := range ids {
		at, ok := arrived[id]
		if !ok {
			t.Fatalf("post %s did not arrive under its id", id)
		}
		lat = append(lat, at.Sub(committed[i]))
	}
	slices.Sort(lat)
	return scheduledRun{took: took, created: created, cpu: cpu, lat: lat}
}

// processCPU is the user and system time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
