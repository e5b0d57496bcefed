package jobstore_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestExplainSteadyClaim prints the PostgreSQL plan (EXPLAIN ANALYZE) of
// the claim statement as the steady-load benchmark runs it: no backlog, a
// claim for 50 slots, 10 ready jobs of one workspace among 19,990 finished
// ones (whose index entries are dead until vacuum), three times; then the
// jobs table's indexes, each written by every change of a job's state. A
// tool, not a test: it runs only when asked.
//
//	HERALD_EXPLAIN_CLAIM=1 go test -count=1 -run ExplainSteadyClaim -v ./host/internal/store/jobstore
func TestExplainSteadyClaim(t *testing.T) {
	if os.Getenv("HERALD_EXPLAIN_CLAIM") == "" {
		t.Skip()
	}
	ctx := context.Background()
	s := storetest.Postgres(t)
	now := s.Now()
	var js []jobstore.Job
	for range 20000 {
		js = append(js, jobstore.Job{ID: store.NewID(), WorkspaceID: "bench", Queue: "aiQueue", Name: "noop", State: store.JobWaiting, Data: "{}", MaxAttempts: 3, RunAt: now, CreatedAt: now})
	}
	for i := 0; i < len(js); i += 500 {
		if err := jobstore.New(s).InsertJobs(ctx, nil, js[i:i+500]); err != nil {
			t.Fatal(err)
		}
	}
	// All but 10 finished.
	if _, err := storetest.Exec(ctx, s, `UPDATE jobs SET state = 'completed', finished_on = $1 WHERE id IN (SELECT id FROM jobs ORDER BY id LIMIT 19990)`, now); err != nil {
		t.Fatal(err)
	}
	for try := range 3 {
		out, err := jobstore.New(s).ExplainClaim(ctx, 50, now+1000, false)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("==== claim %d of 50 slots, 10 ready\n%s\n", try+1, strings.Join(out, "\n"))
		if _, err := storetest.Exec(ctx, s, `UPDATE jobs SET state = 'waiting' WHERE state = 'active'`); err != nil {
			t.Fatal(err)
		}
	}
	var idx string
	if err := storetest.QueryRow(ctx, s, `SELECT string_agg(indexdef, E'\n') FROM pg_indexes WHERE tablename = 'jobs' AND schemaname = current_schema()`).Scan(&idx); err != nil {
		t.Fatal(err)
	}
	fmt.Println(idx)
}
