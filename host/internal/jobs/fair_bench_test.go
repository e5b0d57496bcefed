package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
)

// BenchmarkFairness measures workspace B's latency (enqueue to handler
// start, one job at a time, each job 10 ms of work) on an idle queue and
// then, in the same run, while workspace A floods the queue: A keeps its
// queued cap full from 4 producers that retry 10 ms after each 429. 8 workers; each workspace may run 4 jobs
// at once and queue 200 (Options.Caps). docs/BENCHMARKS.md records the
// numbers ("Fairness") and the command:
//
//	go test -run '^$' -bench BenchmarkFairness -benchtime 300x -count 3 ./host/internal/jobs/
func BenchmarkFairness(b *testing.B) {
	for _, be := range benchBackends {
		b.Run(be.name, func(b *testing.B) { benchFairness(b, be) })
	}
}

func benchFairness(b *testing.B, be benchBackend) {
	s, url := be.open(b)
	prefix := "herald-bench:" + store.NewID()
	q, err := jobs.New(jobs.Options{
		Store: s, RedisURL: url, RedisPrefix: prefix,
		Concurrency: map[string]int{jobs.AIQueue: 8},
		Caps:        jobstore.JobCaps{Default: jobstore.JobCap{Running: 4, Queued: 200}},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { q.Stop(context.Background()) })
	started := make(chan time.Duration, 1)
	finished := make(chan struct{}, 1)
	q.Register("work", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
		if j.Workspace == "b" {
			var in struct{ T0 int64 }
			if err := json.Unmarshal(j.Data, &in); err != nil {
				return nil, err
			}
			started <- time.Since(time.Unix(0, in.T0))
			defer func() { finished <- struct{}{} }()
		}
		select {
		case <-time.After(10 * time.Millisecond): // the job's work
		case <-ctx.Done():
		}
		return nil, nil
	}), jobs.HandlerOptions{})
	ctx := context.Background()
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	measure := func(n int) []time.Duration {
		out := make([]time.Duration, 0, n)
		for range n {
			data := map[string]int64{"t0": time.Now().UnixNano()}
			if _, err := q.Enqueue(ctx, jobs.NewJob{Workspace: "b", Queue: jobs.AIQueue, Name: "work", Data: data}); err != nil {
				b.Fatal(err)
			}
			out = append(out, <-started)
			<-finished // B's job is done before its next
		}
		slices.Sort(out)
		return out
	}
	p := func(d []time.Duration, f float64) float64 {
		return float64(d[int(float64(len(d)-1)*f)].Microseconds()) / 1000
	}
	b.ResetTimer()
	idle := measure(b.N)

	floodCtx, stopFlood := context.WithCancel(ctx)
	atCap := make(chan struct{})
	var capOnce sync.Once
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for floodCtx.Err() == nil {
				_, err := q.Enqueue(floodCtx, jobs.NewJob{Workspace: "a", Queue: jobs.AIQueue, Name: "work"})
				var over *store.OverCapError
				if errors.As(err, &over) {
					capOnce.Do(func() { close(atCap) })
					// A impatient client: it retries after 10 ms, not
					// after the Retry-After it was given.
					time.Sleep(10 * time.Millisecond)
				}
			}
		}()
	}
	// A's backlog reaches its cap first.
	<-atCap
	flooded := measure(b.N)
	stopFlood()
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(p(idle, 0.5), "idle-p50-ms")
	b.ReportMetric(p(idle, 0.99), "idle-p99-ms")
	b.ReportMetric(p(flooded, 0.5), "flood-p50-ms")
	b.ReportMetric(p(flooded, 0.99), "flood-p99-ms")
	b.ReportMetric(p(flooded, 0.5)/p(idle, 0.5), "p50-ratio")
}
