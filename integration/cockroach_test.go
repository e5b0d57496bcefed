package integration_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heraldhq/herald/integration/harness"
)

// TestStoreConformanceOnCockroachDB starts cockroachdb/cockroach in Docker
// and runs the store and queue conformance suites against it. It needs a
// Docker engine that can pull the image; where there is none (these
// machines have only the docker client) it skips with the reason, even under
// HERALD_REQUIRE_INTEGRATION, because CockroachDB cannot be installed here.
func TestStoreConformanceOnCockroachDB(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("CockroachDB suite skipped: no docker command")
	}
	if out, err := exec.Command("docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		t.Skipf("CockroachDB suite skipped: no Docker engine (%s)", strings.TrimSpace(string(out)))
	}
	const image = "cockroachdb/cockroach:latest-v24.3"
	if out, err := exec.Command("docker", "pull", image).CombinedOutput(); err != nil {
		t.Skipf("CockroachDB suite skipped: cannot pull %s: %s", image, strings.TrimSpace(string(out)))
	}
	out, err := exec.Command("docker", "run", "-d", "--rm", "-p", "127.0.0.1::26257", image, "start-single-node", "--insecure").Output()
	if err != nil {
		t.Fatalf("start CockroachDB: %v", err)
	}
	id := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", id).Run() })
	port, err := exec.Command("docker", "port", id, "26257/tcp").Output()
	if err != nil {
		t.Fatalf("docker port: %v", err)
	}
	addr := strings.TrimSpace(strings.Split(string(port), "\n")[0])
	url := fmt.Sprintf("postgresql://root@%s/defaultdb?sslmode=disable", addr)
	deadline := time.Now().Add(60 * time.Second)
	for {
		conn, err := pgx.Connect(context.Background(), url)
		if err == nil {
			conn.Close(context.Background())
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CockroachDB not ready: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	cmd := exec.Command("go", "test", "-count=1", "./host/internal/store/...", "./host/internal/jobs/...")
	cmd.Dir = harness.Root()
	cmd.Env = append(os.Environ(), "HERALD_TEST_DATABASE_URL="+url)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("conformance on CockroachDB failed: %v\n%s", err, out)
	}
}
