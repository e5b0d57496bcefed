package integration_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// call sends one JSON request to a running herald and returns the status
// and the JSON object answered (nil when the answer is not one). The
// integration tests cannot import host/internal/api/apitest; this is
// their one request helper.
func call(t testing.TB, method, url, key, body string) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("api-key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(res.Body)
	json.Unmarshal(raw, &out)
	return res.StatusCode, out
}

func TestFirstStartCreatesTheDefaultWorkspaceOnce(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{})
	if !strings.HasPrefix(p.Key, "hk_") {
		t.Fatalf("first start printed no key:\n%s", p.Output())
	}
	if status, _ := call(t, "POST", p.URL+"/v1/ai/generate/brand-voice/text", p.Key, `{"content":"hello"}`); status != 201 {
		t.Fatalf("create with the printed key: %d", status)
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, p.Output())
	}
	p.Restart()
	if strings.Contains(p.Output(), "hk_") {
		t.Fatalf("second start printed a key again:\n%s", p.Output())
	}
	status, body := call(t, "GET", p.URL+"/v1/ai/brand-voice/", p.Key, "")
	if status != 200 || len(body["data"].([]any)) != 1 {
		t.Fatalf("data did not survive the restart: %d %v", status, body)
	}
}

func TestKeysCreateWorksWhileServeRuns(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{})
	ctx := context.Background()
	out, err := p.Run(ctx, "keys", "create", "--workspace", "growth", "--plan", "pro", "--user", "g@growth.test")
	if err != nil {
		t.Fatal(err)
	}
	key := harness.LastLine(out)
	if !strings.HasPrefix(key, "hk_") {
		t.Fatalf("last line is not a key: %q", out)
	}
	if status, _ := call(t, "POST", p.URL+"/v1/ai/generate/brand-voice/text", key, `{"content":"growth voice"}`); status != 201 {
		t.Fatalf("new key on the running server: %d", status)
	}
	// Workspaces are separate: the default workspace does not see growth's voice.
	if _, body := call(t, "GET", p.URL+"/v1/ai/brand-voice/", p.Key, ""); len(body["data"].([]any)) != 0 {
		t.Fatalf("default workspace sees another workspace's voice: %v", body)
	}
	if _, err := p.Run(ctx, "keys", "create", "--workspace", "x", "--plan", "platinum"); err == nil || !strings.Contains(err.Error(), "--plan") {
		t.Fatalf("bad plan: %v", err)
	}
}

func TestSIGTERMFinishesInFlightRequests(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{})
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", p.URL+"/v1/ai/generate/brand-voice/text", pr)
	req.Header.Set("api-key", p.Key)
	req.Header.Set("Expect", "100-continue")
	reading := make(chan struct{})
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{Got100Continue: func() { close(reading) }}))
	type result struct {
		status int
		err    error
	}
	done := make(chan result, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		res.Body.Close()
		done <- result{status: res.StatusCode}
	}()
	// The server answers "100 Continue" when the handler starts reading
	// the body: then the request is in flight in herald.
	select {
	case <-reading:
	case <-time.After(15 * time.Second):
		t.Fatalf("herald never started reading the request body\n%s", p.Output())
	}
	io.WriteString(pw, `{"content":"slow `)
	stopped := make(chan error, 1)
	go func() { stopped <- p.Stop(15 * time.Second) }()
	waitOutput(t, p, "shutting down", 1)
	io.WriteString(pw, `upload"}`)
	pw.Close()
	r := <-done
	if r.err != nil || r.status != 201 {
		t.Fatalf("in-flight request during shutdown: %+v", r)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, p.Output())
	}
	if !strings.Contains(p.Output(), "stopped") {
		t.Fatalf("no shutdown log:\n%s", p.Output())
	}
}

func TestOperatorCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	out, err := harness.RunCommand(ctx, t, dir, nil, "version")
	if err != nil || !strings.HasPrefix(out, "herald ") || strings.TrimSpace(out) == "herald dev" {
		t.Fatalf("version: %q %v", out, err)
	}
	// Built from a git clone, the binary names its revision (the Go
	// toolchain stamps it; it does not look into a worktree's .git file).
	if fi, err := os.Stat(filepath.Join(harness.Root(), ".git")); err != nil || !fi.IsDir() {
		t.Log("not a git clone: the revision in `herald version` is not checked")
	} else if rev, err := exec.Command("git", "-C", harness.Root(), "rev-parse", "HEAD").Output(); err == nil {
		if short := strings.TrimSpace(string(rev))[:12]; !strings.Contains(out, short) {
			t.Fatalf("version %q does not name the checkout's revision %s", out, short)
		}
	}
	out, err = harness.RunCommand(ctx, t, dir, nil, "migrate")
	if err != nil || !strings.Contains(out, "migrations applied") {
		t.Fatalf("migrate: %q %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "herald.db")); err != nil {
		t.Fatalf("migrate made no SQLite file: %v", err)
	}
	cfg := filepath.Join(t.TempDir(), "bad.hcl")
	os.WriteFile(cfg, []byte("listen = \"127.0.0.1:0\"\nlog_format = \"xml\"\n"), 0o600)
	_, err = harness.RunCommand(ctx, t, dir, nil, "serve", "--config", cfg)
	if err == nil || !strings.Contains(err.Error(), cfg+":2: log_format") {
		t.Fatalf("bad config must name file, line and field: %v", err)
	}
	if _, err := harness.RunCommand(ctx, t, dir, nil, "frobnicate"); err == nil {
		t.Fatal("unknown command accepted")
	}
}
