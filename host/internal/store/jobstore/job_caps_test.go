package jobstore_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func addJobs(t *testing.T, s *store.Store, ws string, n int, runAt int64) []string {
	t.Helper()
	rows := make([]jobstore.Job, n)
	ids := make([]string, n)
	for i := range rows {
		ids[i] = store.NewID()
		rows[i] = jobstore.Job{ID: ids[i], WorkspaceID: ws, Queue: "aiQueue", Name: "n", State: store.JobWaiting,
			Data: "{}", MaxAttempts: 1, RunAt: runAt + int64(i), CreatedAt: 1}
	}
	if err := jobstore.New(s).InsertJobs(context.Background(), nil, rows); err != nil {
		t.Fatal(err)
	}
	return ids
}

func workspacesOf(jobs []jobstore.Job) map[string]int {
	out := map[string]int{}
	for _, j := range jobs {
		out[j.WorkspaceID]++
	}
	return out
}

func TestClaimTakesEveryWorkspaceInTurn(t *testing.T) {
	t.Parallel()
	for _, backlog := range []bool{false, true} {
		t.Run(fmt.Sprintf("backlog=%v", backlog), func(t *testing.T) {
			t.Parallel()
			claimTakesEveryWorkspaceInTurn(t, backlog)
		})
	}
}

func claimTakesEveryWorkspaceInTurn(t *testing.T, backlog bool) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		addJobs(t, s, "flood", 60, 10) // older than everyone else's
		b := addJobs(t, s, "b", 2, 500)
		c := addJobs(t, s, "c", 1, 900)
		got, err := jobstore.New(s).ClaimJobsCapped(ctx, "aiQueue", "me", 3, 1000, 2000, jobstore.JobCaps{}, backlog)
		if err != nil {
			t.Fatal(err)
		}
		if w := workspacesOf(got); w["flood"] != 1 || w["b"] != 1 || w["c"] != 1 {
			t.Fatalf("first claim of 3 took %v, want one job of each workspace", w)
		}
		if got[1].ID != b[0] || got[2].ID != c[0] {
			t.Fatalf("first claim: %s, %s; want b's oldest then c's", got[1].ID, got[2].ID)
		}
		got, err = jobstore.New(s).ClaimJobsCapped(ctx, "aiQueue", "me", 2, 1000, 2000, jobstore.JobCaps{}, backlog)
		if err != nil {
			t.Fatal(err)
		}
		if w := workspacesOf(got); w["flood"] != 1 || w["b"] != 1 {
			t.Fatalf("second claim of 2 took %v, want rank 2 of flood and b", w)
		}
	})
}

func TestClaimLeavesWorkspacesAtTheirRunningCap(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		pro, _, err := s.EnsureWorkspaceUser(ctx, "pro-"+store.NewID(), "pro", store.NewID()+"@example.com")
		if err != nil {
			t.Fatal(err)
		}
		addJobs(t, s, "free-ws", 10, 10)
		addJobs(t, s, pro.ID, 10, 10)
		caps := jobstore.JobCaps{Default: jobstore.JobCap{Running: 2}, ByPlan: map[string]jobstore.JobCap{"pro": {Running: 3}, "free": {Running: 1}}}
		got, err := jobstore.New(s).ClaimJobsCapped(ctx, "aiQueue", "me", 50, 1000, 2000, caps, false)
		if err != nil {
			t.Fatal(err)
		}
		if w := workspacesOf(got); w["free-ws"] != 2 || w[pro.ID] != 3 || len(got) != 5 {
			t.Fatalf("claimed %v, want 2 of the workspace without a row (default cap) and 3 of the pro one", w)
		}
		// At the cap, nothing more is claimed until a job finishes.
		if got, err := jobstore.New(s).ClaimJobsCapped(ctx, "aiQueue", "me", 50, 1000, 2000, caps, true); err != nil || len(got) != 0 {
			t.Fatalf("claim at the cap: %d jobs, %v", len(got), err)
		}
		done := []jobstore.JobOutcome{{ID: got[0].ID, Attempt: 1, State: store.JobCompleted}}
		if _, err := jobstore.New(s).FinishJobs(ctx, "me", 1100, done); err != nil {
			t.Fatal(err)
		}
		again, err := jobstore.New(s).ClaimJobsCapped(ctx, "aiQueue", "me", 50, 1000, 2000, caps, true)
		if err != nil || len(again) != 1 || again[0].WorkspaceID != got[0].WorkspaceID {
			t.Fatalf("after one finished: %v %v, want one job of %s", workspacesOf(again), err, got[0].WorkspaceID)
		}
	})
}

func TestInsertRefusesJobsOverTheQueuedCap(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		caps := jobstore.JobCaps{Default: jobstore.JobCap{Queued: 3}}
		job := func(ws string, runAt int64) jobstore.Job {
			return jobstore.Job{ID: store.NewID(), WorkspaceID: ws, Queue: "aiQueue", Name: "n", State: store.JobWaiting,
				Data: "{}", MaxAttempts: 1, RunAt: runAt, CreatedAt: 1}
		}
		if err := jobstore.New(s).InsertJobsCapped(ctx, nil, []jobstore.Job{job("a", 10), job("a", 10)}, 100, caps); err != nil {
			t.Fatal(err)
		}
		// Two more would make four.
		err := jobstore.New(s).InsertJobsCapped(ctx, nil, []jobstore.Job{job("a", 10), job("a", 10)}, 100, caps)
		var capErr *jobstore.ErrJobCap
		if !errors.As(err, &capErr) || capErr.Workspace != "a" || capErr.Cap != 3 {
			t.Fatalf("over the cap: %v, want ErrJobCap for a with cap 3", err)
		}
		if err := jobstore.New(s).InsertJobsCapped(ctx, nil, []jobstore.Job{job("a", 10)}, 100, caps); err != nil {
			t.Fatalf("the third job: %v", err)
		}
		if err := jobstore.New(s).InsertJobsCapped(ctx, nil, []jobstore.Job{job("a", 10)}, 100, caps); !errors.As(err, &capErr) {
			t.Fatalf("the fourth job: %v, want ErrJobCap", err)
		}
		// Jobs that run later and other workspaces are not affected.
		if err := jobstore.New(s).InsertJobsCapped(ctx, nil, []jobstore.Job{job("a", 5000), job("b", 10)}, 100, caps); err != nil {
			t.Fatal(err)
		}
		// A claimed job leaves the queue and makes room.
		if _, err := jobstore.New(s).ClaimJobs(ctx, "aiQueue", "me", 1, 100, 1000); err != nil {
			t.Fatal(err)
		}
		if err := jobstore.New(s).InsertJobsCapped(ctx, nil, []jobstore.Job{job("a", 10)}, 100, caps); err != nil {
			t.Fatalf("after a claim: %v", err)
		}
		// A job that runs now is ready at once and counts against the cap.
		if err := jobstore.New(s).InsertJobsCapped(ctx, nil, []jobstore.Job{job("a", 100)}, 100, caps); !errors.As(err, &capErr) {
			t.Fatalf("a fourth job due now: %v, want ErrJobCap", err)
		}
		if err := jobstore.New(s).InsertJobsCapped(ctx, nil, []jobstore.Job{job("a", 101)}, 100, caps); err != nil {
			t.Fatalf("a job due 1 ms from now: %v", err)
		}
	})
}
