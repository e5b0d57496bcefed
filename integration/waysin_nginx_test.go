package integration_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// nginxConf is a throwaway nginx on 127.0.0.1 that logs with the herald
// format of deploy/nginx (included as shipped) and with plain combined.
// Its worker runs as root only because the test's temp dir is private to
// root and a worker reopens the logs itself on USR1 (ignored when the test
// does not run as root).
const nginxConf = `daemon off;
user root;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log notice;
events { worker_connections 64; }
http {
	include %[2]s;
	client_body_temp_path %[1]s/tmp; proxy_temp_path %[1]s/tmp; fastcgi_temp_path %[1]s/tmp;
	uwsgi_temp_path %[1]s/tmp; scgi_temp_path %[1]s/tmp;
	server {
		listen 127.0.0.1:%[3]d;
		server_name example.com;
		access_log %[1]s/access.log herald;
		access_log %[1]s/combined.log combined;
		location / { return 200 "ok\n"; }
	}
}
`

// The real nginx writes its access log; `herald logs ship` posts what it
// wrote, follows the log across a rotation (rename, then nginx's USR1
// reopen) and sends nothing twice across runs.
func TestNginxLogShipping(t *testing.T) {
	t.Parallel()
	nginx := program(t, "nginx", "nginx")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "tmp"), 0o755)
	port := freePort(t)
	conf := filepath.Join(dir, "nginx.conf")
	format := filepath.Join(harness.Root(), "deploy", "nginx", "herald-log-format.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf(nginxConf, dir, format, port)), 0o644)
	if out, err := exec.Command(nginx, "-t", "-p", dir, "-c", conf).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	srv := startServer(t, port, nil, nginx, "-p", dir, "-c", conf)

	rc := newLogReceiver(t, "kis_nginx-secret", "ks_nginx", "example.com")
	secret := writeSecret(t, dir, "kis_nginx-secret")
	log := filepath.Join(dir, "access.log")

	get(t, port, "example.com", "/pricing", uaGPTBot, "")
	get(t, port, "example.com", "/docs/setup?x=1", uaClaudeBot, "")
	get(t, port, "www.example.com", "/", uaBrowser, "https://chatgpt.com/")
	waitFile(t, log, 3)
	out := ship(t, rc.URL(), "ks_nginx", secret, log, "--state", filepath.Join(dir, "offset"))
	wantHits(t, rc.Hits(), map[string][]string{
		uaGPTBot:    {"GET /pricing 200 127.0.0.1 example.com "},
		uaClaudeBot: {"GET /docs/setup?x=1 200 127.0.0.1 example.com "},
		uaBrowser:   {"GET / 200 127.0.0.1 www.example.com https://chatgpt.com/"},
	})
	if len(rc.Rejected()) != 0 {
		t.Fatalf("rejected %q\n%s", rc.Rejected(), out)
	}

	// logrotate's default: rename, then tell nginx to reopen its logs.
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	get(t, port, "example.com", "/before-reopen", uaGPTBot, "")
	waitFile(t, log+".1", 4)
	if err := srv.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	// The master and the worker each log "reopening logs" (a notice) just
	// before they reopen; a request after the worker's goes to the new file.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		if strings.Count(string(b), "reopening logs") >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not reopen its logs on USR1:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	get(t, port, "example.com", "/after-reopen", uaClaudeBot, "")
	waitFile(t, log, 1)
	ship(t, rc.URL(), "ks_nginx", secret, log, "--state", filepath.Join(dir, "offset"))
	ship(t, rc.URL(), "ks_nginx", secret, log, "--state", filepath.Join(dir, "offset"))
	wantHits(t, rc.Hits(), map[string][]string{
		uaGPTBot:    {"GET /pricing 200 127.0.0.1 example.com ", "GET /before-reopen 200 127.0.0.1 example.com "},
		uaClaudeBot: {"GET /docs/setup?x=1 200 127.0.0.1 example.com ", "GET /after-reopen 200 127.0.0.1 example.com "},
		uaBrowser:   {"GET / 200 127.0.0.1 www.example.com https://chatgpt.com/"},
	})

	// Running as a service: a new line goes within a poll and a batch wait;
	// SIGTERM stops it cleanly, and a run after it sends nothing again.
	follow := exec.Command(harness.Binary(t), "logs", "ship", "--file", log, "--url", rc.URL(), "--site-key", "ks_nginx",
		"--secret-file", secret, "--state", filepath.Join(dir, "offset"), "--poll", "50ms", "--batch-wait", "50ms")
	var followOut strings.Builder
	follow.Stdout, follow.Stderr = &followOut, &followOut
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- follow.Wait() }()
	t.Cleanup(func() { follow.Process.Kill() })
	get(t, port, "example.com", "/while-following", uaGPTBot, "")
	for deadline := time.Now().Add(30 * time.Second); len(rc.Hits()) < 6; {
		if time.Now().After(deadline) {
			t.Fatalf("the running shipper did not post the new line:\n%s", followOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	follow.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the shipper exited with %v on SIGTERM:\n%s", err, followOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the shipper did not stop on SIGTERM")
	}
	if last := rc.Hits()[5]; last.Path != "/while-following" || last.UserAgent != uaGPTBot {
		t.Fatalf("the running shipper posted %+v", last)
	}
	if strings.Contains(followOut.String(), "kis_nginx-secret") {
		t.Fatalf("the shipper logged the secret:\n%s", followOut.String())
	}
	ship(t, rc.URL(), "ks_nginx", secret, log, "--state", filepath.Join(dir, "offset"))
	if n := len(rc.Hits()); n != 6 {
		t.Fatalf("a run after the service stopped sent %d lines again", n-6)
	}

	// Plain combined (no host field) parses too.
	combined := filepath.Join(dir, "combined.log")
	ship(t, rc.URL(), "ks_nginx", secret, combined, "--state", filepath.Join(dir, "offset-combined"))
	if got := len(rc.Hits()); got != 6+6 || len(rc.Rejected()) != 0 {
		t.Fatalf("after the combined log: %d hits, rejected %q", got, rc.Rejected())
	}
	for _, h := range rc.Hits()[6:] {
		if h.Host != "" || h.Format != "combined" || !strings.HasPrefix(h.Path, "/") {
			t.Fatalf("combined hit %+v", h)
		}
	}
}
