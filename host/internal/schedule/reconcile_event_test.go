package schedule_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A due post whose publish job failed for good is failed by the
// reconciler, and its schedule.failed event names the destination, the
// job's reason and that Herald will not retry.
func TestReconcileFailsAPostWhoseJobFailedWithItsDestination(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		ctx := context.Background()
		rc := newReceiver(t)
		hook := b.SaveWebhook(t, b.Acme, rc)
		id := b.InsertOrphan(t, hook)
		now := s.Now()
		if _, err := storetest.Exec(ctx, s, `INSERT INTO jobs (id, workspace_id, queue, name, state, data, result, failed_reason, max_attempts, run_at, created_at, finished_on)
			VALUES ('job-dead', $1, 'schedulerQueue', 'publish', 'failed', '{}', '', 'plugin crashed', 3, $2, $2, $2)`, b.AcmeID, now); err != nil {
			t.Fatal(err)
		}
		if _, err := storetest.Exec(ctx, s, `UPDATE schedules SET job_id = 'job-dead' WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if err := b.Pub.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		evs, err := s.ListEvents(ctx, b.AcmeID, catalog.ScheduleFailed, 10)
		if err != nil || len(evs) != 1 {
			t.Fatalf("schedule.failed events: %v %v", evs, err)
		}
		for _, want := range []string{`"scheduleId":"` + id + `"`, `"destination":"webhook"`, `"error":"the publish job failed: plugin crashed"`, `"willRetry":false`} {
			if !strings.Contains(evs[0].Data, want) {
				t.Errorf("event %s lacks %s", evs[0].Data, want)
			}
		}
	})
}
