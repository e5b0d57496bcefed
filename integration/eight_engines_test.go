package integration_test

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// The eight engines a report asks in these tests: the four first engines
// and four added ones, each served by its real plugin subprocess against a
// fake of its provider's documented API.
var eightEngines = []string{"gpt-4o", "claude-sonnet-4-5", "gemini-2.5-flash", "sonar", "grok-4", "deepseek-chat", "mistral-medium-latest", "google-ai-overview"}

// engineAPI is one provider's documented endpoint: method, path and auth
// header checked as the provider documents them (418 otherwise, counted as
// a problem); it answers each question with answer(question), after delay,
// and keeps the peak of requests in flight.
type engineAPI struct {
	*httptest.Server
	name, method, path, header, value string
	delay                             time.Duration
	// respond writes the provider's answer to question (the prompt found
	// in the request); nil answers are written by the caller's default.
	respond func(w http.ResponseWriter, r *http.Request, question string)

	inFlight, peak, requests atomic.Int32
	mu                       sync.Mutex
	problems                 []string
	seen                     map[string][]time.Time // question → request times
}

func newEngineAPI(t *testing.T, name, method, path, header, value string, delay time.Duration,
	respond func(w http.ResponseWriter, r *http.Request, question string)) *engineAPI {
	e := &engineAPI{name: name, method: method, path: path, header: header, value: value, delay: delay, respond: respond, seen: map[string][]time.Time{}}
	e.Server = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.Close)
	return e
}

func (e *engineAPI) serve(w http.ResponseWriter, r *http.Request) {
	n := e.inFlight.Add(1)
	defer e.inFlight.Add(-1)
	for p := e.peak.Load(); n > p && !e.peak.CompareAndSwap(p, n); p = e.peak.Load() {
	}
	e.requests.Add(1)
	got := r.Header.Get(e.header)
	if e.header == "api_key" {
		got = r.URL.Query().Get("api_key")
	}
	if r.Method != e.method || r.URL.Path != e.path || got != e.value {
		e.mu.Lock()
		e.problems = append(e.problems, fmt.Sprintf("%s %s (%s %q)", r.Method, r.URL.Path, e.header, got))
		e.mu.Unlock()
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, `{"error":{"message":"unexpected request"}}`)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(raw))
	question := r.URL.Query().Get("q")
	if question == "" {
		question = questionIn(raw)
	}
	e.mu.Lock()
	e.seen[question] = append(e.seen[question], time.Now())
	e.mu.Unlock()
	time.Sleep(e.delay)
	w.Header().Set("Content-Type", "application/json")
	e.respond(w, r, question)
}

// Problems lists the requests that were not as documented.
func (e *engineAPI) Problems() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.problems...)
}

// Times returns when question was asked.
func (e *engineAPI) Times(question string) []time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]time.Time(nil), e.seen[question]...)
}

// questionIn finds the user's question in a JSON request body: the last
// "content" or "text" string of the user's turn, or a Responses/
// Conversations input.
func questionIn(raw []byte) string {
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	var last string
	var walk func(v any, role string)
	walk = func(v any, role string) {
		switch x := v.(type) {
		case map[string]any:
			r, _ := x["role"].(string)
			if r == "" {
				r = role
			}
			for k, c := range x {
				if s, ok := c.(string); ok && (k == "content" || k == "text") && r == "user" {
					last = s
				}
				walk(c, r)
			}
		case []any:
			for _, c := range x {
				walk(c, role)
			}
		}
	}
	walk(body, "")
	return last
}

// engineAnswer is what every engine says of a buyer prompt: self first,
// the competitor second; probes get "I don't know".
func engineAnswer(engine, question string) string {
	if strings.HasPrefix(question, "crm ") || strings.Contains(question, " crm") {
		return "For " + question + " the pick is Acme, then Globex (" + engine + ")."
	}
	return "I don't know."
}

func cite(engine, question string) string {
	return "https://" + engine + ".cite.example/" + strings.ReplaceAll(question, " ", "-")
}

// eightFakes starts the providers' fakes; deepseek answers 429 with
// Retry-After: 2 to the first request of rateLimited, mistral is down when
// outage, and the google search of noOverview shows no AI Overview.
type eightFakes struct {
	openai                                                    *judgeFake
	openaiAPI, claude, gemini, sonar, grok, deepseek, mistral *engineAPI
	serp                                                      *engineAPI
}

func (f eightFakes) all() map[string]*engineAPI {
	return map[string]*engineAPI{"gpt-4o": f.openaiAPI, "claude-sonnet-4-5": f.claude, "gemini-2.5-flash": f.gemini, "sonar": f.sonar,
		"grok-4": f.grok, "deepseek-chat": f.deepseek, "mistral-medium-latest": f.mistral, "google-ai-overview": f.serp}
}

func startEightFakes(t *testing.T, delay time.Duration, rateLimited, noOverview string, outage bool) eightFakes {
	var f eightFakes
	var limited atomic.Bool
	f.openai = &judgeFake{key: "sk-8", answers: map[string]string{}, namesBrand: map[string]bool{}, asked: map[string]int{}}
	f.openaiAPI = newEngineAPI(t, "openai", "POST", "/v1/chat/completions", "Authorization", "Bearer sk-8", delay, func(w http.ResponseWriter, r *http.Request, q string) {
		f.openai.mu.Lock()
		f.openai.answers[q] = engineAnswer("gpt", q)
		f.openai.mu.Unlock()
		f.openai.serve(w, r)
	})
	f.claude = newEngineAPI(t, "anthropic", "POST", "/v1/messages", "X-Api-Key", "sk-ant-8", delay, func(w http.ResponseWriter, _ *http.Request, q string) {
		json.NewEncoder(w).Encode(map[string]any{"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
			"content": []any{map[string]any{"type": "text", "text": engineAnswer("claude", q)}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 3, "output_tokens": 4}})
	})
	f.gemini = newEngineAPI(t, "gemini", "POST", "/v1beta/models/gemini-2.5-flash:generateContent", "X-Goog-Api-Key", "AIza-8", delay, func(w http.ResponseWriter, _ *http.Request, q string) {
		json.NewEncoder(w).Encode(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
			"parts": []any{map[string]any{"text": engineAnswer("gemini", q)}}}, "finishReason": "STOP"}},
			"modelVersion": "gemini-2.5-flash-001", "usageMetadata": map[string]any{"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}})
	})
	chat := func(engine string, citations bool) func(w http.ResponseWriter, r *http.Request, q string) {
		return func(w http.ResponseWriter, _ *http.Request, q string) {
			out := map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": engine,
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": engineAnswer(engine, q)}}},
				"usage":   map[string]any{"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}
			if citations {
				out["citations"] = []string{cite(engine, q)}
			}
			json.NewEncoder(w).Encode(out)
		}
	}
	f.sonar = newEngineAPI(t, "perplexity", "POST", "/chat/completions", "Authorization", "Bearer pplx-8", delay, chat("sonar", true))
	dsAnswer := chat("deepseek-chat", false)
	f.deepseek = newEngineAPI(t, "deepseek", "POST", "/chat/completions", "Authorization", "Bearer ds-8", delay, func(w http.ResponseWriter, r *http.Request, q string) {
		if q == rateLimited && limited.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"rate_limit_error","code":"rate_limit_exceeded"}}`)
			return
		}
		dsAnswer(w, r, q)
	})
	f.grok = newEngineAPI(t, "xai", "POST", "/v1/responses", "Authorization", "Bearer xai-8", delay, func(w http.ResponseWriter, _ *http.Request, q string) {
		json.NewEncoder(w).Encode(map[string]any{"id": "r", "object": "response", "model": "grok-4-0709", "status": "completed",
			"output": []any{map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": engineAnswer("grok", q),
				"annotations": []any{map[string]any{"type": "url_citation", "url": cite("grok", q), "title": "1"}}}}}},
			"citations": []string{cite("grok", q)}, "usage": map[string]any{"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}})
	})
	f.mistral = newEngineAPI(t, "mistral", "POST", "/v1/conversations", "Authorization", "Bearer mistral-8", delay, func(w http.ResponseWriter, _ *http.Request, q string) {
		if outage {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"object":"error","message":"Service unavailable","type":"service_unavailable","code":"3505"}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "conversation.response", "conversation_id": "c",
			"outputs": []any{map[string]any{"object": "entry", "type": "message.output", "role": "assistant", "model": "mistral-medium-2505",
				"content": []any{map[string]any{"type": "text", "text": engineAnswer("mistral", q)},
					map[string]any{"type": "tool_reference", "tool": "web_search", "title": "ref", "url": cite("mistral", q)}}}},
			"usage": map[string]any{"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
	})
	f.serp = newEngineAPI(t, "serpapi", "GET", "/search.json", "api_key", "serp-8", delay, func(w http.ResponseWriter, r *http.Request, q string) {
		qs := r.URL.Query()
		if qs.Get("engine") != "google" || qs.Get("gl") != "us" || qs.Get("hl") != "en" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"unexpected parameters"}`)
			return
		}
		if q == noOverview || engineAnswer("google", q) == "I don't know." {
			io.WriteString(w, `{"search_metadata":{"status":"Success"},"organic_results":[{"position":1,"link":"https://c.example/"}]}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"search_metadata": map[string]any{"status": "Success"}, "ai_overview": map[string]any{
			"text_blocks": []any{map[string]any{"type": "paragraph", "snippet": engineAnswer("google", q), "reference_indexes": []int{0}}},
			"references":  []any{map[string]any{"title": "Overview source", "link": cite("google", q), "source": "Cite", "index": 0}}}})
	})
	return f
}

// tlsSite serves html at / over https and returns its URL and the file of
// its test CA, for SSL_CERT_FILE.
func tlsSite(t *testing.T, html string) (string, string) {
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, html)
	}))
	t.Cleanup(site.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: site.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return site.URL, ca
}

// acmeSite is the tracked brand's site.
func acmeSite(t *testing.T) (string, string) {
	return tlsSite(t, `<html><head><title>Acme | CRM</title><meta name="description" content="A CRM for small teams.">
<script type="application/ld+json">{"@type":"Organization","name":"Acme"}</script></head><body><h1>CRM</h1></body></html>`)
}

// eightHost starts herald with the eight engines routed to the fakes and
// returns it with the brand's site URL.
func eightHost(t *testing.T, f eightFakes, extraHCL string, allow []harness.Allow) (*harness.Proc, string) {
	t.Helper()
	siteURL, ca := acmeSite(t)
	cfg := filepath.Join(t.TempDir(), "herald.hcl")
	hcl := `visibility {
  engines     = ["` + strings.Join(eightEngines, `", "`) + `"]
  judge_model = "gpt-4o"
  concurrency = 64
}
plan "business" {
  report_samples  = 1
  tracker_samples = 1
}
` + extraHCL
	if err := os.WriteFile(cfg, []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	return harness.Start(t, harness.Options{Env: map[string]string{
		"HERALD_CONFIG":  cfg,
		"OPENAI_API_KEY": "sk-8", "OPENAI_BASE_URL": f.openaiAPI.URL + "/v1",
		"ANTHROPIC_API_KEY": "sk-ant-8", "ANTHROPIC_BASE_URL": f.claude.URL,
		"GEMINI_API_KEY": "AIza-8", "GEMINI_BASE_URL": f.gemini.URL + "/",
		"PERPLEXITY_API_KEY": "pplx-8", "PERPLEXITY_BASE_URL": f.sonar.URL,
		"XAI_API_KEY": "xai-8", "XAI_BASE_URL": f.grok.URL + "/v1",
		"DEEPSEEK_API_KEY": "ds-8", "DEEPSEEK_BASE_URL": f.deepseek.URL,
		"MISTRAL_API_KEY": "mistral-8", "MISTRAL_BASE_URL": f.mistral.URL + "/v1",
		"SERPAPI_API_KEY": "serp-8", "SERPAPI_BASE_URL": f.serp.URL, "SERPAPI_GL": "us", "SERPAPI_HL": "en",
		"SSL_CERT_FILE": ca, "HERALD_ALLOWED_PRIVATE_CIDRS": "127.0.0.0/8",
	}, AllowLog: allow}), siteURL
}
