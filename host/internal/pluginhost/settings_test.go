package pluginhost

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/heraldhq/herald/host/internal/testlog"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/sdk"
)

// fakeOpenAI is an OpenAI Chat Completions server that records the
// Authorization header of each request and answers only the key it is told.
type fakeOpenAI struct {
	url  string
	mu   sync.Mutex
	auth []string
	key  string
}

func newFakeOpenAI(t *testing.T, key string) *fakeOpenAI {
	f := &fakeOpenAI{key: key}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		want := "Bearer " + f.key
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || !strings.Contains(string(body), `"model":"gpt-4o"`) {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"message":"unexpected %s %s"}}`, r.Method, r.URL.Path)
			return
		}
		if r.Header.Get("Authorization") != want {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided.","code":"invalid_api_key"}}`)
			return
		}
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o",
			"choices":[{"index":0,"message":{"role":"assistant","content":"configured"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

func (f *fakeOpenAI) setKey(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.key = key
}

// headers returns the Authorization headers seen so far.
func (f *fakeOpenAI) headers() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auth...)
}

// setupTrace is setup with every log line, go-plugin's included, captured.
func setupTrace(t *testing.T, cfg *config.Config) *testBundle {
	t.Helper()
	b := &testBundle{reg: prometheus.NewRegistry(), log: &testlog.Buffer{}}
	m, err := NewManager(hclog.New(&hclog.LoggerOptions{Name: "herald", Output: b.log, Level: hclog.Trace}), cfg, b.reg)
	if err != nil {
		t.Fatal(err)
	}
	b.m = m
	t.Cleanup(func() {
		m.Close()
		if t.Failed() {
			t.Logf("host log:\n%s", b.log.String())
		}
	})
	return b
}

// openaiConfig routes gpt-4o to the first-party openai plugin (served by
// this test binary) with settings; its environment names another key and
// server, which settings must override.
func openaiConfig(settings config.Settings) *config.Config {
	cfg := testConfig()
	cfg.Plugins["openai"] = config.Plugin{Name: "openai", Kind: "provider", Settings: settings,
		Env: map[string]string{"OPENAI_API_KEY": "sk-from-environment", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}}
	cfg.Models["gpt-4o"] = config.Model{Name: "gpt-4o", Deployments: []config.Deployment{{Provider: "openai"}}}
	return cfg
}

func TestSettingsConfigureThePluginAfterEveryStartAndReload(t *testing.T) {
	t.Parallel()
	const key, rotated = "sk-settings-key-1111", "sk-rotated-key-2222"
	fake := newFakeOpenAI(t, key)
	b := setupTrace(t, openaiConfig(config.Settings{"api_key": key, "base_url": fake.url + "/v1"}))
	ask := func(when string) {
		t.Helper()
		resp, err := b.m.GenerateText(ctxT(t), "gpt-4o", sdk.TextRequest{Prompt: "hi"})
		if err != nil || resp.Text != "configured" {
			t.Fatalf("%s: %+v, %v; want the answer of the server named by base_url, with api_key", when, resp, err)
		}
	}
	ask("first call")
	// A crash restart configures the new process again.
	pid := b.m.cur.procs["openai"].pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ask("after a crash restart")
	if got := b.m.cur.procs["openai"].pid(); got == pid || got == 0 {
		t.Fatalf("pid after the crash = %d, want a new process (the killed one was %d)", got, pid)
	}
	// A reload with a rotated key applies to new calls.
	fake.setKey(rotated)
	if err := b.m.Reload(openaiConfig(config.Settings{"api_key": rotated, "base_url": fake.url + "/v1"})); err != nil {
		t.Fatal(err)
	}
	ask("after a reload")
	seen := fake.headers()
	if len(seen) == 0 || seen[0] != "Bearer "+key || seen[len(seen)-1] != "Bearer "+rotated {
		t.Errorf("Authorization headers = %q, want the settings' key first and the rotated one last", seen)
	}
	log := b.log.String()
	for _, secret := range []string{key, rotated, "1111", "2222"} {
		if strings.Contains(log, secret) {
			t.Errorf("the host log contains a setting value (%q)", secret)
		}
	}
	if !strings.Contains(log, "api_key") {
		t.Errorf("the host log never names the settings' keys:\n%s", log)
	}
}

func TestSettingsForAPluginWithoutConfigureFailItsStart(t *testing.T) {
	t.Parallel()
	const value = "fast-and-secret"
	cfg := testConfig()
	addProvider(cfg, "p", "p", "")
	p := cfg.Plugins["p"]
	p.Settings = config.Settings{"mode": value}
	cfg.Plugins["p"] = p
	b := setupTrace(t, cfg)
	_, err := b.m.GenerateText(ctxT(t), "p", sdk.TextRequest{Prompt: "x"})
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != sdk.CodeUnconfigured {
		t.Fatalf("error = %v, want an unconfigured *sdk.Error", err)
	}
	for _, want := range []string{"plugin p refused its settings (mode)", "takes no settings", "Configurer"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q does not say %q", e.Message, want)
		}
	}
	if pid := b.m.cur.procs["p"].pid(); pid != 0 {
		t.Errorf("the plugin that refused its settings is running (pid %d)", pid)
	}
	if strings.Contains(err.Error(), value) || strings.Contains(b.log.String(), value) {
		t.Errorf("a setting value reached the error or the log: %v", err)
	}
	if !strings.Contains(b.log.String(), "refused its settings (mode)") {
		t.Errorf("the failed start is not logged:\n%s", b.log.String())
	}
}

func TestAConfigureErrorFailsTheStartWithThePluginsMessageHidingValues(t *testing.T) {
	t.Parallel()
	const value = "tok-echoed-by-the-plugin"
	cfg := testConfig()
	addProvider(cfg, "p", "p", "")
	p := cfg.Plugins["p"]
	p.Env["TESTPLUGIN_CONFIGURER"] = "1"
	p.Settings = config.Settings{"prefix": "hello ", "token": value}
	cfg.Plugins["p"] = p
	b := setupTrace(t, cfg)
	_, err := b.m.GenerateText(ctxT(t), "p", sdk.TextRequest{Prompt: "x"})
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != sdk.CodeUnconfigured {
		t.Fatalf("error = %v, want an unconfigured *sdk.Error", err)
	}
	// The plugin said `unknown setting token="tok-…"`: its words stay, the
	// value does not.
	if want := `plugin p refused its settings (prefix, token): unknown setting token="[hidden]"`; e.Message != want {
		t.Errorf("message = %q, want %q", e.Message, want)
	}
	if strings.Contains(b.log.String(), value) {
		t.Error("the host log contains the setting value the plugin echoed")
	}

	// The same plugin with settings it accepts answers configured.
	next := testConfig()
	addProvider(next, "p", "p", "")
	p = next.Plugins["p"]
	p.Env["TESTPLUGIN_CONFIGURER"] = "1"
	p.Settings = config.Settings{"prefix": "hello "}
	next.Plugins["p"] = p
	if err := b.m.Reload(next); err != nil {
		t.Fatal(err)
	}
	resp, err := b.m.GenerateText(ctxT(t), "p", sdk.TextRequest{Prompt: "x"})
	if err != nil || resp.Text != "p:hello x" {
		t.Fatalf("configured plugin answered %+v, %v; want p:hello x", resp, err)
	}
}
