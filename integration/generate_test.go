package integration_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

var tinyPNG = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 48)...)

// fakeOpenAI is an OpenAI-compatible server that checks what the real API
// requires (method, path, bearer key, JSON body with model and messages or
// prompt) and answers as the real API documents.
type fakeOpenAI struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
}

func newFakeOpenAI(t *testing.T, key string) *fakeOpenAI {
	f := &fakeOpenAI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, 400)
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, body)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(401)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		switch r.Method + " " + r.URL.Path {
		case "POST /v1/chat/completions":
			msgs, _ := body["messages"].([]any)
			if body["model"] == nil || len(msgs) == 0 {
				w.WriteHeader(400)
				io.WriteString(w, `{"error":{"message":"model and messages are required"}}`)
				return
			}
			last := msgs[len(msgs)-1].(map[string]any)["content"]
			fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"%s-2026-01-01",
				"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],
				"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`, body["model"], fmt.Sprintf("You said: %v", last))
		case "POST /v1/images/generations":
			if body["model"] == nil || body["prompt"] == nil {
				w.WriteHeader(400)
				io.WriteString(w, `{"error":{"message":"model and prompt are required"}}`)
				return
			}
			fmt.Fprintf(w, `{"created":1700000000,"data":[{"b64_json":%q}],"output_format":"png","size":%q,"quality":%q,
				"usage":{"input_tokens":10,"output_tokens":4160,"total_tokens":4170}}`, base64.StdEncoding.EncodeToString(tinyPNG), body["size"], body["quality"])
		default:
			w.WriteHeader(404)
			io.WriteString(w, `{"error":{"message":"Unknown route"}}`)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func TestGenerationEndToEndThroughTheOpenAIPlugin(t *testing.T) {
	t.Parallel()
	openai := newFakeOpenAI(t, "sk-test")
	p := harness.Start(t, harness.Options{Env: map[string]string{
		"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": openai.URL + "/v1",
	}})

	// Inline text.
	status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"gpt-4o","text":"hello"}`)
	if status != 200 {
		t.Fatalf("inline text: %d %v\n%s", status, body, p.Output())
	}
	data := body["data"].(map[string]any)
	if data["text"] != "You said: hello" || data["model"] != "gpt-4o-2026-01-01" || data["usage"].(map[string]any)["totalTokens"] != float64(15) {
		t.Fatalf("inline text body: %v", body)
	}

	// Queued text, polled to completed.
	status, body = call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"gpt-4o","text":"later","useWorker":true}`)
	if status != 202 || body["jobId"] == nil || len(body) != 2 {
		t.Fatalf("queued text: %d %v", status, body)
	}
	jobID := body["jobId"].(string)
	body = waitJob(t, p, jobID, 20*time.Second)
	if body["state"] != "completed" || body["name"] != "ai_tool_content" || body["queue"] != "aiQueue" || body["progress"] != float64(100) {
		t.Fatalf("job: %v", body)
	}
	if res := body["result"].(map[string]any); res["text"] != "You said: later" {
		t.Fatalf("job result: %v", body["result"])
	}
	if _, ok := body["finishedOn"].(float64); !ok {
		t.Fatalf("finishedOn must be an integer: %v", body["finishedOn"])
	}
	if status, body := call(t, "GET", p.URL+"/v1/ai/generate/job/nope", p.Key, ""); status != 404 || body["jobId"] != "nope" {
		t.Fatalf("unknown job: %d %v", status, body)
	}

	// Image: stored and served at a durable URL.
	status, body = call(t, "POST", p.URL+"/v1/ai/generate/image", p.Key, `{"text":"a lighthouse","purpose":"blog"}`)
	if status != 200 {
		t.Fatalf("image: %d %v", status, body)
	}
	img := body["data"].(map[string]any)
	if img["model"] != "gpt-image-1" || img["size"] != "1536x1024" || img["quality"] != "medium" || img["purpose"] != "blog" {
		t.Fatalf("image data: %v", img)
	}
	url := img["url"].(string)
	if !strings.HasPrefix(url, p.URL+"/v1/blobs/") {
		t.Fatalf("image url %q is not hosted by herald at %s", url, p.URL)
	}
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(got, tinyPNG) || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("hosted image: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}

	// Errors name what is allowed.
	if status, body := call(t, "POST", p.URL+"/v1/ai/generate/image", p.Key, `{"text":"x","size":"10x10"}`); status != 400 || !strings.Contains(body["message"].(string), "1024x1024") {
		t.Fatalf("bad size: %d %v", status, body)
	}
	if status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"llama-9","text":"x"}`); status != 400 || !strings.Contains(body["message"].(string), "gpt-4o") {
		t.Fatalf("unknown model: %d %v", status, body)
	}
}

// TestGenerationWithoutProviderCredentialsIsA503WithARequestID: what to
// set is the operator's business (their log says it); the tenant gets a
// generic 503 with the request id to quote.
func TestGenerationWithoutProviderCredentialsIsA503WithARequestID(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{Env: map[string]string{"OPENAI_API_KEY": ""}, AllowLog: []harness.Allow{
		{Match: `provider call failed: .*code=unconfigured`, Why: "no provider key is configured on purpose"},
		{Match: `request failed: method=POST path=/v1/ai/generate/text|status=503`, Why: "the 503 under test"},
	}})
	status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"gpt-4o","text":"hello"}`)
	msg, _ := body["message"].(string)
	id, _ := body["requestId"].(string)
	if status != 503 || id == "" || !strings.Contains(msg, "request id "+id) || strings.Contains(msg, "OPENAI") {
		t.Fatalf("no key: %d %v", status, body)
	}
}
