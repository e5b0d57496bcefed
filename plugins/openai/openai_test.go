package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

const apiKey = "sk-test-key"

var png = []byte("\x89PNG\r\n\x1a\nfake-png-bytes")

// fakeOpenAI is an OpenAI-compatible server. failStatus makes every API call
// fail with that status (and Retry-After when set).
type fakeOpenAI struct {
	t          *testing.T
	failStatus int
	retryAfter string

	mu     sync.Mutex
	bodies []map[string]any
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+apiKey {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
		return
	}
	if f.failStatus != 0 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.WriteHeader(f.failStatus)
		_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
		return
	}
	switch r.Method + " " + r.URL.Path {
	case "POST /v1/chat/completions":
		if body["stream"] == true {
			f.stream(w)
			return
		}
		if body["model"] == "gpt-4o-search-preview" {
			// A web-searched answer carries url_citation annotations.
			_, _ = io.WriteString(w, `{"id":"chatcmpl-3","object":"chat.completion","created":1700000000,"model":"gpt-4o-search-preview-2025-03-11",
				"choices":[{"index":0,"message":{"role":"assistant","content":"Acme [a.example] and Globex [b.example].","refusal":null,"annotations":[
					{"type":"url_citation","url_citation":{"start_index":5,"end_index":16,"url":"https://a.example/crm?utm_source=openai","title":"CRM guide"}},
					{"type":"url_citation","url_citation":{"start_index":28,"end_index":39,"url":"https://b.example/top?utm_source=openai","title":"Top CRMs"}},
					{"type":"url_citation","url_citation":{"start_index":40,"end_index":41,"url":"https://a.example/crm?utm_source=openai","title":"CRM guide"}}]},
				"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}}`)
			return
		}
		_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-5-mini-2026-01-01",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Hello there.","refusal":null},"finish_reason":"stop","logprobs":null}],
			"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`)
	case "POST /v1/images/generations":
		fmt.Fprintf(w, `{"created":1700000000,"data":[{"b64_json":%q}],"output_format":"png","size":"1536x1024","quality":"high",
			"usage":{"input_tokens":10,"output_tokens":4160,"total_tokens":4170,"input_tokens_details":{"text_tokens":10,"image_tokens":0}}}`,
			base64.StdEncoding.EncodeToString(png))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"message":"Unknown route","type":"invalid_request_error","param":null,"code":null}}`)
	}
}

// stream answers with server-sent events: two text deltas, two tool calls
// whose arguments arrive in fragments, the finish reason, then usage.
func (f *fakeOpenAI) stream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choices string) string {
		return `{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1700000000,"model":"gpt-5-2026-01-01","choices":` + choices + `}`
	}
	events := []string{
		chunk(`[{"index":0,"delta":{"role":"assistant","content":"Let me "},"finish_reason":null}]`),
		chunk(`[{"index":0,"delta":{"content":"check."},"finish_reason":null}]`),
		chunk(`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":""}}]},"finish_reason":null}]`),
		chunk(`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]`),
		chunk(`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Oslo\"}"}}]},"finish_reason":null}]`),
		chunk(`[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"time","arguments":"{}"}}]},"finish_reason":null}]`),
		chunk(`[{"index":0,"delta":{},"finish_reason":"tool_calls"}]`),
		`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1700000000,"model":"gpt-5-2026-01-01","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29}}`,
	}
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

func setup(t *testing.T, f *fakeOpenAI) (*Provider, *fakeOpenAI) {
	t.Helper()
	if f == nil {
		f = &fakeOpenAI{}
	}
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := New()
	p.set(apiKey, srv.URL+"/v1")
	return p, f
}

func TestGenerateText(t *testing.T) {
	t.Parallel()
	p, f := setup(t, &fakeOpenAI{})
	client := plugintest.InProcessProvider(t, p)
	temp := 0.2
	resp, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: "gpt-5-mini", Prompt: "Say hello", System: "Be brief.", MaxOutputTokens: 50, Temperature: &temp})
	if err != nil {
		t.Fatal(err)
	}
	want := sdk.TextResponse{Text: "Hello there.", Model: "gpt-5-mini-2026-01-01", FinishReason: "stop", Usage: sdk.Usage{InputTokens: 12, OutputTokens: 3, TotalTokens: 15}}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response = %+v, want %+v", resp, want)
	}
	wantBody := map[string]any{
		"model": "gpt-5-mini", "max_completion_tokens": 50.0, "temperature": 0.2,
		"messages": []any{map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": "Say hello"}},
	}
	if !reflect.DeepEqual(f.bodies[0], wantBody) {
		t.Errorf("request body = %v, want %v", f.bodies[0], wantBody)
	}
}

func TestGenerateTextReturnsURLCitationAnnotations(t *testing.T) {
	t.Parallel()
	p, f := setup(t, &fakeOpenAI{})
	resp, err := plugintest.InProcessProvider(t, p).GenerateText(t.Context(), sdk.TextRequest{Model: "gpt-4o-search-preview", Prompt: "Best CRM?", Options: map[string]any{"web_search": true}})
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.Citation{{URL: "https://a.example/crm?utm_source=openai", Title: "CRM guide"}, {URL: "https://b.example/top?utm_source=openai", Title: "Top CRMs"}}
	if !reflect.DeepEqual(resp.Citations, want) {
		t.Errorf("citations = %+v, want %+v", resp.Citations, want)
	}
	if want := map[string]any{"search_context_size": "medium"}; !reflect.DeepEqual(f.bodies[0]["web_search_options"], want) {
		t.Errorf("web_search_options = %v, want %v", f.bodies[0]["web_search_options"], want)
	}
}

func TestChatStreamsTextAndToolCalls(t *testing.T) {
	t.Parallel()
	p, f := setup(t, &fakeOpenAI{})
	client := plugintest.InProcessProvider(t, p)
	req := sdk.ChatRequest{
		Model: "gpt-5",
		Messages: []sdk.Message{
			{Role: sdk.RoleUser, Content: "Weather in Oslo?"},
			{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: "call_0", Name: "time", Arguments: "{}"}}},
			{Role: sdk.RoleTool, ToolCallID: "call_0", Content: "12:00"},
		},
		Tools: []sdk.Tool{{Name: "weather", Description: "Forecast for a city", Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}},
	}
	var events []sdk.ChatEvent
	err := client.Chat(t.Context(), req, sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
		events = append(events, ev)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.ChatEvent{
		{TextDelta: "Let me "},
		{TextDelta: "check."},
		{ToolCall: &sdk.ToolCall{ID: "call_a", Name: "weather", Arguments: `{"city":"Oslo"}`}},
		{ToolCall: &sdk.ToolCall{ID: "call_b", Name: "time", Arguments: "{}"}},
		{Finish: &sdk.ChatFinish{FinishReason: "tool_calls", Model: "gpt-5-2026-01-01", Usage: sdk.Usage{InputTokens: 20, OutputTokens: 9, TotalTokens: 29}}},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events = %+v\nwant %+v", events, want)
	}
	body := f.bodies[0]
	if body["stream"] != true || !reflect.DeepEqual(body["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("stream flags = %v %v", body["stream"], body["stream_options"])
	}
	wantMessages := []any{
		map[string]any{"role": "user", "content": "Weather in Oslo?"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_0", "type": "function", "function": map[string]any{"name": "time", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_0", "content": "12:00"},
	}
	if !reflect.DeepEqual(body["messages"], wantMessages) {
		t.Errorf("messages = %v\nwant %v", body["messages"], wantMessages)
	}
	wantTools := []any{map[string]any{"type": "function", "function": map[string]any{
		"name": "weather", "description": "Forecast for a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
	}}}
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Errorf("tools = %v\nwant %v", body["tools"], wantTools)
	}
}

func TestGenerateImage(t *testing.T) {
	t.Parallel()
	p, f := setup(t, &fakeOpenAI{})
	client := plugintest.InProcessProvider(t, p)
	resp, err := client.GenerateImage(t.Context(), sdk.ImageRequest{Model: "gpt-image-1.5", Prompt: "a lighthouse at dawn", Size: "1536x1024", Quality: "high"})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Data) != string(png) || resp.MIMEType != "image/png" || resp.Model != "gpt-image-1.5" || resp.Size != "1536x1024" || resp.Quality != "high" || resp.Usage.TotalTokens != 4170 {
		t.Errorf("response = %q %s %s %s %s %+v", resp.Data, resp.MIMEType, resp.Model, resp.Size, resp.Quality, resp.Usage)
	}
	wantBody := map[string]any{"model": "gpt-image-1.5", "prompt": "a lighthouse at dawn", "n": 1.0, "size": "1536x1024", "quality": "high"}
	if !reflect.DeepEqual(f.bodies[0], wantBody) {
		t.Errorf("request body = %v, want %v", f.bodies[0], wantBody)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fake    *fakeOpenAI
		key     string
		call    string
		want    sdk.Error
		noCalls bool
	}{
		{name: "a missing API key asks the operator to set OPENAI_API_KEY", key: "", call: "text", noCalls: true,
			want: sdk.Error{Code: sdk.CodeUnconfigured, Message: "set OPENAI_API_KEY: the openai plugin has no API key"}},
		{name: "a wrong API key is an authentication failure, not retried", key: "sk-wrong", call: "text",
			want: sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401, Message: "check OPENAI_API_KEY: openai chat completion answered 401: invalid_api_key: Incorrect API key provided."}},
		{name: "a 429 on text is retryable after the server's delay", key: apiKey, call: "text", fake: &fakeOpenAI{failStatus: 429, retryAfter: "20"},
			want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 20 * time.Second}},
		{name: "a 429 on a chat stream is retryable after the server's delay", key: apiKey, call: "chat", fake: &fakeOpenAI{failStatus: 429, retryAfter: "5"},
			want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 5 * time.Second}},
		{name: "a 503 on images is retryable", key: apiKey, call: "image", fake: &fakeOpenAI{failStatus: 503},
			want: sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 503}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, f := setup(t, tt.fake)
			p.set(tt.key, p.baseURL)
			client := plugintest.InProcessProvider(t, p)
			var err error
			switch tt.call {
			case "text":
				_, err = client.GenerateText(t.Context(), sdk.TextRequest{Model: "gpt-5", Prompt: "hi"})
			case "chat":
				err = client.Chat(t.Context(), sdk.ChatRequest{Model: "gpt-5", Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}}, sdk.ChatStreamFunc(func(sdk.ChatEvent) error { return nil }))
			case "image":
				_, err = client.GenerateImage(t.Context(), sdk.ImageRequest{Prompt: "cat"})
			}
			e := sdk.AsError(err)
			if e == nil || e.Code != tt.want.Code || e.Retryable != tt.want.Retryable || e.StatusCode != tt.want.StatusCode || e.RetryAfter != tt.want.RetryAfter ||
				(tt.want.Message != "" && e.Message != tt.want.Message) {
				t.Errorf("error = %+v, want %+v", e, tt.want)
			}
			if e != nil && strings.Contains(e.Message, tt.key) && tt.key != "" {
				t.Error("error message contains the API key")
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if tt.noCalls != (len(f.bodies) == 0) {
				t.Errorf("server got %d calls", len(f.bodies))
			}
		})
	}
}

func TestConfigureOverridesTheEnvironment(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, &fakeOpenAI{})
	base := p.baseURL
	p.set("", "http://127.0.0.1:1/v1")
	client := plugintest.InProcessProvider(t, p)
	if err := client.Configure(t.Context(), map[string]string{"api_key": apiKey, "base_url": base}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: "gpt-5", Prompt: "hi"}); err != nil {
		t.Errorf("GenerateText after Configure: %v", err)
	}
}

func TestConfigureRefusesBadSettingsWholeAndNamesNoValue(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, &fakeOpenAI{})
	client := plugintest.InProcessProvider(t, p)
	const secret = "sk-never-echoed-123"
	for name, settings := range map[string]map[string]string{
		"an unknown key":     {"api_key": secret, "organization": secret},
		"a bad base_url":     {"api_key": secret, "base_url": "ftp://" + secret},
		"an empty api_key":   {"api_key": ""},
		"a base_url no host": {"base_url": "http://"},
	} {
		err := client.Configure(t.Context(), settings)
		if sdk.ErrorCode(err) != sdk.CodeInvalidArgument || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: Configure = %v, want invalid_argument without the value", name, err)
		}
	}
	// Nothing of a refused Configure was applied: the key is still the one
	// the fake accepts.
	if _, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: "gpt-5", Prompt: "hi"}); err != nil {
		t.Errorf("GenerateText after refused settings: %v", err)
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, &fakeOpenAI{})
	plugintest.TestProvider(t, p, plugintest.ProviderChecks{
		Text:         &sdk.TextRequest{Model: "gpt-5-mini", Prompt: "hello"},
		Chat:         &sdk.ChatRequest{Model: "gpt-5", Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "weather?"}}},
		WantToolCall: true,
		Image:        &sdk.ImageRequest{Prompt: "a lighthouse"},
		Failures: []plugintest.TextFailure{{
			Name: "a request without a prompt is refused", Request: sdk.TextRequest{Model: "gpt-5"},
			Want: sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}
