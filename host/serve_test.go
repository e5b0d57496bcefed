package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// logSink collects a server's log and signals its first "serving" line.
type logSink struct {
	mu      sync.Mutex
	b       strings.Builder
	serving chan string // the URL, once
}

var servingURL = regexp.MustCompile(`serving: url=(\S+)`)

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if m := servingURL.FindStringSubmatch(l.b.String()); m != nil && l.serving != nil {
		l.serving <- m[1]
		l.serving = nil
	}
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeRunsInProcessAndStopsInReverseOrder runs the whole server
// through run, serves a request, and checks the shutdown order: the HTTP
// server first, the job queue after the loops that feed it, the beacon
// writer after the server, the plugins last.
func TestServeRunsInProcessAndStopsInReverseOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := func(k string) string {
		switch k {
		case "HERALD_LISTEN":
			return "127.0.0.1:0"
		case "HERALD_LOG_LEVEL":
			return "debug"
		}
		return ""
	}
	logs := &logSink{serving: make(chan string, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		var out strings.Builder
		done <- run(ctx, []string{"herald", "serve", "--data-dir", dir}, env, &out, logs)
	}()
	var url string
	select {
	case url = <-logs.serving:
	case err := <-done:
		t.Fatalf("serve ended before serving: %v\n%s", err, logs)
	}
	res, err := http.Get(url + "/v1/ai-traffic/t.js")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET t.js: %d", res.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, logs)
	}
	var stopped []string
	for _, m := range regexp.MustCompile(`stopping: part="?([a-z ]+?)"?\n`).FindAllStringSubmatch(logs.String(), -1) {
		stopped = append(stopped, m[1])
	}
	want := []string{"http", "visibility trackers", "image sweeper", "voice refresh", "publisher", "event deliverer", "jobs", "traffic retention", "plans", "page fold", "leases", "beacons", "sighup", "plugins"}
	if !slices.Equal(stopped, want) {
		t.Fatalf("stopped %q, want %q\n%s", stopped, want, logs)
	}
	if !strings.Contains(logs.String(), "stopped") {
		t.Fatalf("no clean stop in the log:\n%s", logs)
	}
}

// rec is a lifecycle that records its calls and may fail to start.
type rec struct {
	name  string
	fail  bool
	calls *[]string
}

func (r rec) Start(context.Context) error {
	*r.calls = append(*r.calls, "start "+r.name)
	if r.fail {
		return errors.New("refused")
	}
	return nil
}

func (r rec) Stop(context.Context) error {
	*r.calls = append(*r.calls, "stop "+r.name)
	return nil
}

func TestStartAllStopsTheStartedPartsWhenOneFails(t *testing.T) {
	t.Parallel()
	var calls []string
	parts := []part{{"a", rec{"a", false, &calls}}, {"b", rec{"b", false, &calls}}, {"c", rec{"c", true, &calls}}, {"d", rec{"d", false, &calls}}}
	_, err := startAll(context.Background(), hclog.NewNullLogger(), parts, func() (context.Context, context.CancelFunc) {
		return context.WithCancel(context.Background())
	})
	if err == nil || !strings.Contains(err.Error(), "start c: refused") {
		t.Fatalf("startAll: %v, want start c's error", err)
	}
	want := []string{"start a", "start b", "start c", "stop b", "stop a"}
	if !slices.Equal(calls, want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
}

// TestServeFailsCleanlyWhenABuildStepFails: a build step's error (here the
// blob store's: "blobs" is a file) is serve's error, and what the step had
// opened (the beacon writer) is closed, not left to a panic or a leak.
func TestServeFailsCleanlyWhenABuildStepFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "blobs"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "HERALD_LISTEN" {
			return "127.0.0.1:0"
		}
		return ""
	}
	var stdout, stderr strings.Builder
	err := run(context.Background(), []string{"herald", "serve", "--data-dir", dir}, env, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "blobs") {
		t.Fatalf("serve = %v, want the blob store's error\n%s", err, stderr.String())
	}
}
