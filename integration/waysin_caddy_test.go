package integration_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
)

// caddyfile is a throwaway Caddy on 127.0.0.1 (no admin endpoint, no
// automatic HTTPS) whose site imports the log snippet of deploy/caddy as
// shipped.
const caddyfile = `{
	admin off
	auto_https off
	storage file_system %[1]s/storage
}
import %[2]s
http://example.com:%[3]d, http://www.example.com:%[3]d {
	bind 127.0.0.1
	import herald_log
	respond "ok" 200
}
`

// The real Caddy writes its JSON access log; `herald logs ship` posts it
// as JSON lines and the route reads method, host, path, status, user agent,
// referrer, client IP and time from it.
func TestCaddyLogShipping(t *testing.T) {
	t.Parallel()
	caddy := program(t, "caddy", "caddy")
	dir := t.TempDir()
	port := freePort(t)
	conf := filepath.Join(dir, "Caddyfile")
	snippet := filepath.Join(harness.Root(), "deploy", "caddy", "herald.caddyfile")
	os.WriteFile(conf, []byte(fmt.Sprintf(caddyfile, dir, snippet, port)), 0o644)
	log := filepath.Join(dir, "access.log")
	env := []string{"HERALD_ACCESS_LOG=" + log, "HOME=" + dir, "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir}
	validate := exec.Command(caddy, "validate", "--config", conf, "--adapter", "caddyfile")
	validate.Env = append(os.Environ(), env...)
	if out, err := validate.CombinedOutput(); err != nil {
		t.Fatalf("caddy validate: %v\n%s", err, out)
	}
	startServer(t, port, env, caddy, "run", "--config", conf, "--adapter", "caddyfile")

	rc := newLogReceiver(t, "kis_caddy-secret", "ks_caddy", "example.com")
	secret := writeSecret(t, dir, "kis_caddy-secret")
	get(t, port, fmt.Sprintf("example.com:%d", port), "/pricing", uaGPTBot, "")
	get(t, port, fmt.Sprintf("www.example.com:%d", port), "/blog/post?utm_source=chatgpt.com", uaBrowser, "https://chatgpt.com/")
	waitFile(t, log, 2)
	out := ship(t, rc.URL(), "ks_caddy", secret, log, "--state", filepath.Join(dir, "offset"))
	if len(rc.Rejected()) != 0 {
		t.Fatalf("rejected %q\n%s", rc.Rejected(), out)
	}
	wantHits(t, rc.Hits(), map[string][]string{
		uaGPTBot:  {"GET /pricing 200 127.0.0.1 example.com "},
		uaBrowser: {"GET /blog/post?utm_source=chatgpt.com 200 127.0.0.1 www.example.com https://chatgpt.com/"},
	})
	for _, h := range rc.Hits() {
		if h.Format != "caddy" {
			t.Fatalf("hit %+v was not read as Caddy's JSON", h)
		}
	}
}
