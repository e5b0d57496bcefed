package integration_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/internal/testwait"
)

// TestSIGHUPSwapsTheProviderOfAModel routes model "smart" to the openai
// plugin pointed at one OpenAI-compatible server, rewrites the config so
// that "smart" goes to a second plugin (the same plugin code launched as a
// third-party executable, pointed at another server), sends SIGHUP, and
// checks that new calls reach the second server.
func TestSIGHUPSwapsTheProviderOfAModel(t *testing.T) {
	t.Parallel()
	first, second := newFakeOpenAI(t, "sk-test"), newFakeOpenAI(t, "sk-test")
	cfg := filepath.Join(t.TempDir(), "herald.hcl")
	write := func(provider string) {
		body := fmt.Sprintf(`
plugin "alt" {
  kind    = "provider"
  command = %q
  args    = ["plugin", "openai"]
  env     = { OPENAI_BASE_URL = "%s/v1" }
}
model "smart" {
  deployment {
    provider = %q
    model    = "gpt-4o"
  }
}
`, harness.Binary(t), second.URL, provider)
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("openai")
	env := map[string]string{"HERALD_CONFIG": cfg, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": first.URL + "/v1"}
	p := harness.Start(t, harness.Options{Env: env, AllowLog: []harness.Allow{
		{Match: `reload on SIGHUP failed; keeping the running configuration`, Why: "the test sends SIGHUP with a broken config on purpose"},
	}})

	served := func(f *fakeOpenAI) int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.requests)
	}
	if status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"smart","text":"one"}`); status != 200 {
		t.Fatalf("before reload: %d %v\n%s", status, body, p.Output())
	}
	if served(first) != 1 || served(second) != 0 {
		t.Fatalf("before reload: first %d, second %d", served(first), served(second))
	}

	out, err := p.Run(context.Background(), "plugins")
	if err != nil || !strings.Contains(out, "alt") || !strings.Contains(out, "webhook") {
		t.Fatalf("herald plugins: %v\n%s", err, out)
	}

	write("alt")
	if err := p.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// Each check sends a request, until one reaches the second server.
	rerouted := func() bool {
		if served(second) > 0 {
			return true
		}
		if status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"smart","text":"two"}`); status != 200 {
			t.Fatalf("after reload: %d %v", status, body)
		}
		return false
	}
	if testwait.Until(15*time.Second, rerouted) != nil {
		t.Fatalf("the reloaded route never reached the second server\n%s", p.Output())
	}

	// A broken config is refused and the running one kept.
	os.WriteFile(cfg, []byte("model \"smart\" {\n"), 0o600)
	refused := strings.Count(p.Output(), "reload on SIGHUP failed")
	p.Signal(syscall.SIGHUP)
	waitOutput(t, p, "reload on SIGHUP failed", refused+1)
	before := served(second)
	if status, _ := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"smart","text":"three"}`); status != 200 || served(second) != before+1 {
		t.Fatalf("a bad config replaced the running one: %d\n%s", status, p.Output())
	}
}
