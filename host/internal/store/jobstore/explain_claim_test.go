package jobstore_test

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"os"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestExplainClaim prints the PostgreSQL plans (EXPLAIN ANALYZE) of the
// claim statement, plain and with a backlog, for 1 and 100 jobs among
// 10,000 ready ones of 100 workspaces. It is a tool, not a test: it runs
// only when asked.
//
//	HERALD_EXPLAIN_CLAIM=1 go test -count=1 -run ExplainClaim -v ./host/internal/store
func TestExplainClaim(t *testing.T) {
	if os.Getenv("HERALD_EXPLAIN_CLAIM") == "" {
		t.Skip()
	}
	ctx := context.Background()
	s := storetest.Postgres(t)
	now := s.Now()
	var js []jobstore.Job
	for i := range 10000 {
		js = append(js, jobstore.Job{ID: store.NewID(), WorkspaceID: fmt.Sprintf("ws-%d", i%100), Queue: "aiQueue", Name: "noop", State: store.JobWaiting, Data: "{}", MaxAttempts: 3, RunAt: now, CreatedAt: now})
	}
	for i := 0; i < len(js); i += 500 {
		if err := jobstore.New(s).InsertJobs(ctx, nil, js[i:i+500]); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{1, 100} {
		for _, backlog := range []bool{false, true} {
			out, err := jobstore.New(s).ExplainClaim(ctx, n, now+1000, backlog)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("==== n=%d backlog=%v\n%s\n", n, backlog, strings.Join(out, "\n"))
		}
	}
}
