package serpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

const testKey = "serp-test-key-0123456789"

const (
	inlineOverview = `{"search_metadata":{"id":"1","status":"Success"},"search_parameters":{"engine":"google","q":"best crm"},
		"ai_overview":{"text_blocks":[
			{"type":"paragraph","snippet":"Acme is the most used CRM for small teams.","reference_indexes":[0]},
			{"type":"list","list":[{"title":"Acme:","snippet":"simple and cheap.","reference_indexes":[0]},{"snippet":"Globex for enterprises.","reference_indexes":[1]}]}],
		"references":[{"title":"CRM guide","link":"https://a.example/crm","snippet":"...","source":"A Example","index":0},
			{"title":"","link":"https://b.example/top","source":"B Example","index":1},
			{"title":"CRM guide again","link":"https://a.example/crm","index":2}]},
		"organic_results":[{"position":1,"link":"https://c.example/"}]}`
	tokenOverview   = `{"search_metadata":{"status":"Success"},"ai_overview":{"page_token":"tok-123","serpapi_link":"https://serpapi.com/search.json?engine=google_ai_overview&page_token=tok-123"}}`
	fetchedOverview = `{"search_metadata":{"status":"Success"},"ai_overview":{"text_blocks":[{"type":"heading","snippet":"Top CRMs"},{"type":"paragraph","snippet":"Globex leads."}],
		"references":[{"title":"Top CRMs","link":"https://b.example/top","index":0}]}}`
	noOverview = `{"search_metadata":{"status":"Success"},"organic_results":[{"position":1,"link":"https://c.example/"}]}`
	aiMode     = `{"search_metadata":{"status":"Success"},"text_blocks":[{"type":"paragraph","snippet":"For small teams, Acme."},
		{"type":"expandable","title":"Other options","text_blocks":[{"type":"paragraph","snippet":"Globex."}]}],
		"references":[{"title":"Acme review","link":"https://a.example/review","index":0}],"reconstructed_markdown":"For small teams, **Acme**."}`
	emptySearch = `{"search_metadata":{"status":"Success"},"error":"Google hasn't returned any results for this query."}`
)

// fakeSerpAPI is SerpApi as documented: GET /search.json with the key in
// api_key and the engine's parameters in the query; errors are JSON
// {"error": ...} with the HTTP status.
type fakeSerpAPI struct {
	answers    map[string]string // by engine, or "token" for google_ai_overview
	status     int
	retryAfter string

	mu      sync.Mutex
	queries []url.Values
}

func (f *fakeSerpAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fail := func(status int, msg string) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"error":"`+msg+`"}`)
	}
	switch {
	case r.Method != http.MethodGet || r.URL.Path != "/search.json" || r.Header.Get("Accept") != "application/json":
		fail(http.StatusNotFound, "unexpected request")
	case q.Get("api_key") != testKey:
		fail(http.StatusUnauthorized, "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key")
	case f.status != 0:
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		fail(f.status, "Your account has run out of searches.")
	case q.Get("engine") == "google_ai_overview":
		if q.Get("page_token") != "tok-123" {
			fail(http.StatusBadRequest, "Invalid page_token")
			return
		}
		_, _ = io.WriteString(w, f.answers["token"])
	case q.Get("q") == "":
		fail(http.StatusBadRequest, "Missing query `q` parameter.")
	default:
		ans, ok := f.answers[q.Get("engine")]
		if !ok {
			fail(http.StatusBadRequest, "Unsupported engine")
			return
		}
		_, _ = io.WriteString(w, ans)
	}
}

func setup(t *testing.T, f *fakeSerpAPI) *Provider {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := New()
	p.apiKey, p.baseURL = testKey, srv.URL
	p.settings = map[string]string{"location": "Austin, Texas, United States", "gl": "us", "hl": "en"}
	return p
}

func TestGoogleAIAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		answers     map[string]string
		model       string
		options     map[string]any
		want        sdk.TextResponse
		wantQueries []url.Values
	}{
		{"an inline AI Overview is the answer, its references the citations", map[string]string{"google": inlineOverview}, ModelOverview, nil,
			sdk.TextResponse{Text: "Acme is the most used CRM for small teams.\n\n- Acme: simple and cheap.\n- Globex for enterprises.", Model: ModelOverview, FinishReason: "stop",
				Citations: []sdk.Citation{{URL: "https://a.example/crm", Title: "CRM guide"}, {URL: "https://b.example/top", Title: "B Example"}}},
			[]url.Values{{"engine": {"google"}, "q": {"best crm"}, "location": {"Austin, Texas, United States"}, "gl": {"us"}, "hl": {"en"}, "api_key": {testKey}}}},
		{"a page_token is fetched with the google_ai_overview engine", map[string]string{"google": tokenOverview, "token": fetchedOverview}, ModelOverview, nil,
			sdk.TextResponse{Text: "Top CRMs\n\nGlobex leads.", Model: ModelOverview, FinishReason: "stop", Citations: []sdk.Citation{{URL: "https://b.example/top", Title: "Top CRMs"}}},
			[]url.Values{{"engine": {"google"}, "q": {"best crm"}, "location": {"Austin, Texas, United States"}, "gl": {"us"}, "hl": {"en"}, "api_key": {testKey}},
				{"engine": {"google_ai_overview"}, "page_token": {"tok-123"}, "api_key": {testKey}}}},
		{"no AI Overview is no answer", map[string]string{"google": noOverview}, ModelOverview, map[string]any{"gl": "de", "hl": "de", "location": ""},
			sdk.TextResponse{Model: ModelOverview, FinishReason: sdk.FinishNoAnswer},
			[]url.Values{{"engine": {"google"}, "q": {"best crm"}, "gl": {"de"}, "hl": {"de"}, "api_key": {testKey}}}},
		{"a search Google answered with nothing is no answer", map[string]string{"google": emptySearch}, ModelOverview, nil,
			sdk.TextResponse{Model: ModelOverview, FinishReason: sdk.FinishNoAnswer}, nil},
		{"AI Mode's text blocks are the answer", map[string]string{"google_ai_mode": aiMode}, ModelAIMode, nil,
			sdk.TextResponse{Text: "For small teams, Acme.\n\nOther options\n\nGlobex.", Model: ModelAIMode, FinishReason: "stop", Citations: []sdk.Citation{{URL: "https://a.example/review", Title: "Acme review"}}},
			[]url.Values{{"engine": {"google_ai_mode"}, "q": {"best crm"}, "location": {"Austin, Texas, United States"}, "gl": {"us"}, "hl": {"en"}, "api_key": {testKey}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeSerpAPI{answers: tc.answers}
			client := plugintest.InProcessProvider(t, setup(t, f))
			resp, err := client.GenerateText(t.Context(), sdk.TextRequest{Model: tc.model, Prompt: "best crm", Options: tc.options})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Citations) == 0 {
				resp.Citations = nil
			}
			if !reflect.DeepEqual(resp, tc.want) {
				t.Errorf("response = %#v\nwant       %#v", resp, tc.want)
			}
			if tc.wantQueries != nil && !reflect.DeepEqual(f.queries, tc.wantQueries) {
				t.Errorf("queries = %v\nwant      %v", f.queries, tc.wantQueries)
			}
		})
	}
}

func TestSerpAPIErrors(t *testing.T) {
	t.Parallel()
	f := &fakeSerpAPI{answers: map[string]string{"google": inlineOverview}, status: 429, retryAfter: "9"}
	p := setup(t, f)
	client := plugintest.InProcessProvider(t, p)
	ask := func(req sdk.TextRequest) *sdk.Error {
		_, err := client.GenerateText(t.Context(), req)
		return sdk.AsError(err)
	}
	req := sdk.TextRequest{Model: ModelOverview, Prompt: "best crm"}
	if e := ask(req); e == nil || e.Code != sdk.CodeRateLimited || !e.Retryable || e.RetryAfter != 9*time.Second || !strings.Contains(e.Message, "run out of searches") {
		t.Errorf("429: %+v", e)
	}
	f.status = 500
	if e := ask(req); e == nil || e.Code != sdk.CodeUnavailable || !e.Retryable {
		t.Errorf("500: %+v", e)
	}
	p.apiKey = "serp-wrong-key-987654321"
	if e := ask(req); e == nil || e.Code != sdk.CodeUnauthenticated || !strings.HasPrefix(e.Message, "check SERPAPI_API_KEY") || strings.Contains(e.Error(), p.apiKey) {
		t.Errorf("401: %+v", e)
	}
	p.apiKey = ""
	if e := ask(req); e == nil || e.Code != sdk.CodeUnconfigured || !strings.Contains(e.Message, "set SERPAPI_API_KEY") {
		t.Errorf("no key: %+v", e)
	}
	p.apiKey = testKey
	for _, bad := range []sdk.TextRequest{
		{Model: "gpt-4o", Prompt: "x"}, {Model: ModelAIMode},
		{Model: ModelOverview, Prompt: "x", Options: map[string]any{"num": "10"}},
		{Model: ModelOverview, Prompt: "x", Options: map[string]any{"gl": 1.0}},
		{Model: ModelOverview, Prompt: "x", Options: map[string]any{"hl": "en; drop"}},
	} {
		if e := ask(bad); e == nil || e.Code != sdk.CodeInvalidArgument {
			t.Errorf("%+v: %+v", bad, e)
		}
	}
	// A refused address is reported without the URL's query, which holds
	// the key.
	p.baseURL = "http://127.0.0.1:1"
	if e := ask(req); e == nil || e.Code != sdk.CodeUnavailable || strings.Contains(e.Error(), testKey) {
		t.Errorf("unreachable: %+v", e)
	}
}

func TestSerpAPIConfigure(t *testing.T) {
	t.Parallel()
	p := New()
	if err := p.Configure(t.Context(), map[string]string{"api_key": "k", "location": "Berlin, Germany", "gl": "de", "hl": "de"}); err != nil {
		t.Fatal(err)
	}
	if p.apiKey != "k" || p.settings["gl"] != "de" || p.settings["location"] != "Berlin, Germany" {
		t.Errorf("settings not applied: %+v", p.settings)
	}
	for _, bad := range []map[string]string{{"num": "10"}, {"gl": "d e"}, {"base_url": "ftp://x"}, {"api_key": ""}} {
		err := p.Configure(t.Context(), bad)
		if sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if p.settings["gl"] != "de" {
		t.Error("a refused setting changed another")
	}
	if err := p.Chat(t.Context(), sdk.ChatRequest{}, nil); sdk.ErrorCode(err) != sdk.CodeUnimplemented {
		t.Errorf("Chat = %v", err)
	}
}
