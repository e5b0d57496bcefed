package integration_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
)

// TestSuitesOnCockroachDB runs the store, queue, scheduler and traffic
// suites against CockroachDB: HERALD_TEST_COCKROACH_URL, else a single-node
// cockroachdb/cockroach container started with dockertest (testenv). Without
// either it skips, even under HERALD_REQUIRE_INTEGRATION=1, when the machine
// has no Docker engine (CockroachDB cannot be installed from its packages);
// with an engine that cannot start the container it fails there.
func TestSuitesOnCockroachDB(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	url := testenv.CockroachURL(t)
	redisURL := testenv.RedisURL(t)
	cmd := exec.Command("go", "test", "-count=1",
		"./host/internal/store/...", "./host/internal/jobs/...", "./host/internal/schedule/...", "./host/internal/traffic/...")
	cmd.Dir = harness.Root()
	cmd.Env = append(os.Environ(), "HERALD_TEST_DATABASE_URL="+url, "HERALD_TEST_REDIS_URL="+redisURL)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("suites on CockroachDB failed: %v\n%s", err, out)
	}
}
