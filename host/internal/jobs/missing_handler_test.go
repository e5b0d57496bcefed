package jobs_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A job whose handler is missing on the host that claimed it (an older
// build during a rolling deploy) is retried, not failed, so that a host
// that has the handler runs it.
func TestAJobWithoutAHandlerHereIsRetriedAndRunsWhereTheHandlerIs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		old := b.queue(t)
		start(t, old)
		id := enqueue(t, old, jobs.NewJob{Name: "new-kind", MaxAttempts: 5})
		j := waitFor(t, s, id, "tried once", func(j jobstore.Job) bool { return j.AttemptsMade >= 1 && jobs.StateOf(j) != jobs.StateActive })
		if jobs.StateOf(j) == jobs.StateFailed || !strings.Contains(str(j.FailedReason), `no handler for job name "new-kind"`) {
			t.Fatalf("after an attempt on a host without the handler: state %s, reason %s; want a retry", j.State, str(j.FailedReason))
		}
		if err := old.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		upgraded := b.queue(t)
		upgraded.Register("new-kind", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) { return map[string]string{"ran": "here"}, nil }), jobs.HandlerOptions{})
		start(t, upgraded)
		upgraded.Wake(jobs.AIQueue)
		if j := waitFor(t, s, id, "completed", inState(jobs.StateCompleted)); !strings.Contains(str(j.Result), "here") {
			t.Fatalf("completed job: %+v", j)
		}
	})
}
