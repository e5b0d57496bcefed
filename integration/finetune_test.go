package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// fakeTuningOpenAI is OpenAI as a fine-tuning workspace sees it: chat
// completions (streamed for the agent, plain for generation) that answer
// with the model they were asked for, the Files API (multipart, purpose
// fine-tune) and the fine-tuning jobs API, whose job reports status.
type fakeTuningOpenAI struct {
	t   *testing.T
	key string

	mu       sync.Mutex
	status   string // of the job, as GET answers it
	uploaded string
	models   []string // the models chat completions were asked for
	uploads  int
}

const tunedModelID = "ft:gpt-4o-2024-08-06:herald:default:AbC123"

func (f *fakeTuningOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+f.key {
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	bad := func(msg string) {
		f.t.Errorf("fake openai: %s %s: %s", r.Method, r.URL.Path, msg)
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, msg)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	job := func(id string) string {
		model, finished := "null", "null"
		if f.status == "succeeded" {
			model, finished = fmt.Sprintf("%q", tunedModelID), "1732003600"
		}
		return fmt.Sprintf(`{"object":"fine_tuning.job","id":%q,"model":"gpt-4o-2024-08-06","created_at":1732000000,"finished_at":%s,"fine_tuned_model":%s,
			"organization_id":"org-1","result_files":[],"status":%q,"validation_file":null,"training_file":"file-1","hyperparameters":{"n_epochs":"auto"},"trained_tokens":null,"error":null,"seed":1}`,
			id, finished, model, f.status)
	}
	switch {
	case r.Method == "POST" && r.URL.Path == "/v1/chat/completions":
		var body struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		if json.NewDecoder(r.Body).Decode(&body) != nil || body.Model == "" {
			bad("want a chat completion request with a model")
			return
		}
		f.models = append(f.models, body.Model)
		if !body.Stream {
			fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1700000000,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"from %s"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`, body.Model, body.Model)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1700000000,"model":%q,"choices":[{"index":0,"delta":{"role":"assistant","content":"from %s"},"finish_reason":null}]}`, body.Model, body.Model))
		fmt.Fprintf(w, "data: %s\n\n", fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1700000000,"model":%q,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, body.Model))
		io.WriteString(w, "data: [DONE]\n\n")
	case r.Method == "POST" && r.URL.Path == "/v1/files":
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" {
			bad("want multipart/form-data")
			return
		}
		form, err := multipart.NewReader(r.Body, params["boundary"]).ReadForm(1 << 20)
		if err != nil || len(form.File["file"]) != 1 || strings.Join(form.Value["purpose"], ",") != "fine-tune" {
			bad("want one file and purpose fine-tune")
			return
		}
		fh, _ := form.File["file"][0].Open()
		data, _ := io.ReadAll(fh)
		f.uploaded, f.uploads = string(data), f.uploads+1
		fmt.Fprintf(w, `{"id":"file-1","object":"file","bytes":%d,"created_at":1732000000,"filename":%q,"purpose":"fine-tune"}`, len(data), form.File["file"][0].Filename)
	case r.Method == "POST" && r.URL.Path == "/v1/fine_tuning/jobs":
		var body map[string]any
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&body) != nil || body["training_file"] != "file-1" || body["model"] != "gpt-4o" {
			bad(fmt.Sprintf("want JSON {model: gpt-4o, training_file: file-1}, got %v", body))
			return
		}
		f.status = "validating_files"
		io.WriteString(w, job("ftjob-1"))
	case r.Method == "GET" && r.URL.Path == "/v1/fine_tuning/jobs/ftjob-1":
		io.WriteString(w, job("ftjob-1"))
	default:
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"Unknown route"}}`)
	}
}

func (f *fakeTuningOpenAI) set(status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = status
}

func (f *fakeTuningOpenAI) lastModel() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.models[len(f.models)-1]
}

// TestAFineTunedModelIsStartedFollowedAndRoutedForItsWorkspaceOnly runs the
// real binary and the real openai plugin subprocess: `herald finetune
// start` refuses a workspace without enough up-rated answers, then uploads
// the training file and starts the job; the status route follows the job
// at the provider; once it succeeded, ft:default reaches the fine-tuned
// model for workspace default (generation and chat) and is an unknown
// model for another workspace.
func TestAFineTunedModelIsStartedFollowedAndRoutedForItsWorkspaceOnly(t *testing.T) {
	t.Parallel()
	fake := &fakeTuningOpenAI{t: t, key: "sk-tune"}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	p := harness.Start(t, harness.Options{Env: map[string]string{"OPENAI_API_KEY": "sk-tune", "OPENAI_BASE_URL": srv.URL + "/v1"}})
	ctx := context.Background()

	if _, err := p.Run(ctx, "finetune", "start", "--workspace", "default", "--model", "gpt-4o"); err == nil || !strings.Contains(err.Error(), "at least 10") {
		t.Fatalf("finetune start without examples: %v", err)
	}
	if status, body := call(t, "GET", p.URL+"/v1/ai/chat/getFineTuningJob", p.Key, ""); status != 200 || body["data"] != nil {
		t.Fatalf("job after a refused start: %d %v", status, body)
	}

	for i := range 10 {
		status, body := call(t, "POST", p.URL+"/v1/ai/generate/chat", p.Key, fmt.Sprintf(`{"model":"gpt-4o","text":"question %d","sessionId":"train"}`, i))
		if status != 200 {
			t.Fatalf("chat %d: %d %v\n%s", i, status, body, p.Output())
		}
		blocks := body["data"].(map[string]any)["blocks"].([]any)
		answer := blocks[len(blocks)-1].(map[string]any)
		if status, body := call(t, "POST", p.URL+"/v1/ai/chat/feedback", p.Key, fmt.Sprintf(`{"sessionId":"train","blockId":%q,"rating":"up"}`, answer["id"])); status != 201 {
			t.Fatalf("feedback %d: %d %v", i, status, body)
		}
	}
	// Fine-tuning takes only sessions whose owner opted in: without it the
	// ten up-rated exchanges are not training data.
	if out, err := p.Run(ctx, "finetune", "start", "--workspace", "default", "--model", "gpt-4o"); err == nil || !strings.Contains(err.Error()+out, "opted in") {
		t.Fatalf("finetune start before the opt-in: %v\n%s", err, out)
	}
	if status, body := call(t, "PUT", p.URL+"/v1/ai/chat/session/train/training", p.Key, `{"trainingOptIn":true}`); status != 200 {
		t.Fatalf("opt in: %d %v", status, body)
	}
	out, err := p.Run(ctx, "finetune", "start", "--workspace", "default", "--model", "gpt-4o")
	if err != nil || !strings.Contains(out, `"ft:default"`) {
		t.Fatalf("finetune start: %v\n%s", err, out)
	}
	if lines := strings.Split(strings.TrimSpace(fake.uploaded), "\n"); len(lines) != 10 || !strings.Contains(lines[9], `"content":"question 9"`) || fake.uploads != 1 {
		t.Fatalf("uploaded %d files, the last of %d lines: %s", fake.uploads, len(lines), fake.uploaded)
	}

	before := func(status string) map[string]any {
		t.Helper()
		fake.set(status)
		code, body := call(t, "GET", p.URL+"/v1/ai/chat/getFineTuningJob", p.Key, "")
		if code != 200 || body["data"] == nil {
			t.Fatalf("job: %d %v", code, body)
		}
		return body["data"].(map[string]any)
	}
	if got := before("running"); got["status"] != "running" || got["provider"] != "openai" || got["fineTunedModel"] != nil && got["fineTunedModel"] != "" {
		t.Fatalf("running job: %v", got)
	}
	// Before the job succeeded, ft:default is unknown even to its workspace.
	if status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"ft:default","text":"hi"}`); status != 400 {
		t.Fatalf("ft:default before success: %d %v", status, body)
	}
	if got := before("succeeded"); got["status"] != "succeeded" || got["fineTunedModel"] != tunedModelID || got["finishedAt"] == nil {
		t.Fatalf("succeeded job: %v", got)
	}

	status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"ft:default","text":"hi"}`)
	if status != 200 || body["data"].(map[string]any)["text"] != "from "+tunedModelID || fake.lastModel() != tunedModelID {
		t.Fatalf("generate with ft:default: %d %v", status, body)
	}
	// Queued text resolves ft:default with the job's workspace.
	status, body = call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"ft:default","text":"later","useWorker":true}`)
	if status != 202 {
		t.Fatalf("queued ft:default: %d %v", status, body)
	}
	body = waitJob(t, p, body["jobId"].(string), 20*time.Second)
	if res, _ := body["result"].(map[string]any); body["state"] != "completed" || res["text"] != "from "+tunedModelID {
		t.Fatalf("queued ft:default job: %v", body)
	}

	status, body = call(t, "POST", p.URL+"/v1/ai/generate/chat", p.Key, `{"model":"ft:default","text":"hello"}`)
	if status != 200 || body["data"].(map[string]any)["text"] != "from "+tunedModelID || fake.lastModel() != tunedModelID {
		t.Fatalf("chat with ft:default: %d %v", status, body)
	}

	out, err = p.Run(ctx, "keys", "create", "--workspace", "rival", "--plan", "business")
	if err != nil {
		t.Fatal(err)
	}
	rival := harness.LastLine(out)
	for _, route := range []string{"/v1/ai/generate/text", "/v1/ai/generate/chat"} {
		status, body := call(t, "POST", p.URL+route, rival, `{"model":"ft:default","text":"hi"}`)
		if msg, _ := body["message"].(string); status != 400 || !strings.Contains(msg, `unknown model "ft:default"`) {
			t.Errorf("another workspace naming ft:default on %s: %d %v", route, status, body)
		}
	}
}
