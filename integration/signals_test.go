package integration_test

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/internal/testwait"
)

// waitQueueIdle waits until herald's /metrics reports no unfinished job
// (herald_jobs, counted in the store at scrape time, all hosts): after it
// no retry or repeat of a delivery is still to come, so a count of
// deliveries is final.
func waitQueueIdle(t testing.TB, base string, within time.Duration) {
	t.Helper()
	var unfinished float64
	var err error
	idle := func() bool {
		unfinished, err = unfinishedJobs(base)
		return err == nil && unfinished == 0
	}
	if testwait.Until(within, idle) != nil {
		t.Fatalf("the queue is not idle after %s: %v unfinished jobs, %v", within, unfinished, err)
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
