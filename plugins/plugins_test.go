package plugins_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/heraldhq/herald/plugins"
	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

func TestNamesListsEveryFirstPartyPlugin(t *testing.T) {
	t.Parallel()
	want := []string{"anthropic", "dataforseo", "deepseek", "ga4", "gemini", "linkedin", "mistral", "notion", "openai", "perplexity", "serpapi", "webflow", "webhook", "wordpress", "xai"}
	if got := plugins.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
}

// TestEveryPluginDescribesItselfUnderItsName serves each plugin in-process
// through gRPC and checks that Info answers with the registered name, so a
// schedule's exportTo and the config's plugin names line up.
func TestEveryPluginDescribesItselfUnderItsName(t *testing.T) {
	t.Parallel()
	for _, name := range plugins.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts, err := plugins.Options(name)
			if err != nil {
				t.Fatal(err)
			}
			kind, _ := plugins.KindOf(name)
			var got string
			switch kind {
			case plugins.KindProvider:
				info, err := plugintest.InProcessProvider(t, opts.Provider).Info(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				got = info.Name
			case plugins.KindDestination:
				info, err := plugintest.InProcessDestination(t, opts.Destination).Info(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				got = info.Name
			case plugins.KindAnalytics:
				info, err := plugintest.InProcessAnalytics(t, opts.Analytics).Info(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				got = info.Name
			default:
				t.Fatalf("kind %q", kind)
			}
			if got != name {
				t.Errorf("Info().Name = %q, want %q", got, name)
			}
		})
	}
}

func TestServeRefusesAnUnknownName(t *testing.T) {
	t.Parallel()
	if err := plugins.Serve("myspace"); err == nil {
		t.Error("Serve of an unknown plugin returned nil")
	}
	if _, ok := plugins.KindOf("myspace"); ok {
		t.Error("KindOf of an unknown plugin reported ok")
	}
}

// TestServeRunsPluginsAsSubprocesses builds a main that calls Serve, as
// `herald plugin NAME` does, and runs a provider and a destination through
// go-plugin as real subprocesses.
func TestServeRunsPluginsAsSubprocesses(t *testing.T) {
	t.Parallel()
	bin := plugintest.Build(t, "./testdata/serve")
	t.Run("openai serves a provider", func(t *testing.T) {
		t.Parallel()
		plugintest.CheckProvider(t, plugintest.Start(t, bin, "openai").Provider(t), plugintest.ProviderChecks{})
	})
	t.Run("webhook serves a destination", func(t *testing.T) {
		t.Parallel()
		plugintest.CheckDestination(t, plugintest.Start(t, bin, "webhook").Destination(t), plugintest.DestinationChecks{
			Valid: sdk.ValidateRequest{Content: sdk.Content{"title": "Hi"}, Credentials: map[string]string{"url": "https://example.com/hook", "secret": "whsec_c2VjcmV0"}},
		})
	})
}

// TestEnginesReadTheirKeysAndBaseURLsAsSubprocesses runs each answer engine
// as a real subprocess whose environment names its key and base URL, as the
// host's plugin block env would, against a stub that checks the engine's
// auth header; without the key each answers unconfigured naming it.
func TestEnginesReadTheirKeysAndBaseURLsAsSubprocesses(t *testing.T) {
	t.Parallel()
	bin := plugintest.Build(t, "./testdata/serve")
	engines := []struct {
		name, keyEnv, baseEnv, key, model, path, header, headerValue, answer string
		baseSuffix                                                           string
	}{
		{name: "anthropic", keyEnv: "ANTHROPIC_API_KEY", baseEnv: "ANTHROPIC_BASE_URL", key: "sk-ant-sub", model: "claude-haiku-4-5",
			path: "/v1/messages", header: "X-Api-Key", headerValue: "sk-ant-sub",
			answer: `{"id":"m","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"hi from claude"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`},
		{name: "gemini", keyEnv: "GEMINI_API_KEY", baseEnv: "GEMINI_BASE_URL", key: "AIza-sub", model: "gemini-2.5-flash", baseSuffix: "/",
			path: "/v1beta/models/gemini-2.5-flash:generateContent", header: "X-Goog-Api-Key", headerValue: "AIza-sub",
			answer: `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi from gemini"}]},"finishReason":"STOP"}]}`},
		{name: "perplexity", keyEnv: "PERPLEXITY_API_KEY", baseEnv: "PERPLEXITY_BASE_URL", key: "pplx-sub", model: "sonar",
			path: "/chat/completions", header: "Authorization", headerValue: "Bearer pplx-sub",
			answer: `{"id":"c","object":"chat.completion","created":1,"model":"sonar","citations":["https://a.example/"],"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi from sonar"}}]}`},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != e.path || r.Header.Get(e.header) != e.headerValue {
					http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusTeapot)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, e.answer)
			}))
			t.Cleanup(srv.Close)
			env := func(extra ...string) []string {
				var out []string
				for _, kv := range os.Environ() {
					if k, _, _ := strings.Cut(kv, "="); k != e.keyEnv && k != e.baseEnv {
						out = append(out, kv)
					}
				}
				return append(out, extra...)
			}
			cmd := exec.Command(bin, e.name)
			cmd.Env = env(e.keyEnv+"="+e.key, e.baseEnv+"="+srv.URL+e.baseSuffix)
			resp, err := plugintest.StartCmd(t, cmd).Provider(t).GenerateText(t.Context(), sdk.TextRequest{Model: e.model, Prompt: "hi"})
			if err != nil || !strings.HasPrefix(resp.Text, "hi from ") {
				t.Errorf("GenerateText = %+v, %v", resp, err)
			}
			cmd = exec.Command(bin, e.name)
			cmd.Env = env(e.baseEnv + "=" + srv.URL + e.baseSuffix)
			_, err = plugintest.StartCmd(t, cmd).Provider(t).GenerateText(t.Context(), sdk.TextRequest{Model: e.model, Prompt: "hi"})
			if se := sdk.AsError(err); se == nil || se.Code != sdk.CodeUnconfigured || !strings.HasPrefix(se.Message, "set "+e.keyEnv+":") {
				t.Errorf("without a key: %v, want unconfigured naming %s", err, e.keyEnv)
			}
		})
	}
}
