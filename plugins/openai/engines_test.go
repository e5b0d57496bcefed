package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// fakeAPI is one provider's documented endpoint: POST at path with a
// Bearer key and a JSON body; anything else is answered as the provider
// answers a bad request. It keeps the bodies and the peak of concurrent
// requests.
type fakeAPI struct {
	path, key, answer string
	delay             time.Duration
	status            int
	retryAfter        string

	mu           sync.Mutex
	bodies       []map[string]any
	inFlight     atomic.Int32
	peak         atomic.Int32
	contentTypes []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.contentTypes = append(f.contentTypes, r.Header.Get("Content-Type"))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method != http.MethodPost || r.URL.Path != f.path:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"message":"no route `+r.Method+` `+r.URL.Path+`","code":"not_found"}}`)
		return
	case r.Header.Get("Authorization") != "Bearer "+f.key:
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`)
		return
	case f.status != 0:
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.WriteHeader(f.status)
		_, _ = io.WriteString(w, `{"error":{"message":"Too many requests","code":"rate_limit_exceeded"}}`)
		return
	}
	time.Sleep(f.delay)
	_, _ = io.WriteString(w, f.answer)
}

func setupDeployment(t *testing.T, d Deployment, f *fakeAPI) *Provider {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := NewDeployment(d)
	p.set(f.key, srv.URL)
	return p
}

const (
	xaiAnswer = `{"id":"resp_1","object":"response","model":"grok-4-0709","status":"completed",
		"output":[{"type":"web_search_call","id":"ws_1","status":"completed"},
			{"type":"message","role":"assistant","id":"msg_1","status":"completed","content":[{"type":"output_text",
				"text":"Acme [[1]](https://a.example/crm) leads.","annotations":[{"type":"url_citation","url":"https://a.example/crm","title":"1","start_index":5,"end_index":33}]}]}],
		"citations":["https://a.example/crm","https://x.com/i/status/1"],
		"usage":{"input_tokens":20,"output_tokens":9,"total_tokens":29}}`
	mistralAnswer = `{"object":"conversation.response","conversation_id":"conv_1",
		"outputs":[{"object":"entry","type":"tool.execution","name":"web_search","id":"te_1"},
			{"object":"entry","type":"message.output","role":"assistant","model":"mistral-medium-2505","id":"mo_1","content":[
				{"type":"text","text":"Acme leads "},
				{"type":"tool_reference","tool":"web_search","title":"CRM guide","url":"https://a.example/crm","source":"brave"},
				{"type":"text","text":"the market."},
				{"type":"tool_reference","tool":"web_search","title":"Top CRMs","url":"https://b.example/top","source":"brave"}]}],
		"usage":{"prompt_tokens":12,"completion_tokens":8,"total_tokens":20,"connector_tokens":100}}`
	chatAnswer = `{"id":"c1","object":"chat.completion","created":1,"model":"deepseek-chat",
		"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Acme leads."}}],
		"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`
)

func TestAnswerEnginesSendTheDocumentedRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		d        Deployment
		fake     *fakeAPI
		model    string
		wantBody map[string]any
		want     sdk.TextResponse
	}{
		{"xAI answers through the Responses API with web and X search", XAI,
			&fakeAPI{path: "/responses", key: "xai-test", answer: xaiAnswer}, "grok-4",
			map[string]any{"model": "grok-4", "store": false, "input": []any{
				map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": "Best CRM?"}},
				"tools": []any{map[string]any{"type": "web_search"}, map[string]any{"type": "x_search"}}},
			sdk.TextResponse{Text: "Acme [[1]](https://a.example/crm) leads.", Model: "grok-4-0709", FinishReason: "stop",
				Usage:     sdk.Usage{InputTokens: 20, OutputTokens: 9, TotalTokens: 29},
				Citations: []sdk.Citation{{URL: "https://a.example/crm", Title: "1"}, {URL: "https://x.com/i/status/1"}}}},
		{"Mistral answers through the Conversations API with web_search", Mistral,
			&fakeAPI{path: "/conversations", key: "mistral-test", answer: mistralAnswer}, "mistral-medium-latest",
			map[string]any{"model": "mistral-medium-latest", "store": false, "instructions": "Be brief.",
				"inputs": []any{map[string]any{"role": "user", "content": "Best CRM?"}},
				"tools":  []any{map[string]any{"type": "web_search"}}},
			sdk.TextResponse{Text: "Acme leads the market.", Model: "mistral-medium-2505", FinishReason: "stop",
				Usage:     sdk.Usage{InputTokens: 12, OutputTokens: 8, TotalTokens: 20},
				Citations: []sdk.Citation{{URL: "https://a.example/crm", Title: "CRM guide"}, {URL: "https://b.example/top", Title: "Top CRMs"}}}},
		{"DeepSeek answers through Chat Completions, without search", DeepSeek,
			&fakeAPI{path: "/chat/completions", key: "ds-test", answer: chatAnswer}, "deepseek-chat",
			map[string]any{"model": "deepseek-chat", "messages": []any{
				map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": "Best CRM?"}}},
			sdk.TextResponse{Text: "Acme leads.", Model: "deepseek-chat", FinishReason: "stop", Usage: sdk.Usage{InputTokens: 5, OutputTokens: 3, TotalTokens: 8}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client := plugintest.InProcessProvider(t, setupDeployment(t, tc.d, tc.fake))
			info, err := client.Info(t.Context())
			if err != nil || info.Name != tc.d.Name {
				t.Fatalf("Info = %+v, %v", info, err)
			}
			resp, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: tc.model, Prompt: "Best CRM?", System: "Be brief."})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Citations == nil {
				resp.Citations = nil
			}
			if !reflect.DeepEqual(resp, tc.want) {
				t.Errorf("response = %+v\nwant       %+v", resp, tc.want)
			}
			if len(tc.fake.bodies) != 1 || !reflect.DeepEqual(tc.fake.bodies[0], tc.wantBody) {
				t.Errorf("request bodies = %v\nwant %v", tc.fake.bodies, tc.wantBody)
			}
			if ct := tc.fake.contentTypes[0]; ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

func TestSearchOffOrOtherOptionsUseChatCompletions(t *testing.T) {
	t.Parallel()
	for _, opts := range []map[string]any{{"web_search": false}, {"seed": float64(3)}} {
		f := &fakeAPI{path: "/chat/completions", key: "xai-test", answer: chatAnswer}
		client := plugintest.InProcessProvider(t, setupDeployment(t, XAI, f))
		if _, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: "grok-4", Prompt: "hi", Options: opts}); err != nil {
			t.Errorf("options %v: %v", opts, err)
		}
	}
}

func TestAnswerEngineErrors(t *testing.T) {
	t.Parallel()
	for _, d := range []Deployment{XAI, Mistral, DeepSeek} {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			path := map[SearchAPI]string{SearchChat: "/chat/completions", SearchResponses: "/responses", SearchConversations: "/conversations"}[d.Search]
			p := setupDeployment(t, d, &fakeAPI{path: path, key: "right-key", status: 429, retryAfter: "7"})
			client := plugintest.InProcessProvider(t, p)
			_, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: "m", Prompt: "hi"})
			if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeRateLimited || !e.Retryable || e.RetryAfter != 7*time.Second {
				t.Errorf("429: %+v", e)
			}
			p.set("wrong-key-0123456789", p.baseURL)
			_, err = client.GenerateText(t.Context(), sdk.TextRequest{Model: "m", Prompt: "hi"})
			env := d.APIKeyEnv
			if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeUnauthenticated || !strings.HasPrefix(e.Message, "check "+env) || strings.Contains(e.Message, p.apiKey) {
				t.Errorf("401: %+v", e)
			}
			p.set("", p.baseURL)
			_, err = client.GenerateText(t.Context(), sdk.TextRequest{Model: "m", Prompt: "hi"})
			if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeUnconfigured || !strings.Contains(e.Message, "set "+env) {
				t.Errorf("no key: %+v", e)
			}
		})
	}
}

func TestConcurrencyCapHoldsRequests(t *testing.T) {
	t.Parallel()
	d := Mistral
	d.MaxConcurrency = 2
	f := &fakeAPI{path: "/conversations", key: "mistral-test", answer: mistralAnswer, delay: 50 * time.Millisecond}
	p := setupDeployment(t, d, f)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := p.GenerateText(context.Background(), sdk.TextRequest{Model: "mistral-small-latest", Prompt: "hi"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if peak := f.peak.Load(); peak != 2 {
		t.Errorf("peak concurrent requests %d, want the cap of 2", peak)
	}
}

// TestConcurrencyCapFromTheEnvironment is not parallel: it sets variables.
func TestConcurrencyCapFromTheEnvironment(t *testing.T) {
	t.Setenv("XAI_MAX_CONCURRENCY", "3")
	if n := NewDeployment(XAI).limit.Size(); n != 3 {
		t.Errorf("cap %d, want XAI_MAX_CONCURRENCY's 3", n)
	}
	t.Setenv("XAI_MAX_CONCURRENCY", "zero")
	if n := NewDeployment(XAI).limit.Size(); n != XAI.MaxConcurrency {
		t.Errorf("cap %d, want the default %d for a bad value", n, XAI.MaxConcurrency)
	}
}
