package jobs_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/testlog"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Durations in JSON logs read as durations ("100ms"), not as integers of
// nanoseconds.
func TestAnUnreachableRedisIsLoggedWithAReadableInterval(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	var logs testlog.Buffer
	q, err := jobs.New(jobs.Options{
		Store: storetest.SQLite(t), RedisURL: "redis://" + addr + "/0", PollInterval: 100 * time.Millisecond,
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, JSONFormat: true}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	for _, line := range strings.Split(logs.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["@message"] != "redis wake-ups unavailable, polling until they come back" {
			continue
		}
		if m["every"] != "100ms" {
			t.Fatalf("every = %#v, want \"100ms\": %s", m["every"], line)
		}
		return
	}
	t.Fatalf("no warning about the unreachable Redis:\n%s", logs.String())
}
