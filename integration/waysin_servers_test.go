package integration_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
)

// The user agents the tests send: two AI crawlers and a person.
const (
	uaGPTBot    = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot"
	uaClaudeBot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
	uaBrowser   = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
)

// program returns the path of a Debian program the test runs for real, or
// skips (fails under HERALD_REQUIRE_INTEGRATION=1, where .ci/run installs it).
func program(t *testing.T, name, pkg string) string {
	t.Helper()
	for _, p := range []string{name, "/usr/sbin/" + name, "/usr/bin/" + name} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	testenv.Unavailable(t, fmt.Sprintf("%s is not installed (Debian package %s; .ci/run installs it)", name, pkg))
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer runs a web server in the foreground until the test ends and
// waits until it accepts connections on port.
func startServer(t *testing.T, port int, env []string, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return cmd
		}
		select {
		case err := <-done:
			t.Fatalf("%s exited: %v\n%s", name, err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not listen on %d:\n%s", name, port, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// get requests path from the server at port with a Host header and a
// user agent (and a referrer, for a visit an assistant sent).
func get(t *testing.T, port int, host, path, ua, referrer string) {
	t.Helper()
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	req.Host = host
	req.Header.Set("User-Agent", ua)
	if referrer != "" {
		req.Header.Set("Referer", referrer)
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d", path, res.StatusCode)
	}
}

// ship runs `herald logs ship --once` (the real binary) on file.
func ship(t *testing.T, url, siteKey, secretFile, file string, extra ...string) string {
	t.Helper()
	harness.Binary(t) // built before the command's clock starts
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"logs", "ship", "--once", "--from-start", "--file", file, "--url", url, "--site-key", siteKey,
		"--secret-file", secretFile}, extra...)
	out, err := harness.RunCommand(ctx, t, t.TempDir(), nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// waitFile waits until path holds want lines (servers write their log
// after answering).
func waitFile(t *testing.T, path string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if n := strings.Count(string(b), "\n"); n >= want {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%s has %d lines, want %d:\n%s", path, n, want, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func writeSecret(t *testing.T, dir, secret string) string {
	t.Helper()
	p := filepath.Join(dir, "ingest-secret")
	if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// hitsByUA is what arrived, keyed by user agent, as "METHOD PATH STATUS IP HOST REFERER".
func hitsByUA(hits []logHit) map[string][]string {
	m := map[string][]string{}
	for _, h := range hits {
		m[h.UserAgent] = append(m[h.UserAgent], strings.Join([]string{h.Method, h.Path, fmt.Sprint(h.Status), h.IP, h.Host, h.Referer}, " "))
	}
	return m
}

func wantHits(t *testing.T, got []logHit, want map[string][]string) {
	t.Helper()
	g := hitsByUA(got)
	if fmt.Sprint(g) != fmt.Sprint(want) {
		t.Fatalf("arrived\n%v\nwant\n%v", g, want)
	}
	for _, h := range got {
		if time.Since(h.Time) > time.Hour || time.Until(h.Time) > time.Minute {
			t.Fatalf("hit time %v is not now", h.Time)
		}
	}
}
