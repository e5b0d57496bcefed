package jobstore_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"slices"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func insertJobs(t *testing.T, s *store.Store, n int, runAt func(i int) int64) []string {
	t.Helper()
	rows := make([]jobstore.Job, n)
	ids := make([]string, n)
	for i := range rows {
		ids[i] = store.NewID()
		rows[i] = jobstore.Job{ID: ids[i], WorkspaceID: "ws", Queue: "aiQueue", Name: "n", State: store.JobWaiting,
			Data: fmt.Sprintf(`{"i":%d}`, i), MaxAttempts: 2, RunAt: runAt(i), CreatedAt: 1}
	}
	if err := jobstore.New(s).InsertJobs(context.Background(), nil, rows); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestConcurrentClaimsNeverShareAJob(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		const jobs = 600 // more than one multi-row statement
		insertJobs(t, s, jobs, func(int) int64 { return 10 })
		var mu sync.Mutex
		seen := map[string]string{}
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for w := range 4 {
			owner := fmt.Sprintf("w%d", w)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					claimed, err := jobstore.New(s).ClaimJobs(context.Background(), "aiQueue", owner, 37, 100, 1000)
					if err != nil {
						errs <- err
						return
					}
					if len(claimed) == 0 {
						return
					}
					mu.Lock()
					for _, j := range claimed {
						if prev, ok := seen[j.ID]; ok {
							errs <- fmt.Errorf("job %s claimed by %s and %s", j.ID, prev, owner)
						}
						seen[j.ID] = owner
						if j.State != store.JobActive || j.AttemptsMade != 1 || *j.LeaseOwner != owner || *j.LeaseUntil != 1000 || *j.ProcessedOn != 100 {
							errs <- fmt.Errorf("claimed row: %+v", j)
						}
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(seen) != jobs {
			t.Fatalf("claimed %d of %d jobs", len(seen), jobs)
		}
	})
}

func TestJobOutcomesAreGuardedByLeaseAndAttempt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ids := insertJobs(t, s, 3, func(i int) int64 { return int64(10 + i) })
		claimed, err := jobstore.New(s).ClaimJobs(ctx, "aiQueue", "me", 10, 100, 1000)
		if err != nil || len(claimed) != 3 || claimed[0].ID != ids[0] || claimed[2].ID != ids[2] {
			t.Fatalf("claim in run-time order: %+v %v", claimed, err)
		}
		if err := jobstore.New(s).UpdateJobProgress(ctx, "me", ids[0], 1, 30, ptr(`{"part":1}`)); err != nil {
			t.Fatal(err)
		}
		if err := jobstore.New(s).UpdateJobProgress(ctx, "someone-else", ids[0], 1, 40, nil); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("progress by another owner: %v", err)
		}
		reason := "boom"
		n, err := jobstore.New(s).FinishJobs(ctx, "me", 200, []jobstore.JobOutcome{
			{ID: ids[0], Attempt: 1, State: store.JobCompleted, Result: ptr(`{"ok":true}`)},
			{ID: ids[1], Attempt: 2, State: store.JobCompleted}, // stale attempt: ignored
			{ID: ids[2], Attempt: 1, State: store.JobDelayed, Reason: &reason, RunAt: 500},
		})
		if err != nil || n != 2 {
			t.Fatalf("finish: %d %v", n, err)
		}
		j0, _ := jobstore.New(s).GetJob(ctx, "ws", ids[0])
		if j0.State != store.JobCompleted || *j0.Result != `{"ok":true}` || j0.Progress != 100 || *j0.FinishedOn != 200 || j0.LeaseOwner != nil {
			t.Fatalf("completed: %+v", j0)
		}
		j1, _ := jobstore.New(s).GetJob(ctx, "ws", ids[1])
		if j1.State != store.JobActive {
			t.Fatalf("stale outcome was recorded: %+v", j1)
		}
		j2, _ := jobstore.New(s).GetJob(ctx, "ws", ids[2])
		if j2.State != store.JobDelayed || j2.RunAt != 500 || *j2.FailedReason != "boom" || j2.FinishedOn != nil {
			t.Fatalf("delayed: %+v", j2)
		}
		if at, err := jobstore.New(s).NextJobRunAt(ctx, "aiQueue"); err != nil || at == nil || *at != 500 {
			t.Fatalf("next run: %v %v", at, err)
		}
		if got, _ := jobstore.New(s).ClaimJobs(ctx, "aiQueue", "me", 10, 499, 2000); len(got) != 0 {
			t.Fatalf("claimed a job before its run time: %+v", got)
		}
		if _, err := jobstore.New(s).GetJob(ctx, "other-ws", ids[0]); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other workspace: %v", err)
		}
	})
}

func TestLeasesAreExtendedReleasedAndRescued(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ids := insertJobs(t, s, 3, func(i int) int64 { return int64(10 + i) })
		if _, err := jobstore.New(s).ClaimJobs(ctx, "aiQueue", "me", 10, 100, 1000); err != nil {
			t.Fatal(err)
		}
		if got, err := jobstore.New(s).ExtendJobLeases(ctx, "me", append(ids[:2:2], ids[2]+"-gone"), 5000); err != nil || !slices.Equal(sorted(got), sorted(ids[:2])) {
			t.Fatalf("extend: %v %v", got, err)
		}
		queues, err := jobstore.New(s).ReleaseJobs(ctx, "me", ids[1:2], 150)
		if err != nil || len(queues) != 1 || queues[0] != "aiQueue" {
			t.Fatalf("release: %v %v", queues, err)
		}
		released, _ := jobstore.New(s).GetJob(ctx, "ws", ids[1])
		if released.State != store.JobWaiting || released.AttemptsMade != 0 || released.RunAt != 150 || released.LeaseOwner != nil {
			t.Fatalf("released: %+v", released)
		}
		// ids[2] keeps its lease of 1000; ids[0] was extended to 5000.
		rescued, err := jobstore.New(s).RescueJobs(ctx, 2000, "lease expired", 10)
		if err != nil || len(rescued) != 1 || rescued[0].ID != ids[2] || rescued[0].State != store.JobWaiting {
			t.Fatalf("rescue: %+v %v", rescued, err)
		}
		// Second loss of ids[2] is its last attempt (max 2): it fails.
		if got, err := jobstore.New(s).ClaimJobs(ctx, "aiQueue", "me", 10, 2001, 2500); err != nil || len(got) != 2 {
			t.Fatalf("reclaim: %+v %v", got, err)
		}
		rescued, err = jobstore.New(s).RescueJobs(ctx, 3000, "lease expired", 10)
		if err != nil || len(rescued) != 2 {
			t.Fatalf("rescue: %+v %v", rescued, err)
		}
		j2, _ := jobstore.New(s).GetJob(ctx, "ws", ids[2])
		if j2.State != store.JobFailed || j2.AttemptsMade != 2 || *j2.FailedReason != "lease expired" || *j2.FinishedOn != 3000 {
			t.Fatalf("rescued after last attempt: %+v", j2)
		}
		counts, err := jobstore.New(s).CountUnfinishedJobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, c := range counts {
			got[c.Queue+"/"+c.State] = c.Count
		}
		if len(got) != 2 || got["aiQueue/waiting"] != 1 || got["aiQueue/active"] != 1 {
			t.Fatalf("counts: %v", got)
		}
		if n, err := jobstore.New(s).PruneJobs(ctx, 3001, 100); err != nil || n != 1 {
			t.Fatalf("prune: %d %v", n, err)
		}
		if _, err := jobstore.New(s).GetJob(ctx, "ws", ids[2]); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("pruned job: %v", err)
		}
	})
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func ptr[T any](v T) *T { return &v }
