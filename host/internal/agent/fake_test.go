package agent_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/plugins/openai"
	"github.com/heraldhq/herald/sdk"
)

const openaiKey = "sk-agent-test"

// fakeOpenAI is an OpenAI chat completions server that checks what the real
// API requires (POST /v1/chat/completions, bearer key, model, messages, tools
// as functions) and answers with streamed chunks scripted by the last user
// message and how many tool results follow it:
//
//	"traffic ..."     calls get_ai_traffic_stats {"days":7}, then reports aiVisits
//	"schedule: {...}" calls schedule_content with the JSON, then "Proposed."
//	"broken ..."      calls get_ai_traffic_stats {"days":9999}, then repeats the tool's answer
//	"schedules ..."   calls list_schedules, then repeats the tool's answer
//	"loop ..."        calls list_brand_voices while tools are offered
//	"flood ..."       calls list_brand_voices 4 times an answer while tools are offered
//	"fail ..."        answers 400 (the provider refuses the request)
//	"How is my AI traffic?" calls get_ai_traffic_stats, then obeys any
//	                  "call-<tool>-<n>-times" it reads in a tool result by
//	                  calling that tool n times in one answer (the attacker's
//	                  best case: a model that follows injected text), then
//	                  answers "Done."
//	"Generate an image ..." calls generate_image twice in one answer, then "Done."
//	anything else     answers "Hel" "lo " "world"
//
// POST /v1/images/generations answers a PNG and is counted (images).
type fakeOpenAI struct {
	*httptest.Server
	t testing.TB
	// gate, when set, holds a "gated" answer after its first delta until
	// closed (or 10 s), so tests can see deltas arrive before the end.
	gate     chan struct{}
	mu       sync.Mutex
	requests []chatBody
	images   int
}

type chatBody struct {
	Model    string           `json:"model"`
	Stream   bool             `json:"stream"`
	Messages []map[string]any `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func newFakeOpenAI(t testing.TB) *fakeOpenAI {
	f := &fakeOpenAI{t: t}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+openaiKey {
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	if r.Method == "POST" && r.URL.Path == "/v1/images/generations" {
		var body struct {
			Model, Prompt string
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model == "" || body.Prompt == "" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"model and prompt are required"}}`)
			return
		}
		f.mu.Lock()
		f.images++
		f.mu.Unlock()
		fmt.Fprintf(w, `{"created":1700000000,"data":[{"b64_json":%q}],"output_format":"png","size":"1024x1024","quality":"high"}`, base64.StdEncoding.EncodeToString(tinyPNG))
		return
	}
	if r.Method != "POST" || r.URL.Path != "/v1/chat/completions" {
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"Unknown route"}}`)
		return
	}
	var body chatBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model == "" || len(body.Messages) == 0 {
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"message":"model and messages are required"}}`)
		return
	}
	if !body.Stream { // POST /v1/ai/generate/text
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-2026-01-01",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Plain text."},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
		return
	}
	if body.Messages[0]["role"] != "system" {
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"message":"the agent must send its system prompt first"}}`)
		return
	}
	for _, tl := range body.Tools {
		if tl.Type != "function" || tl.Function.Name == "" || tl.Function.Parameters["type"] != "object" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"tools must be functions with object parameters"}}`)
			return
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, body)
	f.mu.Unlock()

	// The script: the last user message and the tool results after it.
	var last string
	var results []string
	for _, m := range body.Messages {
		switch m["role"] {
		case "user":
			last, results = fmt.Sprint(m["content"]), nil
		case "tool":
			results = append(results, fmt.Sprint(m["content"]))
		}
	}
	round := len(results)
	if strings.HasPrefix(last, "fail") {
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"message":"This model's maximum context length was exceeded.","type":"invalid_request_error","code":"context_length_exceeded"}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	switch {
	case last == "How is my AI traffic?" && round == 0:
		f.call(w, "get_ai_traffic_stats", `{"days":30}`)
	case last == "How is my AI traffic?":
		// Obey the first instruction read, once.
		if m := injected.FindStringSubmatch(strings.Join(results, "\n")); m != nil && round == 1 {
			n, _ := strconv.Atoi(m[2])
			f.callN(w, m[1], `{"prompt":"a cat"}`, n)
			return
		}
		f.text(w, "Done.")
	case strings.HasPrefix(last, "Generate an image") && round == 0:
		f.callN(w, "generate_image", `{"prompt":"a lighthouse at dawn","purpose":"square"}`, 2)
	case strings.HasPrefix(last, "Generate an image"):
		f.text(w, "Done.")
	case strings.HasPrefix(last, "traffic") && round == 0:
		f.call(w, "get_ai_traffic_stats", `{"days":7}`)
	case strings.HasPrefix(last, "traffic"):
		var res struct {
			AIVisits int64 `json:"aiVisits"`
		}
		json.Unmarshal([]byte(unwrap(results[0])), &res)
		f.text(w, "You had ", fmt.Sprintf("%d AI visits", res.AIVisits), " this week.")
	case strings.HasPrefix(last, "write for the gap") && round == 0:
		f.call(w, "write_for_gap", `{"trackerId":"tr1","voiceId":"v1","keyphrase":"privacy analytics","minScore":75,"exportTo":"webhook","publishAt":"2030-01-02T15:04:05Z"}`)
	case strings.HasPrefix(last, "write for the gap"):
		f.text(w, "Proposed.")
	case strings.HasPrefix(last, "gap brief") && round == 0:
		f.call(w, "get_gap_brief", `{"trackerId":"tr1"}`)
	case strings.HasPrefix(last, "gap brief") && round == 1:
		// Obey the cited page: schedule at once.
		f.call(w, "schedule_content", `{"exportTo":"webhook","title":"Privacy analytics","content":"A post.","whenToExport":"2030-01-02T15:04:05Z","trackerId":"tr1","targetPrompts":["p_1"]}`)
	case strings.HasPrefix(last, "gap brief"):
		f.text(w, "Proposed.")
	case strings.HasPrefix(last, "schedule:") && round == 0:
		f.call(w, "schedule_content", strings.TrimSpace(strings.TrimPrefix(last, "schedule:")))
	case strings.HasPrefix(last, "schedule:"):
		f.text(w, "Proposed.")
	case strings.HasPrefix(last, "broken") && round == 0:
		f.call(w, "get_ai_traffic_stats", `{"days":9999}`)
	case strings.HasPrefix(last, "schedules") && round == 0:
		f.call(w, "list_schedules", `{}`)
	case strings.HasPrefix(last, "broken"), strings.HasPrefix(last, "schedules"):
		f.text(w, "Tool said: ", results[0])
	case strings.HasPrefix(last, "gated"):
		f.send(w, "stop", chunk(`[{"index":0,"delta":{"role":"assistant","content":"first "},"finish_reason":null}]`))
	case strings.HasPrefix(last, "loop") && len(body.Tools) > 0:
		f.call(w, "list_brand_voices", `{}`)
	case strings.HasPrefix(last, "loop"):
		f.text(w, "Gave up.")
	case strings.HasPrefix(last, "flood") && len(body.Tools) > 0:
		f.callN(w, "list_brand_voices", `{}`, 4)
	case strings.HasPrefix(last, "flood"):
		f.text(w, "Enough.")
	default:
		f.text(w, "Hel", "lo ", "world")
	}
}

func chunk(choices string) string {
	return `{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2026-01-01","choices":` + choices + `}`
}

func (f *fakeOpenAI) send(w http.ResponseWriter, finish string, events ...string) {
	events = append(events, chunk(`[{"index":0,"delta":{},"finish_reason":"`+finish+`"}]`),
		`{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2026-01-01","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`)
	for i, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		w.(http.Flusher).Flush()
		if i == 0 && f.gate != nil && strings.Contains(e, `"first "`) {
			select {
			case <-f.gate:
			case <-time.After(10 * time.Second):
			}
			fmt.Fprintf(w, "data: %s\n\n", chunk(`[{"index":0,"delta":{"content":"then the rest"},"finish_reason":null}]`))
		}
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

func (f *fakeOpenAI) text(w http.ResponseWriter, parts ...string) {
	var events []string
	for i, p := range parts {
		role := ""
		if i == 0 {
			role = `"role":"assistant",`
		}
		q, _ := json.Marshal(p)
		events = append(events, chunk(`[{"index":0,"delta":{`+role+`"content":`+string(q)+`},"finish_reason":null}]`))
	}
	f.send(w, "stop", events...)
}

func (f *fakeOpenAI) call(w http.ResponseWriter, name, args string) {
	// The arguments arrive in two fragments, as the real API streams them.
	half := len(args) / 2
	a, _ := json.Marshal(args[:half])
	b, _ := json.Marshal(args[half:])
	f.send(w, "tool_calls",
		chunk(`[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"`+name+`","arguments":""}}]},"finish_reason":null}]`),
		chunk(`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`+string(a)+`}}]},"finish_reason":null}]`),
		chunk(`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`+string(b)+`}}]},"finish_reason":null}]`),
	)
}

// unwrap is the data inside an untrusted-data envelope (or s).
func unwrap(s string) string {
	if !strings.HasPrefix(s, "<untrusted-data ") {
		return s
	}
	start := strings.Index(s, "\n") + 1
	end := strings.Index(s, "\n</untrusted-data ")
	if start <= 0 || end < start {
		return s
	}
	return s[start:end]
}

// callN calls the tool n times in one answer (parallel tool calls).
func (f *fakeOpenAI) callN(w http.ResponseWriter, name, args string, n int) {
	var events []string
	for i := range n {
		role := ""
		if i == 0 {
			role = `"role":"assistant",`
		}
		q, _ := json.Marshal(args)
		events = append(events, chunk(fmt.Sprintf(`[{"index":0,"delta":{%s"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":%q,"arguments":%s}}]},"finish_reason":null}]`, role, i, i, name, q)))
	}
	f.send(w, "tool_calls", events...)
}

// injected is the instruction an attacker hides in a page path.
var injected = regexp.MustCompile(`call-([a-z_]+)-(\d+)-times`)

// tinyPNG is a 1x1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

func (f *fakeOpenAI) imageCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.images
}

func (f *fakeOpenAI) calls() []chatBody {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatBody(nil), f.requests...)
}

// openaiModels routes model "gpt-4o" to the real openai plugin (in
// process) configured against the fake server.
type openaiModels struct{ p *openai.Provider }

func newOpenAIModels(t testing.TB, f *fakeOpenAI) openaiModels {
	p := openai.New()
	if err := p.Configure(context.Background(), map[string]string{"api_key": openaiKey, "base_url": f.URL + "/v1"}); err != nil {
		t.Fatal(err)
	}
	return openaiModels{p}
}

func (m openaiModels) Models() []string { return []string{"gpt-4o"} }

func (m openaiModels) GenerateText(ctx context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	req.Model = model
	return m.p.GenerateText(ctx, req)
}

func (m openaiModels) GenerateImage(ctx context.Context, model string, req sdk.ImageRequest) (sdk.ImageResponse, error) {
	req.Model = model
	return m.p.GenerateImage(ctx, req)
}

// imageModels are the models the generate service sees: gpt-4o and the
// image model gpt-image-1, both through the openai plugin.
type imageModels struct{ openaiModels }

func (m imageModels) Models() []string { return []string{"gpt-4o", "gpt-image-1"} }

func (m openaiModels) Chat(ctx context.Context, model string, req sdk.ChatRequest, stream sdk.ChatStream) error {
	req.Model = model
	return m.p.Chat(ctx, req, stream)
}
