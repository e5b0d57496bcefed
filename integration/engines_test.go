package integration_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/internal/testwait"
)

// fakeEngine answers one documented path when the request carries the
// engine's auth header, and 418 otherwise.
func fakeEngine(t *testing.T, path, header, value, answer string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path || r.Header.Get(header) != value {
			w.WriteHeader(http.StatusTeapot)
			io.WriteString(w, `{"error":{"code":418,"message":"unexpected request"}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAnswerEnginesAreRoutedByDefault checks that the default config routes
// the Claude, Gemini and Sonar models to the first-party anthropic, gemini
// and perplexity plugins, which the host runs as subprocesses that read
// their keys and base URLs from its environment; without a key the route
// answers 503 naming the variable to set.
func TestAnswerEnginesAreRoutedByDefault(t *testing.T) {
	t.Parallel()
	claude := fakeEngine(t, "/v1/messages", "X-Api-Key", "sk-ant-it",
		`{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"claude says hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":4}}`)
	gemini := fakeEngine(t, "/v1beta/models/gemini-2.5-flash:generateContent", "X-Goog-Api-Key", "AIza-it",
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"gemini says hi"}]},"finishReason":"STOP"}],"modelVersion":"gemini-2.5-flash-001","usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":4,"totalTokenCount":7}}`)
	sonar := fakeEngine(t, "/chat/completions", "Authorization", "Bearer pplx-it",
		`{"id":"c","object":"chat.completion","created":1,"model":"sonar-pro","citations":["https://a.example/"],"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"sonar says hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`)
	p := harness.Start(t, harness.Options{Env: map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-it", "ANTHROPIC_BASE_URL": claude.URL,
		"GEMINI_API_KEY": "AIza-it", "GEMINI_BASE_URL": gemini.URL + "/",
		"PERPLEXITY_API_KEY": "pplx-it", "PERPLEXITY_BASE_URL": sonar.URL,
	}})
	bare := harness.Start(t, harness.Options{AllowLog: []harness.Allow{
		{Match: `provider call failed: .*code=unconfigured`, Why: "no provider key is configured on purpose"},
		{Match: `request failed: method=POST path=/v1/ai/generate/text|status=503`, Why: "the 503 under test"},
	}})
	for _, e := range []struct{ model, text, remoteModel, keyEnv string }{
		{"claude-sonnet-4-5", "claude says hi", "claude-sonnet-4-5-20250929", "ANTHROPIC_API_KEY"},
		{"gemini-2.5-flash", "gemini says hi", "gemini-2.5-flash-001", "GEMINI_API_KEY"},
		{"sonar-pro", "sonar says hi", "sonar-pro", "PERPLEXITY_API_KEY"},
	} {
		status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"`+e.model+`","text":"hello"}`)
		if status != 200 {
			t.Fatalf("%s: %d %v\n%s", e.model, status, body, p.Output())
		}
		data := body["data"].(map[string]any)
		if data["text"] != e.text || data["model"] != e.remoteModel || data["usage"].(map[string]any)["totalTokens"] != float64(7) {
			t.Errorf("%s: %v", e.model, body)
		}
		status, body = call(t, "POST", bare.URL+"/v1/ai/generate/text", bare.Key, `{"model":"`+e.model+`","text":"hello"}`)
		// The tenant gets a generic 503 with a request id; the
		// operator's log says which key to set.
		if msg, _ := body["message"].(string); status != 503 || strings.Contains(msg, e.keyEnv) || !strings.Contains(msg, "request id") {
			t.Errorf("%s without a key: %d %v", e.model, status, body)
		}
		logged := func() bool { return strings.Contains(bare.Output(), "set "+e.keyEnv) }
		if testwait.Until(5*time.Second, logged) != nil {
			t.Errorf("%s without a key: the log does not say to set %s", e.model, e.keyEnv)
		}
	}
}
