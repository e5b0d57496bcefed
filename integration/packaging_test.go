package integration_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v2"

	"github.com/heraldhq/herald/integration/harness"
)

// dockerEngine skips the test unless the docker CLI reaches an engine
// (`docker info` succeeds). An engine cannot be installed from the
// machine's packages everywhere, so its absence is a skip even under
// HERALD_REQUIRE_INTEGRATION, as for the CockroachDB suite.
func dockerEngine(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker CLI on PATH: the image build needs one and a Docker engine")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "docker", "info").CombinedOutput(); err != nil {
		t.Skipf("no Docker engine answers (`docker info`: %v: %s)", err, reason(string(out)))
	}
}

// reason picks the line of docker's output that says why it failed.
func reason(s string) string {
	last := ""
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if strings.Contains(strings.ToLower(l), "error") || strings.Contains(l, "Cannot connect") {
			return l
		}
		if l != "" {
			last = l
		}
	}
	return last
}

// The Dockerfile at the repository root builds an image whose binary runs:
// `herald version` prints the VERSION build argument.
func TestDockerImageBuilds(t *testing.T) {
	t.Parallel()
	dockerEngine(t)
	var b [6]byte
	rand.Read(b[:])
	suffix := hex.EncodeToString(b[:])
	tag, version := "herald-test:"+suffix, "v0.0.0-test."+suffix
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "docker", "build", "--build-arg", "VERSION="+version, "-t", tag, ".")
	build.Dir = harness.Root()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("docker", "image", "rm", "-f", tag).Run() })
	out, err := exec.CommandContext(ctx, "docker", "run", "--rm", tag, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "herald "+version {
		t.Fatalf("docker run %s version: %v %q, want %q", tag, err, out, "herald "+version)
	}
}

// composeFile is the part of deploy/docker-compose.yml the distributed mode
// depends on.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     string            `yaml:"command"`
		Build       map[string]string `yaml:"build"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		DependsOn   map[string]any    `yaml:"depends_on"`
	} `yaml:"services"`
}

// deploy/ holds a compose file for two Herald hosts sharing CockroachDB and
// Redis, built from the root Dockerfile, and a systemd unit for one host.
func TestDeployFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(harness.Root(), "deploy")
	raw, err := os.ReadFile(filepath.Join(dir, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	crdb, redis := "", ""
	for name, s := range c.Services {
		switch {
		case strings.HasPrefix(s.Image, "cockroachdb/cockroach:"):
			crdb = name
		case strings.HasPrefix(s.Image, "redis:"):
			redis = name
		}
	}
	if crdb == "" || redis == "" {
		t.Fatalf("compose services %v: want a cockroachdb/cockroach and a redis service", c.Services)
	}
	var hosts []string
	ports := map[string]bool{}
	secret := ""
	for name, s := range c.Services {
		if s.Build == nil {
			continue
		}
		hosts = append(hosts, name)
		if df := filepath.Join(dir, s.Build["context"], s.Build["dockerfile"]); df != filepath.Join(harness.Root(), "Dockerfile") {
			t.Errorf("%s builds %s, want the root Dockerfile", name, df)
		}
		env := s.Environment
		if !strings.Contains(env["HERALD_DATABASE_URL"], "@"+crdb+":26257/") || !strings.Contains(env["HERALD_REDIS_URL"], "//"+redis+":6379") {
			t.Errorf("%s: database %q and redis %q, want the %s and %s services", name, env["HERALD_DATABASE_URL"], env["HERALD_REDIS_URL"], crdb, redis)
		}
		if secret == "" {
			secret = env["HERALD_SECRET_KEY"]
		}
		if env["HERALD_SECRET_KEY"] == "" || env["HERALD_SECRET_KEY"] != secret {
			t.Errorf("%s: HERALD_SECRET_KEY %q, want the same on every host", name, env["HERALD_SECRET_KEY"])
		}
		if s.DependsOn[crdb] == nil || s.DependsOn[redis] == nil {
			t.Errorf("%s depends on %v, want %s and %s", name, s.DependsOn, crdb, redis)
		}
		for _, p := range s.Ports {
			host, _, _ := strings.Cut(p, ":")
			if ports[host] {
				t.Errorf("%s publishes port %s twice", name, host)
			}
			ports[host] = true
		}
	}
	if len(hosts) != 2 {
		t.Fatalf("herald hosts %v, want 2", hosts)
	}

	unit, err := os.ReadFile(filepath.Join(dir, "herald.service"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[Unit]", "[Service]", "[Install]", "ExecStart=/usr/local/bin/herald serve", "ExecReload=/bin/kill -HUP $MAINPID", "Restart=on-failure"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("herald.service lacks %q", want)
		}
	}
}
