package dataforseo

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

const (
	login    = "owner@example.com"
	password = "dfs-test-password-0123"

	overviewResult = `{"version":"0.1.20250526","status_code":20000,"status_message":"Ok.","tasks_count":1,"tasks_error":0,"tasks":[{"id":"t1","status_code":20000,"status_message":"Ok.",
		"result":[{"keyword":"best crm","type":"organic","items":[
			{"type":"organic","rank_absolute":2,"url":"https://c.example/"},
			{"type":"ai_overview","rank_absolute":1,"asynchronous_ai_overview":true,"markdown":"Acme is the CRM most small teams pick.\n\n* Globex for enterprises",
				"items":[{"type":"ai_overview_element","text":"Acme is the CRM most small teams pick.","references":[{"source":"B","domain":"b.example","url":"https://b.example/top","title":"Top CRMs"}]}],
				"references":[{"type":"ai_overview_reference","source":"A Example","domain":"a.example","url":"https://a.example/crm","title":"CRM guide","text":"..."},
					{"type":"ai_overview_reference","source":"B","domain":"b.example","url":"https://b.example/top","title":""}]}]}]}]}`
	noOverviewResult = `{"status_code":20000,"status_message":"Ok.","tasks":[{"status_code":20000,"status_message":"Ok.","result":[{"items":[{"type":"organic","url":"https://c.example/"}]}]}]}`
	aiModeResult     = `{"status_code":20000,"status_message":"Ok.","tasks":[{"status_code":20000,"status_message":"Ok.","result":[{"items":[{"type":"ai_overview",
		"items":[{"type":"ai_overview_element","text":"For small teams, Acme."},{"type":"ai_overview_element","text":"Globex suits enterprises."}],
		"references":[{"source":"Acme review","url":"https://a.example/review"}]}]}]}]}`
)

// fakeDataForSEO is DataForSEO as documented: POST of a JSON array of one
// task with Basic auth; HTTP 200 with status codes in the body, per
// response and per task.
type fakeDataForSEO struct {
	answers  map[string]string // by path
	taskCode int               // a task status code other than 20000

	mu     sync.Mutex
	bodies []any
}

func (f *fakeDataForSEO) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	user, pass, ok := r.BasicAuth()
	switch {
	case r.Method != http.MethodPost || f.answers[r.URL.Path] == "" || r.Header.Get("Content-Type") != "application/json":
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"status_code":40400,"status_message":"Not Found."}`)
	case !ok || user != login || pass != password:
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"status_code":40100,"status_message":"You are not authorized to access this resource."}`)
	case f.taskCode != 0:
		io.WriteString(w, `{"status_code":20000,"status_message":"Ok.","tasks":[{"status_code":`+itoa(f.taskCode)+`,"status_message":"Task failed.","result":null}]}`)
	default:
		io.WriteString(w, f.answers[r.URL.Path])
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func setup(t *testing.T, f *fakeDataForSEO) *Provider {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := New()
	p.login, p.password, p.baseURL, p.location, p.language = login, password, srv.URL, "United States", "en"
	return p
}

var paths = map[string]string{
	"/v3/serp/google/organic/live/advanced": overviewResult,
	"/v3/serp/google/ai_mode/live/advanced": aiModeResult,
}

func TestGoogleAIAnswersThroughDataForSEO(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		answers  map[string]string
		model    string
		options  map[string]any
		want     sdk.TextResponse
		wantTask map[string]any
	}{
		{"the ai_overview item is the answer, its references the citations", paths, ModelOverview, nil,
			sdk.TextResponse{Text: "Acme is the CRM most small teams pick.\n\n* Globex for enterprises", Model: ModelOverview, FinishReason: "stop",
				Citations: []sdk.Citation{{URL: "https://a.example/crm", Title: "CRM guide"}, {URL: "https://b.example/top", Title: "B"}}},
			map[string]any{"keyword": "best crm", "location_name": "United States", "language_code": "en", "load_async_ai_overview": true}},
		{"a page without an ai_overview is no answer", map[string]string{"/v3/serp/google/organic/live/advanced": noOverviewResult}, ModelOverview,
			map[string]any{"location": "Germany", "language": "de"},
			sdk.TextResponse{Model: ModelOverview, FinishReason: sdk.FinishNoAnswer},
			map[string]any{"keyword": "best crm", "location_name": "Germany", "language_code": "de", "load_async_ai_overview": true}},
		{"AI Mode's elements are the answer", paths, ModelAIMode, nil,
			sdk.TextResponse{Text: "For small teams, Acme.\n\nGlobex suits enterprises.", Model: ModelAIMode, FinishReason: "stop",
				Citations: []sdk.Citation{{URL: "https://a.example/review", Title: "Acme review"}}},
			map[string]any{"keyword": "best crm", "location_name": "United States", "language_code": "en"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeDataForSEO{answers: tc.answers}
			resp, err := plugintest.InProcessProvider(t, setup(t, f)).GenerateText(t.Context(), sdk.TextRequest{Model: tc.model, Prompt: "best crm", Options: tc.options})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Citations) == 0 {
				resp.Citations = nil
			}
			if !reflect.DeepEqual(resp, tc.want) {
				t.Errorf("response = %#v\nwant       %#v", resp, tc.want)
			}
			if want := []any{[]any{tc.wantTask}}; !reflect.DeepEqual(f.bodies, want) {
				t.Errorf("bodies = %v\nwant %v", f.bodies, want)
			}
		})
	}
}

func TestDataForSEOErrors(t *testing.T) {
	t.Parallel()
	f := &fakeDataForSEO{answers: paths, taskCode: 40202}
	p := setup(t, f)
	client := plugintest.InProcessProvider(t, p)
	ask := func(req sdk.TextRequest) *sdk.Error {
		_, err := client.GenerateText(t.Context(), req)
		return sdk.AsError(err)
	}
	req := sdk.TextRequest{Model: ModelOverview, Prompt: "best crm"}
	if e := ask(req); e == nil || e.Code != sdk.CodeRateLimited || !e.Retryable {
		t.Errorf("task 40202: %+v", e)
	}
	f.taskCode = 50000
	if e := ask(req); e == nil || e.Code != sdk.CodeUnavailable || !e.Retryable {
		t.Errorf("task 50000: %+v", e)
	}
	f.taskCode = 0
	p.password = "wrong-password-987654"
	if e := ask(req); e == nil || e.Code != sdk.CodeUnauthenticated || !strings.HasPrefix(e.Message, "check DATAFORSEO_LOGIN") || strings.Contains(e.Error(), p.password) {
		t.Errorf("401: %+v", e)
	}
	p.password = ""
	if e := ask(req); e == nil || e.Code != sdk.CodeUnconfigured {
		t.Errorf("no credentials: %+v", e)
	}
	p.password = password
	for _, bad := range []sdk.TextRequest{{Model: "gpt-4o", Prompt: "x"}, {Model: ModelOverview}, {Model: ModelOverview, Prompt: strings.Repeat("x", 701)},
		{Model: ModelOverview, Prompt: "x", Options: map[string]any{"depth": "10"}}, {Model: ModelOverview, Prompt: "x", Options: map[string]any{"location": 1.0}}} {
		if e := ask(bad); e == nil || e.Code != sdk.CodeInvalidArgument {
			t.Errorf("%.40v: %+v", bad, e)
		}
	}
	if err := p.Configure(t.Context(), map[string]string{"location": "France", "language": "fr"}); err != nil || p.location != "France" {
		t.Errorf("Configure: %v, %q", err, p.location)
	}
	if err := p.Configure(t.Context(), map[string]string{"depth": "10"}); sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
		t.Errorf("unknown setting: %v", err)
	}
}
