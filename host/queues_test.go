package main

import (
	"slices"
	"testing"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/jobs"
)

// TestConfigQueuesAreTheJobQueues keeps the queue names config accepts equal
// to the queues the job queue serves (config cannot import jobs).
func TestConfigQueuesAreTheJobQueues(t *testing.T) {
	t.Parallel()
	if !slices.Equal(config.QueueNames, jobs.QueueNames) {
		t.Fatalf("config.QueueNames = %v, jobs.QueueNames = %v", config.QueueNames, jobs.QueueNames)
	}
}
