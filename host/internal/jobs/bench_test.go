package jobs_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Benchmarks of no-op jobs; docs/BENCHMARKS.md ("Job queue") records the
// numbers and the command:
//
//	go test -run '^$' -bench BenchmarkQueue -benchtime 20000x ./host/internal/jobs/   (throughput, drain)
//	go test -run '^$' -bench 'BenchmarkQueue/.*/latency' -benchtime 2000x ./host/internal/jobs/
//
// throughput: a producer enqueues b.N jobs in batches of 100 while the
// workers run them; jobs/s from the first enqueue to the last completion.
// drain: b.N jobs are stored first, then the workers run them all.
// latency: one job at a time on an idle queue, enqueue call to handler start;
// on PostgreSQL the producer is a second Queue, so the wake-up crosses Redis
// as it would between hosts.

type benchBackend struct {
	name string
	open func(b *testing.B) (*store.Store, string)
}

var benchBackends = []benchBackend{
	{"sqlite", func(b *testing.B) (*store.Store, string) { return storetest.SQLite(b), "" }},
	{"postgres+redis", func(b *testing.B) (*store.Store, string) { return storetest.Postgres(b), redisURL(b) }},
}

func benchQueue(b *testing.B, s *store.Store, url, prefix string, concurrency int) *jobs.Queue {
	b.Helper()
	q, err := jobs.New(jobs.Options{
		Store: s, RedisURL: url, RedisPrefix: prefix,
		Concurrency: map[string]int{jobs.AIQueue: concurrency},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { q.Stop(context.Background()) })
	return q
}

func BenchmarkQueue(b *testing.B) {
	for _, be := range benchBackends {
		b.Run(be.name+"/throughput", func(b *testing.B) { benchThroughput(b, be, true) })
		b.Run(be.name+"/drain", func(b *testing.B) { benchThroughput(b, be, false) })
		b.Run(be.name+"/latency", func(b *testing.B) { benchLatency(b, be) })
	}
}

func benchThroughput(b *testing.B, be benchBackend, concurrentEnqueue bool) {
	s, url := be.open(b)
	prefix := "herald-bench:" + store.NewID()
	q := benchQueue(b, s, url, prefix, 200)
	var done atomic.Int64
	all := make(chan struct{})
	n := int64(b.N)
	q.Register("noop", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
		if done.Add(1) == n {
			close(all)
		}
		return nil, nil
	}), jobs.HandlerOptions{})
	batch := func(size int) []jobs.NewJob {
		out := make([]jobs.NewJob, size)
		for i := range out {
			out[i] = jobs.NewJob{Workspace: ws, Queue: jobs.AIQueue, Name: "noop"}
		}
		return out
	}
	ctx := context.Background()
	if !concurrentEnqueue {
		for left := b.N; left > 0; left -= 1000 {
			if _, err := q.EnqueueMany(ctx, batch(min(left, 1000))); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	began := time.Now()
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if concurrentEnqueue {
		for left := b.N; left > 0; left -= 100 {
			if _, err := q.EnqueueMany(ctx, batch(min(left, 100))); err != nil {
				b.Fatal(err)
			}
		}
	}
	<-all
	elapsed := time.Since(began)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
}

func benchLatency(b *testing.B, be benchBackend) {
	s, url := be.open(b)
	prefix := "herald-bench:" + store.NewID()
	consumer := benchQueue(b, s, url, prefix, 8)
	producer := consumer
	if url != "" {
		producer = benchQueue(b, s, url, prefix, 8)
	}
	var mu sync.Mutex
	delays := make([]time.Duration, 0, b.N)
	started := make(chan struct{}, 1)
	consumer.Register("noop", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
		now := time.Now()
		var in struct{ T0 int64 }
		if err := json.Unmarshal(j.Data, &in); err != nil {
			return nil, err
		}
		mu.Lock()
		delays = append(delays, now.Sub(time.Unix(0, in.T0)))
		mu.Unlock()
		started <- struct{}{}
		return nil, nil
	}), jobs.HandlerOptions{})
	ctx := context.Background()
	if err := consumer.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		t0 := time.Now().UnixNano()
		if _, err := producer.Enqueue(ctx, jobs.NewJob{Workspace: ws, Queue: jobs.AIQueue, Name: "noop", Data: map[string]int64{"t0": t0}}); err != nil {
			b.Fatal(err)
		}
		<-started
	}
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(delays)
	pct := func(p float64) float64 {
		return float64(delays[int(float64(len(delays)-1)*p)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
