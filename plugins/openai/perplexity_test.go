package openai

import (
	"encoding/json"
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

const pplxKey = "pplx-test-key-0123456789"

// fakePerplexity is Perplexity's Sonar API as documented: POST
// /chat/completions at https://api.perplexity.ai with a Bearer key, an
// OpenAI-shaped answer plus top-level citations and search_results.
type fakePerplexity struct {
	failStatus int
	retryAfter string

	mu     sync.Mutex
	bodies []map[string]any
}

func (f *fakePerplexity) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/chat/completions" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"message":"Not found","type":"not_found","code":404}}`)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+pplxKey {
		w.WriteHeader(http.StatusUnauthorized)
		// Echo the key, as a careless server might: the plugin must not.
		_, _ = io.WriteString(w, `{"error":{"message":"Invalid API key `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`","type":"invalid_api_key","code":401}}`)
		return
	}
	if f.failStatus != 0 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.WriteHeader(f.failStatus)
		_, _ = io.WriteString(w, `{"error":{"message":"Rate limit exceeded","type":"rate_limit_exceeded","code":429}}`)
		return
	}
	_, _ = io.WriteString(w, `{"id":"3c90c3cc","model":"sonar-pro","created":1724369245,"object":"chat.completion",
		"usage":{"prompt_tokens":14,"completion_tokens":40,"total_tokens":54,"search_context_size":"low","citation_tokens":0,"num_search_queries":1},
		"citations":["https://b.example/top","https://a.example/crm"],
		"search_results":[{"title":"CRM guide","url":"https://a.example/crm","date":"2025-03-01"},
			{"title":"Top CRMs","url":"https://b.example/top","date":null},
			{"title":"Also read","url":"https://c.example/more","date":"2025-01-10"}],
		"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Acme [1] and Globex [2]."},"delta":{"role":"assistant","content":""}}]}`)
}

func setupPerplexity(t *testing.T, f *fakePerplexity) *Provider {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := NewDeployment(Perplexity)
	p.set(pplxKey, srv.URL)
	return p
}

func TestPerplexityReturnsCitationsWithSearchResultTitles(t *testing.T) {
	t.Parallel()
	f := &fakePerplexity{}
	client := plugintest.InProcessProvider(t, setupPerplexity(t, f))
	info, err := client.Info(t.Context())
	if err != nil || info.Name != "perplexity" {
		t.Fatalf("Info = %+v, %v", info, err)
	}
	resp, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: "sonar-pro", Prompt: "Best CRM?", System: "Be precise."})
	if err != nil {
		t.Fatal(err)
	}
	want := sdk.TextResponse{
		Text: "Acme [1] and Globex [2].", Model: "sonar-pro", FinishReason: "stop", Usage: sdk.Usage{InputTokens: 14, OutputTokens: 40, TotalTokens: 54},
		Citations: []sdk.Citation{
			{URL: "https://b.example/top", Title: "Top CRMs"},
			{URL: "https://a.example/crm", Title: "CRM guide"},
			{URL: "https://c.example/more", Title: "Also read"},
		},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response = %+v\nwant %+v", resp, want)
	}
	wantBody := map[string]any{"model": "sonar-pro", "messages": []any{
		map[string]any{"role": "system", "content": "Be precise."}, map[string]any{"role": "user", "content": "Best CRM?"},
	}}
	if !reflect.DeepEqual(f.bodies[0], wantBody) {
		t.Errorf("request body = %v, want %v", f.bodies[0], wantBody)
	}
}

func TestPerplexityErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fake *fakePerplexity
		key  string
		want sdk.Error
	}{
		{name: "a missing key asks for PERPLEXITY_API_KEY", key: "",
			want: sdk.Error{Code: sdk.CodeUnconfigured, Message: "set PERPLEXITY_API_KEY: the perplexity plugin has no API key"}},
		{name: "a wrong key is unauthenticated and names PERPLEXITY_API_KEY", key: "pplx-wrong-key-9876543210",
			want: sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401}},
		{name: "a 429 is retryable after the server's delay", key: pplxKey, fake: &fakePerplexity{failStatus: 429, retryAfter: "12"},
			want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 12 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.fake == nil {
				tt.fake = &fakePerplexity{}
			}
			p := setupPerplexity(t, tt.fake)
			p.set(tt.key, p.baseURL)
			_, err := plugintest.InProcessProvider(t, p).GenerateText(t.Context(), sdk.TextRequest{Model: "sonar", Prompt: "hi"})
			e := sdk.AsError(err)
			if e == nil || e.Code != tt.want.Code || e.Retryable != tt.want.Retryable || e.StatusCode != tt.want.StatusCode || e.RetryAfter != tt.want.RetryAfter ||
				(tt.want.Message != "" && e.Message != tt.want.Message) {
				t.Errorf("error = %+v, want %+v", e, tt.want)
			}
			if e != nil && e.StatusCode == 401 && !strings.HasPrefix(e.Message, "check PERPLEXITY_API_KEY: ") {
				t.Errorf("401 message %q does not name PERPLEXITY_API_KEY", e.Message)
			}
			if e != nil && tt.key != "" && strings.Contains(e.Error(), tt.key) {
				t.Error("error message contains the API key")
			}
		})
	}
}

func TestPerplexityHasNoImages(t *testing.T) {
	t.Parallel()
	f := &fakePerplexity{}
	_, err := plugintest.InProcessProvider(t, setupPerplexity(t, f)).GenerateImage(t.Context(), sdk.ImageRequest{Prompt: "a cat"})
	if sdk.ErrorCode(err) != sdk.CodeUnimplemented || len(f.bodies) != 0 {
		t.Errorf("GenerateImage = %v after %d calls, want unimplemented without a call", err, len(f.bodies))
	}
}

// TestPerplexityReadsItsOwnEnvironment is not parallel: it sets variables.
func TestPerplexityReadsItsOwnEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-openai")
	t.Setenv("PERPLEXITY_API_KEY", "pplx-env")
	t.Setenv("PERPLEXITY_BASE_URL", "")
	p := NewDeployment(Perplexity)
	if p.apiKey != "pplx-env" || p.baseURL != "https://api.perplexity.ai" {
		t.Errorf("key, base = %q, %q", p.apiKey, p.baseURL)
	}
	t.Setenv("PERPLEXITY_BASE_URL", "http://127.0.0.1:9/")
	if p := NewDeployment(Perplexity); p.baseURL != "http://127.0.0.1:9/" {
		t.Errorf("base = %q, want PERPLEXITY_BASE_URL", p.baseURL)
	}
}

func TestPerplexityConformance(t *testing.T) {
	t.Parallel()
	plugintest.TestProvider(t, setupPerplexity(t, &fakePerplexity{}), plugintest.ProviderChecks{
		Text: &sdk.TextRequest{Model: "sonar", Prompt: "hello"},
		Failures: []plugintest.TextFailure{{
			Name: "a request without a prompt is refused", Request: sdk.TextRequest{Model: "sonar"},
			Want: sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}
