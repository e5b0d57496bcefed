// Command worker is a stand-in host for the queue's process tests: it opens
// the store, registers a counting handler and runs a jobs.Queue until
// SIGTERM, so tests can kill it, run two of it against one database, or
// take its Redis away. (Once text generation with useWorker lands, the same
// tests can drive `herald serve` instead.)
//
// The "count" handler sleeps -work (or until its context ends), then
// records the run in the table jobstest_runs, one row per run, so a test
// can tell how often each job ran and on which host. The worker prints
// "ready" once it runs jobs and "start JOBID" as each job starts.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// RunsTable is the DDL of the table the counting handler writes.
const RunsTable = `CREATE TABLE IF NOT EXISTS jobstest_runs (id TEXT PRIMARY KEY, job_id TEXT NOT NULL, attempt INTEGER NOT NULL, host TEXT NOT NULL, origin TEXT NOT NULL)`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run() error {
	databaseURL := flag.String("database-url", "", "PostgreSQL URL; empty: SQLite under -data-dir")
	dataDir := flag.String("data-dir", "", "SQLite data dir")
	redisURL := flag.String("redis-url", "", "Redis URL for wake-ups")
	prefix := flag.String("redis-prefix", jobs.DefaultRedisPrefix, "Redis channel prefix")
	host := flag.String("host", "worker", "name recorded with each run")
	concurrency := flag.Int("concurrency", 4, "jobs of aiQueue run at once")
	lease := flag.Duration("lease", 2*time.Second, "job lease")
	rescue := flag.Duration("rescue", 200*time.Millisecond, "rescue interval")
	poll := flag.Duration("poll", time.Second, "poll interval")
	work := flag.Duration("work", 0, "how long each job works")
	enqueue := flag.Int("enqueue", 0, "jobs to enqueue at start (workspace ws-1, aiQueue, name count)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	st, err := store.Open(ctx, *databaseURL, *dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	if _, err := storetest.Exec(ctx, st, RunsTable); err != nil {
		return err
	}
	q, err := jobs.New(jobs.Options{
		Store: st, RedisURL: *redisURL, RedisPrefix: *prefix,
		Concurrency: map[string]int{jobs.AIQueue: *concurrency},
		Lease:       *lease, RescueInterval: *rescue, PollInterval: *poll,
	})
	if err != nil {
		return err
	}
	var out sync.Mutex
	say := func(format string, args ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	q.Register("count", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
		say("start %s", j.ID)
		select {
		case <-time.After(*work):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		var in struct{ Origin string }
		j.Decode(&in)
		if _, err := storetest.Exec(ctx, st, `INSERT INTO jobstest_runs (id, job_id, attempt, host, origin) VALUES ($1, $2, $3, $4, $5)`,
			store.NewID(), j.ID, j.Attempt, *host, in.Origin); err != nil {
			return nil, err
		}
		return map[string]string{"host": *host}, nil
	}), jobs.HandlerOptions{MaxAttempts: 10, Backoff: func(int) time.Duration { return 10 * time.Millisecond }})
	if err := q.Start(ctx); err != nil {
		return err
	}
	if *enqueue > 0 {
		batch := make([]jobs.NewJob, *enqueue)
		for i := range batch {
			batch[i] = jobs.NewJob{Workspace: "ws-1", Queue: jobs.AIQueue, Name: "count", Data: map[string]any{"origin": *host, "n": i}}
		}
		// One by one, as API requests would, so each enqueue wakes workers.
		for _, j := range batch {
			if _, err := q.Enqueue(ctx, j); err != nil {
				return err
			}
		}
	}
	say("ready")
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return q.Stop(sctx)
}
