package openai

import (
	"encoding/json"
	"errors"
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

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// fakeFineTuning is OpenAI's Files and fine-tuning jobs APIs as documented:
// POST /v1/files takes multipart/form-data with purpose and file; POST
// /v1/fine_tuning/jobs takes JSON {model, training_file, suffix}; GET
// /v1/fine_tuning/jobs/{id} answers the job object. Every request is
// checked; a wrong one is answered 400 and recorded as a test error.
type fakeFineTuning struct {
	t *testing.T
	// job is the JSON of every job the fake answers, with %s for its id.
	job        string
	failStatus int
	retryAfter string

	mu       sync.Mutex
	uploaded []byte
	created  map[string]any
	requests []string
}

func (f *fakeFineTuning) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fail := func(format string, args ...any) {
		f.t.Errorf(format, args...)
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":null}}`, fmt.Sprintf(format, args...))
	}
	if r.Header.Get("Authorization") != "Bearer "+apiKey {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-wrong.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
		return
	}
	if f.failStatus != 0 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.WriteHeader(f.failStatus)
		_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/files":
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" {
			fail("files: Content-Type %q, want multipart/form-data", r.Header.Get("Content-Type"))
			return
		}
		form, err := multipart.NewReader(r.Body, params["boundary"]).ReadForm(1 << 20)
		if err != nil {
			fail("files: %v", err)
			return
		}
		files := form.File["file"]
		if got := form.Value["purpose"]; len(got) != 1 || got[0] != "fine-tune" || len(files) != 1 || !strings.HasSuffix(files[0].Filename, ".jsonl") {
			fail("files: purpose %v and %d files, want purpose fine-tune and one .jsonl file", got, len(files))
			return
		}
		fh, _ := files[0].Open()
		data, _ := io.ReadAll(fh)
		f.mu.Lock()
		f.uploaded = data
		f.mu.Unlock()
		fmt.Fprintf(w, `{"id":"file-abc123","object":"file","bytes":%d,"created_at":1732000000,"filename":%q,"purpose":"fine-tune","status":"processed"}`, len(data), files[0].Filename)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/fine_tuning/jobs":
		var body map[string]any
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&body) != nil {
			fail("jobs: want a JSON body, got Content-Type %q", r.Header.Get("Content-Type"))
			return
		}
		if body["training_file"] != "file-abc123" || body["model"] == nil {
			fail("jobs: body %v, want the uploaded file id and a model", body)
			return
		}
		f.mu.Lock()
		f.created = body
		f.mu.Unlock()
		fmt.Fprintf(w, f.job, "ftjob-abc123")
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/fine_tuning/jobs/"):
		fmt.Fprintf(w, f.job, strings.TrimPrefix(r.URL.Path, "/v1/fine_tuning/jobs/"))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"message":"Unknown route","type":"invalid_request_error","param":null,"code":null}}`)
	}
}

// jobJSON is a fine_tuning.job object as OpenAI documents it.
func jobJSON(status, model, errObj string, finished int64) string {
	m := "null"
	if model != "" {
		m = fmt.Sprintf("%q", model)
	}
	fin := "null"
	if finished > 0 {
		fin = fmt.Sprint(finished)
	}
	return `{"object":"fine_tuning.job","id":"%s","model":"gpt-4o-mini-2024-07-18","created_at":1732000000,"finished_at":` + fin +
		`,"fine_tuned_model":` + m + `,"organization_id":"org-123","result_files":[],"status":"` + status +
		`","validation_file":null,"training_file":"file-abc123","hyperparameters":{"n_epochs":"auto"},"trained_tokens":null,"error":` + errObj + `,"seed":7}`
}

func setupFineTune(t *testing.T, f *fakeFineTuning) (*sdk.ProviderClient, *fakeFineTuning) {
	t.Helper()
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := New()
	p.set(apiKey, srv.URL+"/v1")
	return plugintest.InProcessProvider(t, p), f
}

const trainingFile = `{"messages":[{"role":"system","content":"Be Acme."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello from Acme."}]}` + "\n"

func TestStartFineTuneUploadsTheFileThenStartsTheJob(t *testing.T) {
	t.Parallel()
	client, f := setupFineTune(t, &fakeFineTuning{job: jobJSON("validating_files", "", "null", 0)})
	job, err := client.StartFineTune(t.Context(), sdk.FineTuneRequest{BaseModel: "gpt-4o-mini-2024-07-18", TrainingFile: []byte(trainingFile), Suffix: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	want := sdk.FineTuneJob{ID: "ftjob-abc123", Status: sdk.FineTuneValidatingFiles, CreatedAt: time.Unix(1732000000, 0).UTC()}
	if job != want {
		t.Errorf("job = %+v, want %+v", job, want)
	}
	if got := strings.Join(f.requests, ", "); got != "POST /v1/files, POST /v1/fine_tuning/jobs" {
		t.Errorf("requests = %s", got)
	}
	if string(f.uploaded) != trainingFile {
		t.Errorf("uploaded %q, want the training file", f.uploaded)
	}
	if f.created["model"] != "gpt-4o-mini-2024-07-18" || f.created["suffix"] != "acme" {
		t.Errorf("job body = %v, want model and suffix", f.created)
	}
}

func TestGetFineTuneMapsEveryStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json string
		want sdk.FineTuneJob
	}{
		{jobJSON("validating_files", "", "null", 0), sdk.FineTuneJob{Status: sdk.FineTuneValidatingFiles}},
		{jobJSON("queued", "", "null", 0), sdk.FineTuneJob{Status: sdk.FineTuneQueued}},
		{jobJSON("running", "", "null", 0), sdk.FineTuneJob{Status: sdk.FineTuneRunning}},
		{jobJSON("succeeded", "ft:gpt-4o-mini-2024-07-18:acme::AbC123", "null", 1732003600),
			sdk.FineTuneJob{Status: sdk.FineTuneSucceeded, FineTunedModel: "ft:gpt-4o-mini-2024-07-18:acme::AbC123", FinishedAt: time.Unix(1732003600, 0).UTC()}},
		{jobJSON("failed", "", `{"code":"invalid_training_file","message":"Line 3 is not valid JSON.","param":"training_file"}`, 1732000100),
			sdk.FineTuneJob{Status: sdk.FineTuneFailed, Error: "invalid_training_file: Line 3 is not valid JSON.", FinishedAt: time.Unix(1732000100, 0).UTC()}},
		{jobJSON("cancelled", "", "null", 1732000200), sdk.FineTuneJob{Status: sdk.FineTuneCancelled, FinishedAt: time.Unix(1732000200, 0).UTC()}},
		// A status OpenAI adds later is not final: the host keeps asking.
		{jobJSON("pausing", "", "null", 0), sdk.FineTuneJob{Status: sdk.FineTuneRunning}},
	}
	for _, tt := range tests {
		t.Run(tt.want.Status+" from "+strings.SplitN(strings.SplitN(tt.json, `"status":"`, 2)[1], `"`, 2)[0], func(t *testing.T) {
			t.Parallel()
			client, f := setupFineTune(t, &fakeFineTuning{job: tt.json})
			got, err := client.GetFineTune(t.Context(), "ftjob-xyz")
			if err != nil {
				t.Fatal(err)
			}
			tt.want.ID, tt.want.CreatedAt = "ftjob-xyz", time.Unix(1732000000, 0).UTC()
			if got != tt.want {
				t.Errorf("job = %+v, want %+v", got, tt.want)
			}
			if f.requests[0] != "GET /v1/fine_tuning/jobs/ftjob-xyz" {
				t.Errorf("request = %s", f.requests[0])
			}
		})
	}
}

func TestFineTuneErrors(t *testing.T) {
	t.Parallel()
	t.Run("429 is retryable after the server's Retry-After", func(t *testing.T) {
		t.Parallel()
		client, _ := setupFineTune(t, &fakeFineTuning{job: jobJSON("queued", "", "null", 0), failStatus: 429, retryAfter: "17"})
		_, err := client.StartFineTune(t.Context(), sdk.FineTuneRequest{BaseModel: "gpt-4o-mini-2024-07-18", TrainingFile: []byte(trainingFile)})
		var e *sdk.Error
		if !errors.As(err, &e) || e.Code != sdk.CodeRateLimited || !e.Retryable || e.RetryAfter != 17*time.Second {
			t.Errorf("error = %#v, want rate_limited, retryable after 17s", err)
		}
	})
	t.Run("401 is unauthenticated and names the variable, never the key", func(t *testing.T) {
		t.Parallel()
		f := &fakeFineTuning{job: jobJSON("queued", "", "null", 0), t: t}
		srv := httptest.NewServer(f)
		t.Cleanup(srv.Close)
		p := New()
		p.set("sk-wrong", srv.URL+"/v1")
		_, err := plugintest.InProcessProvider(t, p).GetFineTune(t.Context(), "ftjob-1")
		if sdk.ErrorCode(err) != sdk.CodeUnauthenticated || !strings.Contains(err.Error(), APIKeyEnv) || strings.Contains(err.Error(), "sk-wrong") {
			t.Errorf("error = %v, want unauthenticated naming %s without the key", err, APIKeyEnv)
		}
	})
	t.Run("an empty training file is refused before any request", func(t *testing.T) {
		t.Parallel()
		client, f := setupFineTune(t, &fakeFineTuning{job: jobJSON("queued", "", "null", 0)})
		_, err := client.StartFineTune(t.Context(), sdk.FineTuneRequest{BaseModel: "gpt-4o-mini-2024-07-18"})
		if sdk.ErrorCode(err) != sdk.CodeInvalidArgument || len(f.requests) != 0 {
			t.Errorf("error = %v after %v, want invalid_argument and no request", err, f.requests)
		}
	})
	t.Run("Perplexity does not fine-tune", func(t *testing.T) {
		t.Parallel()
		p := NewDeployment(Perplexity)
		p.set(apiKey, p.baseURL)
		_, err := plugintest.InProcessProvider(t, p).GetFineTune(t.Context(), "ftjob-1")
		if sdk.ErrorCode(err) != sdk.CodeUnimplemented {
			t.Errorf("error = %v, want unimplemented", err)
		}
	})
}

func TestFineTuneConformance(t *testing.T) {
	t.Parallel()
	f := &fakeFineTuning{job: jobJSON("queued", "", "null", 0), t: t}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p := New()
	p.set(apiKey, srv.URL+"/v1")
	plugintest.TestProvider(t, p, plugintest.ProviderChecks{FineTune: &sdk.FineTuneRequest{BaseModel: "gpt-4o-mini-2024-07-18", TrainingFile: []byte(trainingFile)}})
}
