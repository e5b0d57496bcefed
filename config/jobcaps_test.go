package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/heraldhq/herald/config"
)

func TestPlanJobCapsHaveDefaultsAndCanBeSet(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "herald.hcl")
	if err := os.WriteFile(path, []byte("plan \"pro\" {\n  jobs_running = 6\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HERALD_PLAN_BUSINESS_JOBS_QUEUED": "50"}
	c, err := config.Load(path, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Plans["free"]; p.JobsRunning != 2 || p.JobsQueued != 100 {
		t.Fatalf("free defaults: %+v", p)
	}
	if p := c.Plans["pro"]; p.JobsRunning != 6 || p.JobsQueued != 500 {
		t.Fatalf("pro from the file: %+v", p)
	}
	if p := c.Plans["business"]; p.JobsRunning != 8 || p.JobsQueued != 50 {
		t.Fatalf("business from the environment: %+v", p)
	}
}
