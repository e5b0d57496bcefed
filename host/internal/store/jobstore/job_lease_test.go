package jobstore_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Only the lease owner extends a lease: a worker that lost its jobs to the
// rescuer (another host now holds them) must not keep them alive.
func TestOnlyTheLeaseOwnerExtendsALease(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ids := insertJobs(t, s, 3, func(int) int64 { return 10 })
		claimed, err := jobstore.New(s).ClaimJobs(ctx, "aiQueue", "owner", 3, 100, 1000)
		if err != nil || len(claimed) != 3 {
			t.Fatalf("claim: %d jobs, %v", len(claimed), err)
		}
		if got, err := jobstore.New(s).ExtendJobLeases(ctx, "intruder", ids, 5000); err != nil || len(got) != 0 {
			t.Fatalf("another owner extended %d leases (%v), want 0", len(got), err)
		}
		for _, id := range ids {
			j, err := jobstore.New(s).GetJob(ctx, "ws", id)
			if err != nil || j.LeaseUntil == nil || *j.LeaseUntil != 1000 || j.LeaseOwner == nil || *j.LeaseOwner != "owner" {
				t.Fatalf("job after another owner's extension: %+v, %v", j, err)
			}
		}
		if got, err := jobstore.New(s).ExtendJobLeases(ctx, "owner", ids, 5000); err != nil || len(got) != 3 {
			t.Fatalf("the owner extended %d leases (%v), want 3", len(got), err)
		}
		if j, _ := jobstore.New(s).GetJob(ctx, "ws", ids[0]); j.LeaseUntil == nil || *j.LeaseUntil != 5000 {
			t.Fatalf("lease after the owner's extension: %+v", j)
		}
	})
}
