package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/internal/testwait"
)

// waitOutput waits until the process has logged line at least n times: the
// signal that what the line reports (a reload refused, a shutdown begun)
// has happened, instead of a sleep that guesses how long it takes.
func waitOutput(t *testing.T, p *harness.Proc, line string, n int) {
	t.Helper()
	if testwait.Until(15*time.Second, func() bool { return strings.Count(p.Output(), line) >= n }) != nil {
		t.Fatalf("%q was not logged %d times within 15s:\n%s", line, n, p.Output())
	}
}

// waitJob polls the job route until the job is completed or failed and
// returns its body; a status other than 200, or no end within, fails t.
func waitJob(t *testing.T, p *harness.Proc, jobID string, within time.Duration) map[string]any {
	t.Helper()
	var body map[string]any
	finished := func() bool {
		var status int
		status, body = call(t, "GET", p.URL+"/v1/ai/generate/job/"+jobID, p.Key, "")
		if status != 200 {
			t.Fatalf("poll job %s: %d %v", jobID, status, body)
		}
		return body["state"] == "completed" || body["state"] == "failed"
	}
	if testwait.Until(within, finished) != nil {
		t.Fatalf("job %s never finished: %v\n%s", jobID, body, p.Output())
	}
	return body
}
