package queuebench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// BenchmarkSteadyLoad offers b.N no-op jobs at a steady 2,000 jobs/s
// (QUEUEBENCH_RATE), one
// insert at a time from 8 producers, to 100 workers, and reports the
// latency from the insert call to the handler's start (p50, p99) and the
// throughput from the first insert to the last handler start. The
// producers wait for each insert (closed loop), so a side whose inserts slow
// down offers itself less work; sched-p50 and sched-p99 measure the same
// jobs from their planned insert time instead (open loop: a producer that
// fell behind its schedule counts its lag), which charges that slowdown
// to the side that had it; insert-p50 and insert-p99 are the insert calls
// alone (the rest of p50 is the queue's own). River runs
// first, Herald right after it, on the same PostgreSQL
// (HERALD_TEST_DATABASE_URL), each in a schema of its own; Herald's
// producers are a second Queue, so every wake-up crosses Redis
// (HERALD_TEST_REDIS_URL) as it does between hosts, as River's cross
// PostgreSQL's NOTIFY. docs/BENCHMARKS.md records the numbers:
//
//	cd integration/queuebench && go test -run '^$' -bench SteadyLoad -benchtime 20000x
//
// The two alternate: the benchmark runs five rounds (QUEUEBENCH_ROUNDS),
// River then Herald in odd rounds and Herald then River in even ones
// (go test's -count would repeat each side back to back instead); compare
// the medians.
func BenchmarkSteadyLoad(b *testing.B) {
	type system struct {
		name  string
		setup func(b *testing.B, started func(noopArgs)) (insert func(ctx context.Context, a noopArgs) error)
	}
	for r := range rounds() {
		order := []system{{"river", setupRiver}, {"herald", setupHerald}}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, sys := range order {
			b.Run(fmt.Sprintf("round=%d/%s", r+1, sys.name), func(b *testing.B) { steadyLoad(b, sys.setup) })
		}
	}
}

// rounds is QUEUEBENCH_ROUNDS, 5 by default.
func rounds() int {
	if n, err := strconv.Atoi(os.Getenv("QUEUEBENCH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 5
}

// riverCooldown is River's FetchCooldown in this benchmark.
var riverCooldown = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("RIVER_FETCH_COOLDOWN")); err == nil {
		return d
	}
	return 5 * time.Millisecond
}()

const (
	producers = 8
	workers   = 100
)

// rate is the jobs/s offered, QUEUEBENCH_RATE (2,000 by default). A round
// is steady only if both sides take what is offered: the kept-up metric
// is the achieved rate over the offered one, and a side below about 0.95
// fell behind, so its p99 is a backlog's, not a steady queue's (its
// sched-p99 then grows with the run's length).
var rate = func() int {
	if n, err := strconv.Atoi(os.Getenv("QUEUEBENCH_RATE")); err == nil && n > 0 {
		return n
	}
	return 2000
}()

func steadyLoad(b *testing.B, setup func(b *testing.B, started func(noopArgs)) func(context.Context, noopArgs) error) {
	var mu sync.Mutex
	delays := make([]time.Duration, 0, b.N)
	sched := make([]time.Duration, 0, b.N)   // from the planned insert time
	inserts := make([]time.Duration, 0, b.N) // the insert calls alone
	var count atomic.Int64
	var last atomic.Int64
	all := make(chan struct{})
	target := int64(b.N)
	insert := setup(b, func(a noopArgs) {
		now := time.Now()
		mu.Lock()
		delays = append(delays, now.Sub(time.Unix(0, a.T0)))
		sched = append(sched, now.Sub(time.Unix(0, a.Plan)))
		mu.Unlock()
		last.Store(now.UnixNano())
		if count.Add(1) == target {
			close(all)
		}
	})
	ctx := context.Background()
	b.ResetTimer()
	began := time.Now()
	interval := time.Second * producers / time.Duration(rate)
	var wg sync.WaitGroup
	var failed atomic.Value
	for p := range producers {
		n := b.N / producers
		if p < b.N%producers {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Producers are staggered so that inserts arrive evenly.
			next := began.Add(interval * time.Duration(p) / producers)
			for range n {
				if d := time.Until(next); d > 0 {
					time.Sleep(d)
				}
				plan := next.UnixNano()
				next = next.Add(interval)
				t0 := time.Now()
				if err := insert(ctx, noopArgs{T0: t0.UnixNano(), Plan: plan}); err != nil {
					failed.Store(err)
					return
				}
				took := time.Since(t0)
				mu.Lock()
				inserts = append(inserts, took)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	select {
	case <-all:
	case <-time.After(time.Minute):
		b.Fatalf("only %d of %d jobs started", count.Load(), b.N)
	}
	b.StopTimer()
	elapsed := time.Unix(0, last.Load()).Sub(began)
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(delays)
	slices.Sort(sched)
	slices.Sort(inserts)
	pct := func(ds []time.Duration, p float64) float64 {
		return float64(ds[int(float64(len(ds)-1)*p)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(delays, 0.50), "p50-ms")
	b.ReportMetric(pct(delays, 0.99), "p99-ms")
	b.ReportMetric(pct(sched, 0.50), "sched-p50-ms")
	b.ReportMetric(pct(sched, 0.99), "sched-p99-ms")
	b.ReportMetric(pct(inserts, 0.50), "insert-p50-ms")
	b.ReportMetric(pct(inserts, 0.99), "insert-p99-ms")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds()/float64(rate), "kept-up")
}

func databaseURL(b *testing.B) string {
	u := os.Getenv("HERALD_TEST_DATABASE_URL")
	if u == "" {
		b.Skip("HERALD_TEST_DATABASE_URL is not set")
	}
	return u
}

// --- River ---------------------------------------------------------------

// noopArgs carry a steady-load job's insert call time (T0) and planned
// insert time (Plan), Unix nanoseconds.
type noopArgs struct {
	T0   int64 `json:"t0"`
	Plan int64 `json:"plan,omitempty"`
}

func (noopArgs) Kind() string { return "noop" }

type noopWorker struct {
	river.WorkerDefaults[noopArgs]
	started func(noopArgs)
}

func (w *noopWorker) Work(ctx context.Context, job *river.Job[noopArgs]) error {
	w.started(job.Args)
	return nil
}

// riverSchema migrates River into a fresh schema (dropped at the end) and
// returns a pool of 16 connections, the size of Herald's store pool.
func riverSchema(b *testing.B) (*pgxpool.Pool, string) {
	ctx := context.Background()
	base := databaseURL(b)
	schema := "riverbench_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		b.Fatal(err)
	}
	conn.Close(ctx)
	b.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), base); err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	// The same pool size as Herald's store (16).
	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "16")
	u.RawQuery = q.Encode()
	pool, err := pgxpool.New(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		b.Fatal(err)
	}
	return pool, schema
}

func setupRiver(b *testing.B, started func(noopArgs)) func(context.Context, noopArgs) error {
	ctx := context.Background()
	pool, schema := riverSchema(b)
	driver := riverpgxv5.New(pool)
	ws := river.NewWorkers()
	river.AddWorker(ws, &noopWorker{started: started})
	client, err := river.NewClient(driver, &river.Config{
		Schema:  schema,
		Queues:  map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: workers}},
		Workers: ws,
		// River's default cooldown (100 ms) caps a queue at MaxWorkers jobs
		// per 100 ms, 1,000 jobs/s here, below the offered rate: tuned for
		// latency, the strongest baseline.
		FetchCooldown: riverCooldown,
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		client.Stop(sctx)
	})
	return func(ctx context.Context, a noopArgs) error {
		_, err := client.Insert(ctx, a, nil)
		return err
	}
}

// --- Herald --------------------------------------------------------------

func setupHerald(b *testing.B, started func(noopArgs)) func(context.Context, noopArgs) error {
	databaseURL(b)
	redisURL := os.Getenv("HERALD_TEST_REDIS_URL")
	if redisURL == "" {
		b.Skip("HERALD_TEST_REDIS_URL is not set")
	}
	s := storetest.Postgres(b)
	prefix := "herald-queuebench:" + store.NewID()
	newQueue := func() *jobs.Queue {
		q, err := jobs.New(jobs.Options{
			Store: s, RedisURL: redisURL, RedisPrefix: prefix,
			Concurrency: map[string]int{jobs.AIQueue: workers},
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			q.Stop(sctx)
		})
		return q
	}
	consumer, producer := newQueue(), newQueue()
	consumer.Register("noop", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
		var in noopArgs
		if err := j.Decode(&in); err != nil {
			return nil, err
		}
		started(in)
		return nil, nil
	}), jobs.HandlerOptions{})
	if err := consumer.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return func(ctx context.Context, a noopArgs) error {
		_, err := producer.Enqueue(ctx, jobs.NewJob{Workspace: "bench", Queue: jobs.AIQueue, Name: "noop", Data: a})
		if err != nil {
			return fmt.Errorf("enqueue: %w", err)
		}
		return nil
	}
}
