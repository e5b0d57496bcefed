package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The first start prints the default workspace's key on stderr, beside the
// logs, never on stdout, which scripts capture.
func TestFirstStartPrintsTheKeyOnStderr(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := func(k string) string {
		switch k {
		case "HERALD_DATA_DIR":
			return dir
		case "HERALD_LISTEN":
			return "127.0.0.1:0"
		}
		return ""
	}
	var stdout bytes.Buffer
	stderr := &logSink{serving: make(chan string, 1)} // serve_test.go
	seen := stderr.serving
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"herald", "serve"}, env, &stdout, stderr) }()
	select {
	case <-seen:
	case err := <-done:
		t.Fatalf("serve ended before serving: %v\n%s", err, stderr.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	key := keyRe.FindString(stderr.String())
	if key == "" || !valid(t, openTestStore(t, dir), key) {
		t.Fatalf("stderr has no valid key:\n%s", stderr.String())
	}
	if strings.Contains(stdout.String(), "hk_") {
		t.Fatalf("the key is on stdout:\n%s", stdout.String())
	}
}
