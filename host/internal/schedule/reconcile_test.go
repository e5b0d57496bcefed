package schedule_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Two reconcilers that find the same orphan (the publisher's start-up pass
// and an explicit one, or two hosts) give it one job: a second job would
// take the schedule over while the first is exporting it and deliver it
// twice. This race was the flake of TestReconcileGivesADueScheduleWithoutAJobANewOne.
func TestConcurrentReconcilesPublishAnOrphanOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		rc := newReceiver(t)
		hook := b.SaveWebhook(t, b.Acme, rc)
		id := b.InsertOrphan(t, hook)
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := b.Pub.Reconcile(context.Background()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		b.WaitStatus(t, b.Acme, id, "published", 10*time.Second)
		b.WaitIdle(t, 10*time.Second)
		if rc.Count() != 1 {
			t.Fatalf("%d deliveries of one orphan reconciled twice at once, want 1", rc.Count())
		}
	})
}
