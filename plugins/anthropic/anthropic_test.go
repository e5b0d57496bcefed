package anthropic

import (
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

const apiKey = "sk-ant-test-key-0123456789"

// fakeAnthropic is the Messages API as Anthropic documents it: POST
// /v1/messages with x-api-key and anthropic-version headers, JSON answers or
// server-sent events when the body asks for a stream. failStatus makes
// every call fail with that status (and Retry-After when set).
type fakeAnthropic struct {
	t          *testing.T
	failStatus int
	retryAfter string
	// midStreamError makes a stream fail with an error event after its
	// first text delta, as Anthropic does when it overloads mid-answer.
	midStreamError bool

	mu     sync.Mutex
	bodies []map[string]any
}

func (f *fakeAnthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"Not found"}}`)
		return
	}
	if r.Header.Get("anthropic-version") != "2023-06-01" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad headers: version %q"}}`, r.Header.Get("anthropic-version"))
		return
	}
	if r.Header.Get("x-api-key") != apiKey || r.Header.Get("Authorization") != "" {
		w.WriteHeader(http.StatusUnauthorized)
		// Echo the key, as a careless server might: the plugin must not.
		fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key %s"}}`, r.Header.Get("x-api-key"))
		return
	}
	if f.failStatus != 0 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.WriteHeader(f.failStatus)
		kind := "rate_limit_error"
		if f.failStatus == 529 {
			kind = "overloaded_error"
		}
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"Try again later."}}`, kind)
		return
	}
	if body["stream"] == true {
		f.stream(w)
		return
	}
	// A web-searched answer: a server tool use, its results, and text
	// blocks citing two of the pages (one of them twice).
	_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
		"content":[
			{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"best crm"}},
			{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[
				{"type":"web_search_result","url":"https://a.example/crm","title":"CRM guide","encrypted_content":"x","page_age":"1 day"},
				{"type":"web_search_result","url":"https://b.example/top","title":"Top CRMs","encrypted_content":"y","page_age":null},
				{"type":"web_search_result","url":"https://c.example/unused","title":"Unused","encrypted_content":"z","page_age":null}]},
			{"type":"text","text":"Acme is popular.","citations":[
				{"type":"web_search_result_location","url":"https://b.example/top","title":"Top CRMs","encrypted_index":"e1","cited_text":"Acme..."}]},
			{"type":"text","text":" Also Globex.","citations":[
				{"type":"web_search_result_location","url":"https://a.example/crm","title":"CRM guide","encrypted_index":"e2","cited_text":"Globex..."},
				{"type":"web_search_result_location","url":"https://b.example/top","title":"Top CRMs","encrypted_index":"e3","cited_text":"..."}]}],
		"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":3}}`)
}

// stream answers with the documented event sequence: text in two deltas,
// a ping, two tool_use blocks whose input arrives in fragments, then the
// stop reason and output usage.
func (f *fakeAnthropic) stream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	events := [][2]string{
		{"message_start", `{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","content":[],"model":"claude-haiku-4-5-20251001","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":1}}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"ping", `{"type":"ping"}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me "}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"check."}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_a","name":"weather","input":{}}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Oslo\"}"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":1}`},
		{"content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_b","name":"time","input":{}}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":2}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`},
		{"message_stop", `{"type":"message_stop"}`},
	}
	if f.midStreamError {
		events = append(events[:4:4], [2]string{"error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})
	}
	for _, e := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e[0], e[1])
	}
}

func setup(t *testing.T, f *fakeAnthropic) (*Provider, *fakeAnthropic) {
	t.Helper()
	if f == nil {
		f = &fakeAnthropic{}
	}
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := New()
	p.apiKey, p.baseURL = apiKey, srv.URL
	return p, f
}

func TestGenerateTextSendsSystemMaxTokensTemperatureAndReturnsCitations(t *testing.T) {
	t.Parallel()
	p, f := setup(t, nil)
	client := plugintest.InProcessProvider(t, p)
	temp := 0.2
	resp, err := client.GenerateText(t.Context(), sdk.TextRequest{
		Model: "claude-sonnet-4-5", Prompt: "Best CRM?", System: "Be brief.", MaxOutputTokens: 50, Temperature: &temp,
		Options: map[string]any{"web_search": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := sdk.TextResponse{
		Text: "Acme is popular. Also Globex.", Model: "claude-sonnet-4-5-20250929", FinishReason: "stop",
		Usage:     sdk.Usage{InputTokens: 12, OutputTokens: 3, TotalTokens: 15},
		Citations: []sdk.Citation{{URL: "https://b.example/top", Title: "Top CRMs"}, {URL: "https://a.example/crm", Title: "CRM guide"}},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response = %+v\nwant %+v", resp, want)
	}
	wantBody := map[string]any{
		"model": "claude-sonnet-4-5", "max_tokens": 50.0, "temperature": 0.2,
		"system":   []any{map[string]any{"type": "text", "text": "Be brief."}},
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Best CRM?"}}}},
		"tools":    []any{map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": 5.0}},
	}
	if !reflect.DeepEqual(f.bodies[0], wantBody) {
		t.Errorf("request body = %v\nwant %v", f.bodies[0], wantBody)
	}
}

func TestGenerateTextDefaultsMaxTokens(t *testing.T) {
	t.Parallel()
	p, f := setup(t, nil)
	if _, err := plugintest.InProcessProvider(t, p).GenerateText(t.Context(), sdk.TextRequest{Model: "claude-haiku-4-5", Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	body := f.bodies[0]
	if body["max_tokens"] != float64(DefaultMaxTokens) {
		t.Errorf("max_tokens = %v, want %d", body["max_tokens"], DefaultMaxTokens)
	}
	for _, k := range []string{"system", "temperature", "tools"} {
		if _, ok := body[k]; ok {
			t.Errorf("body has %q without being asked: %v", k, body)
		}
	}
}

func TestChatStreamsTextAndToolCalls(t *testing.T) {
	t.Parallel()
	p, f := setup(t, nil)
	client := plugintest.InProcessProvider(t, p)
	req := sdk.ChatRequest{
		Model: "claude-haiku-4-5",
		Messages: []sdk.Message{
			{Role: sdk.RoleSystem, Content: "You forecast."},
			{Role: sdk.RoleUser, Content: "Weather and time in Oslo?"},
			{Role: sdk.RoleAssistant, Content: "Checking.", ToolCalls: []sdk.ToolCall{{ID: "toolu_0", Name: "time", Arguments: "{}"}, {ID: "toolu_1", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
			{Role: sdk.RoleTool, ToolCallID: "toolu_0", Content: "12:00"},
			{Role: sdk.RoleTool, ToolCallID: "toolu_1", Content: "rain"},
		},
		Tools: []sdk.Tool{{Name: "weather", Description: "Forecast for a city", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}, "additionalProperties": false,
		}}},
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
		{ToolCall: &sdk.ToolCall{ID: "toolu_a", Name: "weather", Arguments: `{"city":"Oslo"}`}},
		{ToolCall: &sdk.ToolCall{ID: "toolu_b", Name: "time", Arguments: "{}"}},
		{Finish: &sdk.ChatFinish{FinishReason: "tool_calls", Model: "claude-haiku-4-5-20251001", Usage: sdk.Usage{InputTokens: 20, OutputTokens: 9, TotalTokens: 29}}},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events = %+v\nwant %+v", events, want)
	}
	body := f.bodies[0]
	if body["stream"] != true || body["max_tokens"] != float64(DefaultMaxTokens) {
		t.Errorf("stream = %v, max_tokens = %v", body["stream"], body["max_tokens"])
	}
	if want := []any{map[string]any{"type": "text", "text": "You forecast."}}; !reflect.DeepEqual(body["system"], want) {
		t.Errorf("system = %v, want %v", body["system"], want)
	}
	// Both tool results answer one assistant turn, so they share one user turn.
	wantMessages := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Weather and time in Oslo?"}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Checking."},
			map[string]any{"type": "tool_use", "id": "toolu_0", "name": "time", "input": map[string]any{}},
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": "weather", "input": map[string]any{"city": "Oslo"}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_0", "is_error": false, "content": []any{map[string]any{"type": "text", "text": "12:00"}}},
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false, "content": []any{map[string]any{"type": "text", "text": "rain"}}},
		}},
	}
	if !reflect.DeepEqual(body["messages"], wantMessages) {
		t.Errorf("messages = %v\nwant %v", body["messages"], wantMessages)
	}
	wantTools := []any{map[string]any{
		"name": "weather", "description": "Forecast for a city",
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}, "additionalProperties": false},
	}}
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Errorf("tools = %v\nwant %v", body["tools"], wantTools)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fake    *fakeAnthropic
		key     string
		chat    bool
		want    sdk.Error
		noCalls bool
	}{
		{name: "a missing API key asks the operator to set ANTHROPIC_API_KEY", key: "", noCalls: true,
			want: sdk.Error{Code: sdk.CodeUnconfigured, Message: "set ANTHROPIC_API_KEY: the anthropic plugin has no API key"}},
		{name: "a wrong API key is unauthenticated, names the variable, not retried", key: "sk-ant-wrong-key-9876543210",
			want: sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401, Message: "check ANTHROPIC_API_KEY: anthropic message answered 401: authentication_error: invalid x-api-key [redacted]"}},
		{name: "a 403 is unauthenticated too", key: apiKey, fake: &fakeAnthropic{failStatus: 403},
			want: sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 403}},
		{name: "a 429 is retryable after the server's delay", key: apiKey, fake: &fakeAnthropic{failStatus: 429, retryAfter: "20"},
			want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 20 * time.Second}},
		{name: "a 429 on a chat stream is retryable after the server's delay", key: apiKey, chat: true, fake: &fakeAnthropic{failStatus: 429, retryAfter: "7"},
			want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 7 * time.Second}},
		{name: "a 529 overloaded is retryable", key: apiKey, fake: &fakeAnthropic{failStatus: 529, retryAfter: "3"},
			want: sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 529, RetryAfter: 3 * time.Second}},
		{name: "an overloaded error event inside a chat stream is retryable", key: apiKey, chat: true, fake: &fakeAnthropic{midStreamError: true},
			want: sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 529}},
		{name: "a 500 on a chat stream is retryable", key: apiKey, chat: true, fake: &fakeAnthropic{failStatus: 500},
			want: sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 500}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, f := setup(t, tt.fake)
			p.apiKey = tt.key
			client := plugintest.InProcessProvider(t, p)
			var err error
			if tt.chat {
				err = client.Chat(t.Context(), sdk.ChatRequest{Model: "claude-haiku-4-5", Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}}, sdk.ChatStreamFunc(func(sdk.ChatEvent) error { return nil }))
			} else {
				_, err = client.GenerateText(t.Context(), sdk.TextRequest{Model: "claude-haiku-4-5", Prompt: "hi"})
			}
			e := sdk.AsError(err)
			if e == nil || e.Code != tt.want.Code || e.Retryable != tt.want.Retryable || e.StatusCode != tt.want.StatusCode || e.RetryAfter != tt.want.RetryAfter ||
				(tt.want.Message != "" && e.Message != tt.want.Message) {
				t.Errorf("error = %+v, want %+v", e, tt.want)
			}
			if e != nil && tt.key != "" && strings.Contains(e.Error(), tt.key) {
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

func TestImagesAreUnimplemented(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, nil)
	_, err := plugintest.InProcessProvider(t, p).GenerateImage(t.Context(), sdk.ImageRequest{Prompt: "a cat"})
	if code := sdk.ErrorCode(err); code != sdk.CodeUnimplemented {
		t.Errorf("GenerateImage error = %v, want unimplemented", err)
	}
}

func TestConfigureOverridesTheEnvironment(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, nil)
	base := p.baseURL
	p.apiKey, p.baseURL = "", "http://127.0.0.1:1"
	client := plugintest.InProcessProvider(t, p)
	if err := client.Configure(t.Context(), map[string]string{"api_key": apiKey, "base_url": base}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: "claude-haiku-4-5", Prompt: "hi"}); err != nil {
		t.Errorf("GenerateText after Configure: %v", err)
	}
	if err := client.Configure(t.Context(), map[string]string{"region": "eu"}); sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
		t.Errorf("Configure(region) = %v, want invalid_argument", err)
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, nil)
	plugintest.TestProvider(t, p, plugintest.ProviderChecks{
		Text:         &sdk.TextRequest{Model: "claude-haiku-4-5", Prompt: "hello"},
		Chat:         &sdk.ChatRequest{Model: "claude-haiku-4-5", Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "weather?"}}},
		WantToolCall: true,
		Failures: []plugintest.TextFailure{{
			Name: "a request without a prompt is refused", Request: sdk.TextRequest{Model: "claude-haiku-4-5"},
			Want: sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}
