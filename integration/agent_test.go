package integration_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
)

// newFakeChatOpenAI streams chat completions as the real API does (SSE
// chunks, tool call arguments in fragments, usage last). Its script: the
// first call asks for get_ai_traffic_stats; once a tool result is in the
// conversation it answers with the result's aiVisits in two deltas.
func newFakeChatOpenAI(t *testing.T, key string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model    string           `json:"model"`
			Stream   bool             `json:"stream"`
			Messages []map[string]any `json:"messages"`
			Tools    []map[string]any `json:"tools"`
		}
		if r.Method != "POST" || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(404)
			io.WriteString(w, `{"error":{"message":"unknown route or key"}}`)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model == "" || !body.Stream || len(body.Messages) < 2 || body.Messages[0]["role"] != "system" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"want a streamed chat with a system prompt"}}`)
			return
		}
		chunk := func(choices string) string {
			return `{"id":"c","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2026-01-01","choices":` + choices + `}`
		}
		var events []string
		last := body.Messages[len(body.Messages)-1]
		switch {
		case last["role"] == "tool":
			var res struct {
				AIVisits int `json:"aiVisits"`
			}
			// Tool results from outside text reach the model inside an
			// <untrusted-data> wrapper; the JSON is between its tags.
			content := fmt.Sprint(last["content"])
			if !strings.Contains(content, "<untrusted-data") {
				w.WriteHeader(400)
				io.WriteString(w, `{"error":{"message":"traffic stats must reach the model marked as untrusted data"}}`)
				return
			}
			if i, j := strings.Index(content, "{"), strings.LastIndex(content, "}"); i >= 0 && j > i {
				content = content[i : j+1]
			}
			json.Unmarshal([]byte(content), &res)
			events = []string{
				chunk(`[{"index":0,"delta":{"role":"assistant","content":"AI visits: "},"finish_reason":null}]`),
				chunk(fmt.Sprintf(`[{"index":0,"delta":{"content":"%d"},"finish_reason":null}]`, res.AIVisits)),
				chunk(`[{"index":0,"delta":{},"finish_reason":"stop"}]`),
			}
		case len(body.Tools) > 0:
			// Tool parameters cross the plugin boundary as a Struct: a
			// required list must arrive as the JSON array of names.
			if !toolRequires(body.Tools, "calculate_seo_score", "content") {
				w.WriteHeader(400)
				io.WriteString(w, `{"error":{"message":"tools[calculate_seo_score].function.parameters.required must be [\"content\"]"}}`)
				return
			}
			events = []string{
				chunk(`[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_ai_traffic_stats","arguments":"{\"da"}}]},"finish_reason":null}]`),
				chunk(`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ys\":30}"}}]},"finish_reason":null}]`),
				chunk(`[{"index":0,"delta":{},"finish_reason":"tool_calls"}]`),
			}
		default:
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"no tools offered"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
		fmt.Fprintf(w, "data: %s\n\n", `{"id":"c","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2026-01-01","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}`)
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// toolRequires reports whether the tool named name is offered with
// parameters.required equal to want, as OpenAI's function tools carry it.
func toolRequires(tools []map[string]any, name string, want ...string) bool {
	for _, tool := range tools {
		fn, _ := tool["function"].(map[string]any)
		if tool["type"] != "function" || fn["name"] != name {
			continue
		}
		params, _ := fn["parameters"].(map[string]any)
		req, _ := params["required"].([]any)
		if params["type"] != "object" || len(req) != len(want) {
			return false
		}
		for i, r := range req {
			if r != want[i] {
				return false
			}
		}
		return true
	}
	return false
}

// TestTheAgentCallsATrafficToolThroughThePluginProcess runs the real
// binary: the openai plugin as a subprocess streams the tool call over
// gRPC, the host runs the tool against the real traffic rollups, and the
// answer arrives as JSON and as Server-Sent Events.
func TestTheAgentCallsATrafficToolThroughThePluginProcess(t *testing.T) {
	t.Parallel()
	openai := newFakeChatOpenAI(t, "sk-agent")
	p := harness.Start(t, harness.Options{Env: map[string]string{"OPENAI_API_KEY": "sk-agent", "OPENAI_BASE_URL": openai.URL + "/v1"}})
	status, site := call(t, "POST", p.URL+"/v1/ai-traffic/sites", p.Key, `{"domain":"agent.example"}`)
	if status != http.StatusCreated {
		t.Fatalf("create site: %d %v", status, site)
	}
	for i := range 2 {
		body := fmt.Sprintf(`{"siteKey":%q,"path":"/","referrer":"https://chatgpt.com/","sessionId":"v%d"}`, site["siteKey"], i)
		req, _ := http.NewRequest("POST", p.URL+"/v1/ai-traffic/collect", strings.NewReader(body))
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != http.StatusAccepted {
			t.Fatalf("beacon: %v %v", err, res)
		}
		res.Body.Close()
	}

	status, body := call(t, "POST", p.URL+"/v1/ai/generate/chat", p.Key, `{"model":"gpt-4o","text":"How much AI traffic?"}`)
	if status != 200 {
		t.Fatalf("chat: %d %v\n%s", status, body, p.Output())
	}
	data := body["data"].(map[string]any)
	if data["text"] != "AI visits: 2" || len(data["blocks"].([]any)) != 4 {
		t.Fatalf("chat data: %v", data)
	}
	sid := body["sessionId"].(string)

	req, _ := http.NewRequest("POST", p.URL+"/v1/ai/generate/chat", strings.NewReader(fmt.Sprintf(`{"model":"gpt-4o","text":"again","sessionId":%q}`, sid)))
	req.Header.Set("api-key", p.Key)
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var names []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, name)
		}
	}
	if got := strings.Join(names, " "); res.StatusCode != 200 || got != "tool_call tool_result text_delta text_delta done" {
		t.Fatalf("SSE %d: %s", res.StatusCode, got)
	}
	status, sess := call(t, "GET", p.URL+"/v1/ai/chat/session/"+sid, p.Key, "")
	if status != 200 || sess["session"].(map[string]any)["messageCount"] != float64(8) {
		t.Fatalf("session after two messages: %d %v", status, sess)
	}
}
