package integration_test

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// waitOutput waits until the process has logged line at least n times: the
// signal that what the line reports (a reload refused, a shutdown begun)
// has happened, instead of a sleep that guesses how long it takes.
func waitOutput(t *testing.T, p *harness.Proc, line string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Count(p.Output(), line) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%q was not logged %d times within 15s:\n%s", line, n, p.Output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitQueueIdle waits until herald's /metrics reports no unfinished job
// (herald_jobs, counted in the store at scrape time, all hosts): after it
// no retry or repeat of a delivery is still to come, so a count of
// deliveries is final.
func waitQueueIdle(t testing.TB, base string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		unfinished, err := unfinishedJobs(base)
		if err == nil && unfinished == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the queue is not idle after %s: %v unfinished jobs, %v", within, unfinished, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func unfinishedJobs(base string) (float64, error) {
	res, err := http.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, err
	}
	found, sum := false, 0.0
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "herald_jobs{") {
			continue
		}
		found = true
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("metrics line %q: %w", line, err)
		}
		sum += v
	}
	if !found {
		return 0, fmt.Errorf("no herald_jobs series in /metrics (status %d)", res.StatusCode)
	}
	return sum, nil
}
