package queuebench

import (
	"context"
	"fmt"

	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// BenchmarkDrain stores b.N no-op jobs first, then starts 100 workers and
// times until the last job has started, for River and for Herald (fair
// claiming on: every claim ranks each workspace's oldest ready job first)
// on the same PostgreSQL. The jobs belong to one workspace, or to 100 in
// turn (River has no workspaces: its half is the same in both). Each
// iteration drains twice per system in ABBA order (river, herald, herald,
// river; flipped on odd iterations), each drain in a fresh schema; the
// reported jobs/s are each system's total over its drains, and ratio is
// Herald's over River's.
//
//	cd integration/queuebench && go test -run '^$' -bench Drain -benchtime 20000x -count 3
func BenchmarkDrain(b *testing.B) {
	for _, workspaces := range []int{1, 100} {
		b.Run(fmt.Sprintf("workspaces=%d", workspaces), func(b *testing.B) {
			n := b.N // jobs per drain; one ABBA round per benchmark run
			if n == 1 {
				return // the framework's probe run
			}
			var spent [2]time.Duration
			var runs [2][]float64
			order := []int{0, 1, 1, 0}
			for _, side := range order {
				var d time.Duration
				if side == 0 {
					d = drainRiver(b, n)
				} else {
					d = drainHerald(b, n, workspaces)
				}
				spent[side] += d
				runs[side] = append(runs[side], float64(n)/d.Seconds())
			}
			river := float64(2*n) / spent[0].Seconds()
			herald := float64(2*n) / spent[1].Seconds()
			b.ReportMetric(river, "river-jobs/s")
			b.ReportMetric(herald, "herald-jobs/s")
			b.ReportMetric(herald/river, "ratio")
			slices.Sort(runs[0])
			slices.Sort(runs[1])
			b.Logf("drains of %d jobs: river %.0f / %.0f jobs/s, herald %.0f / %.0f jobs/s", n, runs[0][0], runs[0][1], runs[1][0], runs[1][1])
		})
	}
}

// drainRiver stores n jobs in a fresh River schema and times their drain.
func drainRiver(b *testing.B, n int) time.Duration {
	ctx := context.Background()
	pool, schema := riverSchema(b)
	var count atomic.Int64
	all := make(chan struct{})
	ws := river.NewWorkers()
	river.AddWorker(ws, &noopWorker{started: func(noopArgs) {
		if count.Add(1) == int64(n) {
			close(all)
		}
	}})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Schema:        schema,
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: workers}},
		Workers:       ws,
		FetchCooldown: riverCooldown,
	})
	if err != nil {
		b.Fatal(err)
	}
	params := make([]river.InsertManyParams, 0, 1000)
	for i := 0; i < n; i += 1000 {
		params = params[:0]
		for range min(1000, n-i) {
			params = append(params, river.InsertManyParams{Args: noopArgs{}})
		}
		if _, err := client.InsertManyFast(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
	began := time.Now()
	if err := client.Start(ctx); err != nil {
		b.Fatal(err)
	}
	wait(b, all, &count, n)
	d := time.Since(began)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	client.Stop(sctx)
	return d
}

// drainHerald stores n jobs of the given number of workspaces (in turn) in
// a fresh schema and times their drain by one started Queue.
func drainHerald(b *testing.B, n, workspaces int) time.Duration {
	ctx := context.Background()
	databaseURL(b)
	s := storetest.Postgres(b)
	q, err := jobs.New(jobs.Options{Store: s, Concurrency: map[string]int{jobs.AIQueue: workers}})
	if err != nil {
		b.Fatal(err)
	}
	var count atomic.Int64
	all := make(chan struct{})
	q.Register("noop", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
		if count.Add(1) == int64(n) {
			close(all)
		}
		return nil, nil
	}), jobs.HandlerOptions{})
	batch := make([]jobs.NewJob, 0, 1000)
	for i := 0; i < n; i += 1000 {
		batch = batch[:0]
		for k := range min(1000, n-i) {
			batch = append(batch, jobs.NewJob{Workspace: fmt.Sprintf("ws-%d", (i+k)%workspaces), Queue: jobs.AIQueue, Name: "noop", Data: noopArgs{}})
		}
		if _, err := q.EnqueueMany(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	began := time.Now()
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	wait(b, all, &count, n)
	d := time.Since(began)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	q.Stop(sctx)
	return d
}

func wait(b *testing.B, all chan struct{}, count *atomic.Int64, n int) {
	select {
	case <-all:
	case <-time.After(3 * time.Minute):
		b.Fatalf("only %d of %d jobs started", count.Load(), n)
	}
}
