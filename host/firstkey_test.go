package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
)

// signalWriter is a log sink that closes seen once the output contains want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.seen != nil && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return n, err
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

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
	stderr := &signalWriter{want: "serving: url=", seen: make(chan struct{})}
	seen := stderr.seen
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
