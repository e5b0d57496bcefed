package integration_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
)

// TestPluginSettingsComeFromTheConfigAndRotateOnSIGHUP configures the
// openai plugin through its block's settings, the key read with env(),
// rotates key and server with SIGHUP, and checks that neither key appears
// in herald's output or in `herald plugins`.
func TestPluginSettingsComeFromTheConfigAndRotateOnSIGHUP(t *testing.T) {
	t.Parallel()
	const key1, key2 = "sk-settings-first-7c1d", "sk-settings-second-9e4f"
	first, second := newFakeOpenAI(t, key1), newFakeOpenAI(t, key2)
	cfg := filepath.Join(t.TempDir(), "herald.hcl")
	write := func(keyVar, base string) {
		body := fmt.Sprintf(`
plugin "openai" {
  kind = "provider"
  settings = {
    api_key  = env(%q)
    base_url = "%s/v1"
  }
}
`, keyVar, base)
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("FIRST_OPENAI_KEY", first.URL)
	// The environment's own OpenAI key and URL lose to the settings.
	env := map[string]string{"HERALD_CONFIG": cfg, "FIRST_OPENAI_KEY": key1, "SECOND_OPENAI_KEY": key2,
		"OPENAI_API_KEY": "sk-environment-loses", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
	p := harness.Start(t, harness.Options{Env: env})
	generate := func(when string) {
		t.Helper()
		if status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"gpt-4o","text":"hi"}`); status != 200 {
			t.Fatalf("%s: %d %v\n%s", when, status, body, p.Output())
		}
	}
	generate("configured from settings")
	first.mu.Lock()
	served := len(first.requests)
	first.mu.Unlock()
	if served != 1 {
		t.Fatalf("the first server got %d requests, want 1", served)
	}

	write("SECOND_OPENAI_KEY", second.URL)
	if err := p.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, p, "configuration reloaded on SIGHUP", 1)
	generate("after the reload")
	second.mu.Lock()
	served = len(second.requests)
	second.mu.Unlock()
	if served != 1 {
		t.Fatalf("after the reload the second server got %d requests, want 1\n%s", served, p.Output())
	}
	out := p.Output()
	if !strings.Contains(out, `plugin_settings="openai(api_key,base_url)"`) {
		t.Errorf("the reload log does not name the changed settings:\n%s", out)
	}
	list, err := p.Run(context.Background(), "plugins")
	if err != nil || !strings.Contains(list, "api_key,base_url") {
		t.Errorf("herald plugins: %v\n%s", err, list)
	}
	for _, secret := range []string{key1, key2, "7c1d", "9e4f"} {
		if strings.Contains(out, secret) || strings.Contains(list, secret) {
			t.Errorf("a settings value (%q) was printed", secret)
		}
	}
}
