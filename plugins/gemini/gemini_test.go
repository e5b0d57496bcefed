package gemini

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

const apiKey = "AIza-test-key-0123456789"

// fakeGemini is the Gemini Developer API as Google documents it: POST
// /v1beta/models/{model}:generateContent, or :streamGenerateContent?alt=sse
// for server-sent events, with the key in x-goog-api-key. failStatus makes
// every call fail with that status (Retry-After and RetryInfo when set).
type fakeGemini struct {
	t          *testing.T
	failStatus int
	retryAfter string
	retryInfo  string
	failBody   string
	// midStreamError makes a stream fail after its first chunk with an
	// error object, as the API does when the model overloads mid-answer.
	midStreamError bool

	mu     sync.Mutex
	paths  []string
	bodies []map[string]any
}

func (f *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.paths = append(f.paths, r.Method+" "+r.URL.RequestURI())
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("x-goog-api-key") != apiKey || r.URL.Query().Get("key") != "" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.`+r.Header.Get("x-goog-api-key")+`","status":"INVALID_ARGUMENT",
			"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`)
		return
	}
	if f.failStatus != 0 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.WriteHeader(f.failStatus)
		if f.failBody != "" {
			_, _ = io.WriteString(w, f.failBody)
			return
		}
		details := "[]"
		if f.retryInfo != "" {
			details = fmt.Sprintf(`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":%q}]`, f.retryInfo)
		}
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":%s}}`, f.failStatus, details)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1beta/models/gemini-2.5-flash:generateContent":
		_, _ = io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Acme is popular."},{"text":" Also Globex."}]},"finishReason":"STOP","index":0,
			"groundingMetadata":{"webSearchQueries":["best crm"],
				"groundingChunks":[{"web":{"uri":"https://vertexaisearch.cloud.google.com/grounding-api-redirect/a","title":"a.example"}},
					{"web":{"uri":"https://vertexaisearch.cloud.google.com/grounding-api-redirect/b","title":"b.example"}},
					{"web":{"uri":"https://vertexaisearch.cloud.google.com/grounding-api-redirect/a","title":"a.example"}}],
				"groundingSupports":[{"segment":{"startIndex":0,"endIndex":16,"text":"Acme is popular."},"groundingChunkIndices":[1]}]}}],
			"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":3,"totalTokenCount":15},"modelVersion":"gemini-2.5-flash-001","responseId":"r1"}`)
	case r.Method == http.MethodPost && r.URL.Path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent" && r.URL.Query().Get("alt") == "sse":
		w.Header().Set("Content-Type", "text/event-stream")
		if f.midStreamError {
			_, _ = io.WriteString(w, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Let me \"}]}}]}\r\n\r\n")
			_, _ = io.WriteString(w, "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n")
			return
		}
		for _, e := range []string{
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"Let me "}]},"index":0}],"modelVersion":"gemini-2.5-pro-002"}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"check."}]},"index":0}],"modelVersion":"gemini-2.5-pro-002"}`,
			`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Oslo"}}},{"functionCall":{"id":"fc_2","name":"time","args":{}}}]},"finishReason":"STOP","index":0}],
				"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":7,"thoughtsTokenCount":2,"totalTokenCount":29},"modelVersion":"gemini-2.5-pro-002"}`,
		} {
			fmt.Fprintf(w, "data: %s\r\n\r\n", strings.ReplaceAll(strings.ReplaceAll(e, "\n", ""), "\t", ""))
		}
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":{"code":404,"message":"%s %s is not found","status":"NOT_FOUND"}}`, r.Method, r.URL.Path)
	}
}

func setup(t *testing.T, f *fakeGemini) (*Provider, *fakeGemini) {
	t.Helper()
	if f == nil {
		f = &fakeGemini{}
	}
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := New()
	p.apiKey, p.baseURL = apiKey, srv.URL+"/"
	return p, f
}

func TestGenerateTextSendsSystemConfigAndReturnsGroundingCitations(t *testing.T) {
	t.Parallel()
	p, f := setup(t, nil)
	temp := 0.25
	resp, err := plugintest.InProcessProvider(t, p).GenerateText(t.Context(), sdk.TextRequest{
		Model: "gemini-2.5-flash", Prompt: "Best CRM?", System: "Be brief.", MaxOutputTokens: 50, Temperature: &temp,
		Options: map[string]any{"web_search": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := sdk.TextResponse{
		Text: "Acme is popular. Also Globex.", Model: "gemini-2.5-flash-001", FinishReason: "stop",
		Usage: sdk.Usage{InputTokens: 12, OutputTokens: 3, TotalTokens: 15},
		Citations: []sdk.Citation{
			{URL: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/a", Title: "a.example"},
			{URL: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/b", Title: "b.example"},
		},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response = %+v\nwant %+v", resp, want)
	}
	wantBody := map[string]any{
		"contents":          []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Best CRM?"}}}},
		"systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Be brief."}}},
		"generationConfig":  map[string]any{"temperature": 0.25, "maxOutputTokens": 50.0},
		"tools":             []any{map[string]any{"googleSearch": map[string]any{}}},
	}
	if !reflect.DeepEqual(f.bodies[0], wantBody) {
		t.Errorf("request body = %v\nwant %v", f.bodies[0], wantBody)
	}
}

func TestChatStreamsTextAndFunctionCalls(t *testing.T) {
	t.Parallel()
	p, f := setup(t, nil)
	req := sdk.ChatRequest{
		Model: "gemini-2.5-pro",
		Messages: []sdk.Message{
			{Role: sdk.RoleSystem, Content: "You forecast."},
			{Role: sdk.RoleUser, Content: "Weather and time in Oslo?"},
			{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: "gemini_call_0_time", Name: "time", Arguments: "{}"}, {ID: "fc_1", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
			{Role: sdk.RoleTool, ToolCallID: "gemini_call_0_time", Content: "12:00"},
			{Role: sdk.RoleTool, ToolCallID: "fc_1", Content: `{"sky":"rain"}`},
		},
		Tools: []sdk.Tool{{Name: "weather", Description: "Forecast for a city", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"},
		}}},
	}
	var events []sdk.ChatEvent
	err := plugintest.InProcessProvider(t, p).Chat(t.Context(), req, sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
		events = append(events, ev)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.ChatEvent{
		{TextDelta: "Let me "},
		{TextDelta: "check."},
		{ToolCall: &sdk.ToolCall{ID: "gemini_call_0_weather", Name: "weather", Arguments: `{"city":"Oslo"}`}},
		{ToolCall: &sdk.ToolCall{ID: "fc_2", Name: "time", Arguments: "{}"}},
		{Finish: &sdk.ChatFinish{FinishReason: "tool_calls", Model: "gemini-2.5-pro-002", Usage: sdk.Usage{InputTokens: 20, OutputTokens: 9, TotalTokens: 29}}},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events = %+v\nwant %+v", events, want)
	}
	if f.paths[0] != "POST /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse" {
		t.Errorf("request = %s", f.paths[0])
	}
	body := f.bodies[0]
	// Both function responses answer one model turn, so they share one
	// user turn; a made-up call ID is not sent back.
	wantContents := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Weather and time in Oslo?"}}},
		map[string]any{"role": "model", "parts": []any{
			map[string]any{"functionCall": map[string]any{"name": "time"}}, // the SDK omits empty args
			map[string]any{"functionCall": map[string]any{"id": "fc_1", "name": "weather", "args": map[string]any{"city": "Oslo"}}},
		}},
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"name": "time", "response": map[string]any{"output": "12:00"}}},
			map[string]any{"functionResponse": map[string]any{"id": "fc_1", "name": "weather", "response": map[string]any{"sky": "rain"}}},
		}},
	}
	if !reflect.DeepEqual(body["contents"], wantContents) {
		t.Errorf("contents = %v\nwant %v", body["contents"], wantContents)
	}
	if want := map[string]any{"role": "user", "parts": []any{map[string]any{"text": "You forecast."}}}; !reflect.DeepEqual(body["systemInstruction"], want) {
		t.Errorf("systemInstruction = %v", body["systemInstruction"])
	}
	wantTools := []any{map[string]any{"functionDeclarations": []any{map[string]any{
		"name": "weather", "description": "Forecast for a city",
		"parametersJsonSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
	}}}}
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Errorf("tools = %v\nwant %v", body["tools"], wantTools)
	}
}

func TestAToolResultForAnUnknownCallIsRefused(t *testing.T) {
	t.Parallel()
	p, f := setup(t, nil)
	err := plugintest.InProcessProvider(t, p).Chat(t.Context(), sdk.ChatRequest{Model: "gemini-2.5-pro", Messages: []sdk.Message{
		{Role: sdk.RoleUser, Content: "hi"}, {Role: sdk.RoleTool, ToolCallID: "nope", Content: "x"},
	}}, sdk.ChatStreamFunc(func(sdk.ChatEvent) error { return nil }))
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeInvalidArgument || !strings.Contains(e.Message, `"nope"`) {
		t.Errorf("error = %v, want invalid_argument naming the call", err)
	}
	if len(f.bodies) != 0 {
		t.Error("the request reached the API")
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fake    *fakeGemini
		key     string
		chat    bool
		want    sdk.Error
		noCalls bool
	}{
		{name: "a missing API key asks the operator to set GEMINI_API_KEY", key: "", noCalls: true,
			want: sdk.Error{Code: sdk.CodeUnconfigured, Message: "set GEMINI_API_KEY: the gemini plugin has no API key"}},
		{name: "an invalid API key (400 API_KEY_INVALID) is unauthenticated and names the variable", key: "AIza-wrong-key-9876543210",
			want: sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 400, Message: "check GEMINI_API_KEY: gemini generateContent answered 400: INVALID_ARGUMENT: API key not valid. Please pass a valid API key.[redacted]"}},
		{name: "a 401 is unauthenticated", key: apiKey, fake: &fakeGemini{failStatus: 401},
			want: sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401}},
		{name: "a 429 is retryable after the Retry-After header", key: apiKey, fake: &fakeGemini{failStatus: 429, retryAfter: "20", retryInfo: "3s"},
			want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 20 * time.Second}},
		{name: "a 429 without the header is retryable after its RetryInfo delay", key: apiKey, fake: &fakeGemini{failStatus: 429, retryInfo: "36.2s"},
			want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 37 * time.Second}},
		{name: "a 429 on a chat stream is retryable after the server's delay", key: apiKey, chat: true, fake: &fakeGemini{failStatus: 429, retryAfter: "5"},
			want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 5 * time.Second}},
		{name: "an error object inside a chat stream is retryable", key: apiKey, chat: true, fake: &fakeGemini{midStreamError: true},
			want: sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 503}},
		{name: "a 503 is retryable", key: apiKey, fake: &fakeGemini{failStatus: 503},
			want: sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 503}},
		{name: "a proxy's 502 whose error body has no code keeps the HTTP status", key: apiKey, fake: &fakeGemini{failStatus: 502, failBody: `{"error":{"message":"upstream connect error"}}`},
			want: sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 502}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, f := setup(t, tt.fake)
			p.apiKey = tt.key
			client := plugintest.InProcessProvider(t, p)
			var err error
			if tt.chat {
				err = client.Chat(t.Context(), sdk.ChatRequest{Model: "gemini-2.5-pro", Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}}, sdk.ChatStreamFunc(func(sdk.ChatEvent) error { return nil }))
			} else {
				_, err = client.GenerateText(t.Context(), sdk.TextRequest{Model: "gemini-2.5-flash", Prompt: "hi"})
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
	p.apiKey, p.baseURL = "", "http://127.0.0.1:1/"
	client := plugintest.InProcessProvider(t, p)
	if err := client.Configure(t.Context(), map[string]string{"api_key": apiKey, "base_url": base}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: "gemini-2.5-flash", Prompt: "hi"}); err != nil {
		t.Errorf("GenerateText after Configure: %v", err)
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	p, _ := setup(t, nil)
	plugintest.TestProvider(t, p, plugintest.ProviderChecks{
		Text:         &sdk.TextRequest{Model: "gemini-2.5-flash", Prompt: "hello"},
		Chat:         &sdk.ChatRequest{Model: "gemini-2.5-pro", Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "weather?"}}},
		WantToolCall: true,
		Failures: []plugintest.TextFailure{{
			Name: "a request without a prompt is refused", Request: sdk.TextRequest{Model: "gemini-2.5-flash"},
			Want: sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}
