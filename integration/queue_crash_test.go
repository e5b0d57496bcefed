package integration_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/internal/testwait"
)

// TestQueuedJobsSurviveSIGKILLOfHeraldServe kills `herald serve` with
// SIGKILL while text jobs are running in it, restarts it on the same data,
// and checks that every job reaches completed.
func TestQueuedJobsSurviveSIGKILLOfHeraldServe(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	// Provider calls wait until hold is closed (after the kill), so the
	// jobs making them are certainly active when herald dies.
	hold := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer slow.Close()
	released := false
	defer func() {
		if !released {
			close(hold)
		}
	}()
	env := map[string]string{
		"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": slow.URL + "/v1",
		"HERALD_JOB_LEASE": "2s", "HERALD_JOB_POLL_INTERVAL": "200ms", "HERALD_QUEUE_AIQUEUE_CONCURRENCY": "4",
	}
	p := harness.Start(t, harness.Options{Env: env, AllowLog: []harness.Allow{
		{Match: `rescued jobs with expired leases`, Why: "the test SIGKILLs herald with jobs running"},
	}})

	const n = 24
	ids := make([]string, 0, n)
	for i := range n {
		status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, fmt.Sprintf(`{"model":"gpt-4o","text":"job %d","useWorker":true}`, i))
		if status != 202 {
			t.Fatalf("enqueue: %d %v", status, body)
		}
		ids = append(ids, body["jobId"].(string))
	}
	// Kill while jobs are active: some provider calls have started.
	if testwait.Until(20*time.Second, func() bool { return calls.Load() >= 4 }) != nil {
		t.Fatalf("no job started:\n%s", p.Output())
	}
	active := 0
	for _, id := range ids {
		if _, body := call(t, "GET", p.URL+"/v1/ai/generate/job/"+id, p.Key, ""); body["state"] == "active" {
			active++
		}
	}
	p.Kill()
	close(hold)
	released = true
	if active == 0 {
		t.Fatalf("no job was active at the kill although %d provider calls were held open", calls.Load())
	}

	killedAt := time.Now()
	p.Restart()
	t.Logf("restarted in %s", time.Since(killedAt))
	deadline := time.Now().Add(60 * time.Second)
	for _, id := range ids {
		// A job lost after the restart answers 404, which fails the wait.
		if body := waitJob(t, p, id, time.Until(deadline)); body["state"] != "completed" {
			t.Fatalf("job %s failed: %v", id, body["failedReason"])
		}
	}
	t.Logf("%d jobs, %d active at SIGKILL, %d provider calls in all, all completed %s after the kill", n, active, calls.Load(), time.Since(killedAt))
}
