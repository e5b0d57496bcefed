package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
)

// A host that claims jobs vacuums the jobs table itself: after
// vacuumEvery claimed jobs and not before (the claims' dead index entries
// would otherwise slow every later claim until autovacuum, which is off on
// the test machine). The count is PostgreSQL's own (pg_stat_user_tables).
func TestClaimsVacuumTheJobsTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.Postgres(t)
	q, logs := newQueue(t, s, func(o *Options) { o.Concurrency = map[string]int{AIQueue: 200} })
	done := make(chan struct{}, vacuumEvery)
	q.Register("noop", HandlerFunc(func(ctx context.Context, j *Job) (any, error) {
		done <- struct{}{}
		return nil, nil
	}), HandlerOptions{})
	vacuums := func() int64 {
		var n int64
		if err := storetest.QueryRow(ctx, s, `SELECT vacuum_count FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'jobs'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	run := func(n int) {
		t.Helper()
		batch := make([]NewJob, n)
		for i := range batch {
			batch[i] = NewJob{Workspace: "ws-1", Queue: AIQueue, Name: "noop"}
		}
		if _, err := q.EnqueueMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
		for range n {
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("the jobs did not run")
			}
		}
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })

	run(vacuumEvery - 1)
	// Every claim has returned: its jobs ran. None started a vacuum.
	if n := q.claimedSinceVacuum.Load(); n != vacuumEvery-1 || !q.lastVacuum.IsZero() {
		t.Fatalf("after %d claimed jobs: %d counted, last vacuum %v; want %d and none", vacuumEvery-1, n, q.lastVacuum, vacuumEvery-1)
	}
	if n := vacuums(); n != 0 {
		t.Fatalf("jobs vacuumed %d times before %d claims", n, vacuumEvery)
	}
	run(1)
	testwait.For(t, 30*time.Second, "a vacuum of the jobs table", func() bool { return vacuums() > 0 })
	if n := logs.Count("[WARN]") + logs.Count("[ERROR]"); n > 0 {
		t.Fatalf("%d warnings or errors:\n%s", n, logs)
	}
}
