// Package jobstest helps the tests of code that queues jobs; its worker
// command is a stand-in host for the queue's own process tests.
package jobstest

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/internal/testwait"
)

// WaitFinished waits until the workspace's job id is completed or failed,
// as clients see it, and returns it. It fails t after timeout.
func WaitFinished(t testing.TB, q *jobs.Queue, workspace, id string, timeout time.Duration) jobstore.Job {
	t.Helper()
	var j jobstore.Job
	finished := func() bool {
		var err error
		if j, err = q.Get(context.Background(), workspace, id); err != nil {
			t.Fatal(err)
		}
		return jobs.StateOf(j).Finished()
	}
	if err := testwait.Until(timeout, finished); err != nil {
		t.Fatalf("job %s still %s", id, j.State)
	}
	return j
}
