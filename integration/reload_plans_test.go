package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
)

// TestSIGHUPAppliesPlanChanges starts herald with the default workspace's
// plan (business) allowing the scheduler API and plenty of AI credits,
// rewrites its plan block to take both away, sends SIGHUP, and checks that
// requests that passed before are now refused without a restart, and that
// the log names plans as applied, not as needing a restart.
func TestSIGHUPAppliesPlanChanges(t *testing.T) {
	t.Parallel()
	ai := newFakeOpenAI(t, "sk-test")
	cfg := filepath.Join(t.TempDir(), "herald.hcl")
	write := func(scheduler bool, credits int) {
		body := fmt.Sprintf(`
plan "business" {
  scheduler_api_access = %t
  monthly_ai_credits   = %d
}
`, scheduler, credits)
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(true, 100)
	env := map[string]string{"HERALD_CONFIG": cfg, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": ai.URL + "/v1"}
	p := harness.Start(t, harness.Options{Env: env})

	if status, body := call(t, "GET", p.URL+"/v1/scheduler", p.Key, ""); status != 200 {
		t.Fatalf("scheduler before reload: %d %v\n%s", status, body, p.Output())
	}
	if status, body := call(t, "POST", p.URL+"/v1/ai/generate/image", p.Key, `{"text":"a lighthouse"}`); status != 200 {
		t.Fatalf("image before reload: %d %v\n%s", status, body, p.Output())
	}

	// The image used one credit; the plan now allows one a month and no scheduler API.
	write(false, 1)
	reloaded := strings.Count(p.Output(), "configuration reloaded on SIGHUP")
	if err := p.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, p, "configuration reloaded on SIGHUP", reloaded+1)

	if status, body := call(t, "GET", p.URL+"/v1/scheduler", p.Key, ""); status != 403 {
		t.Fatalf("scheduler after a reload without scheduler_api_access: %d %v, want 403\n%s", status, body, p.Output())
	}
	if status, body := call(t, "POST", p.URL+"/v1/ai/generate/image", p.Key, `{"text":"a harbour"}`); status != 403 {
		t.Fatalf("image after a reload to monthly_ai_credits = 1: %d %v, want 403\n%s", status, body, p.Output())
	}
	var line string
	for _, l := range strings.Split(p.Output(), "\n") {
		if strings.Contains(l, "configuration reloaded on SIGHUP") {
			line = l
		}
	}
	// Nothing else changed in the file: settings the host filled at start
	// (public_url, secret_key) are not reported either.
	if !strings.Contains(line, `applied="plans,plugins,models"`) || !strings.Contains(line, `needs_restart=""`) {
		t.Fatalf("the reload log does not say precisely that the plans were applied and nothing needs a restart:\n%s", line)
	}
}
