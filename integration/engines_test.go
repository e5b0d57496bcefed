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
// the Claude, Gemini, Sonar, Grok, DeepSeek and Mistral models (and
// Google's AI Overviews) to their first-party plugins, which the host runs
// as subprocesses that read their keys and base URLs from its environment;
// without a key the route answers 503 naming the variable to set.
func TestAnswerEnginesAreRoutedByDefault(t *testing.T) {
	t.Parallel()
	claude := fakeEngine(t, "/v1/messages", "X-Api-Key", "sk-ant-it",
		`{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"claude says hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":4}}`)
	gemini := fakeEngine(t, "/v1beta/models/gemini-2.5-flash:generateContent", "X-Goog-Api-Key", "AIza-it",
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"gemini says hi"}]},"finishReason":"STOP"}],"modelVersion":"gemini-2.5-flash-001","usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":4,"totalTokenCount":7}}`)
	sonar := fakeEngine(t, "/chat/completions", "Authorization", "Bearer pplx-it",
		`{"id":"c","object":"chat.completion","created":1,"model":"sonar-pro","citations":["https://a.example/"],"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"sonar says hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`)
	grok := fakeEngine(t, "/v1/responses", "Authorization", "Bearer xai-it",
		`{"id":"r","object":"response","model":"grok-4-0709","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"grok says hi","annotations":[]}]}],"citations":[],"usage":{"input_tokens":3,"output_tokens":4,"total_tokens":7}}`)
	deepseek := fakeEngine(t, "/chat/completions", "Authorization", "Bearer ds-it",
		`{"id":"c","object":"chat.completion","created":1,"model":"deepseek-chat","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"deepseek says hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`)
	mistral := fakeEngine(t, "/v1/conversations", "Authorization", "Bearer mistral-it",
		`{"object":"conversation.response","conversation_id":"c","outputs":[{"object":"entry","type":"message.output","role":"assistant","model":"mistral-medium-2505","content":"mistral says hi"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`)
	p := harness.Start(t, harness.Options{Env: map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-it", "ANTHROPIC_BASE_URL": claude.URL,
		"GEMINI_API_KEY": "AIza-it", "GEMINI_BASE_URL": gemini.URL + "/",
		"PERPLEXITY_API_KEY": "pplx-it", "PERPLEXITY_BASE_URL": sonar.URL,
		"XAI_API_KEY": "xai-it", "XAI_BASE_URL": grok.URL + "/v1",
		"DEEPSEEK_API_KEY": "ds-it", "DEEPSEEK_BASE_URL": deepseek.URL,
		"MISTRAL_API_KEY": "mistral-it", "MISTRAL_BASE_URL": mistral.URL + "/v1",
	}})
	bare := harness.Start(t, harness.Options{AllowLog: []harness.Allow{
		{Match: `provider call failed: .*code=unconfigured`, Why: "no provider key is configured on purpose"},
		{Match: `request failed: method=POST path=/v1/ai/generate/text|status=503`, Why: "the 503 under test"},
	}})
	for _, e := range []struct{ model, text, remoteModel, keyEnv string }{
		{"claude-sonnet-4-5", "claude says hi", "claude-sonnet-4-5-20250929", "ANTHROPIC_API_KEY"},
		{"gemini-2.5-flash", "gemini says hi", "gemini-2.5-flash-001", "GEMINI_API_KEY"},
		{"sonar-pro", "sonar says hi", "sonar-pro", "PERPLEXITY_API_KEY"},
		{"grok-4", "grok says hi", "grok-4-0709", "XAI_API_KEY"},
		{"deepseek-chat", "deepseek says hi", "deepseek-chat", "DEEPSEEK_API_KEY"},
		{"mistral-medium-latest", "mistral says hi", "mistral-medium-2505", "MISTRAL_API_KEY"},
		{"google-ai-overview", "", "", "SERPAPI_API_KEY"},
	} {
		// google-ai-overview (serpapi) is only checked without a key
		// here; TestEightEnginesReportAndTracker has its fake.
		if e.text != "" {
			status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"`+e.model+`","text":"hello"}`)
			if status != 200 {
				t.Fatalf("%s: %d %v\n%s", e.model, status, body, p.Output())
			}
			data := body["data"].(map[string]any)
			if data["text"] != e.text || data["model"] != e.remoteModel || data["usage"].(map[string]any)["totalTokens"] != float64(7) {
				t.Errorf("%s: %v", e.model, body)
			}
		}
		status, body := call(t, "POST", bare.URL+"/v1/ai/generate/text", bare.Key, `{"model":"`+e.model+`","text":"hello"}`)
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
