package content_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/jobs/jobstest"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)

// router is an in-process model router whose text answers a test scripts;
// the plugin path itself is tested end to end in integration/.
type router struct {
	mu      sync.Mutex
	answer  func(req sdk.TextRequest, n int) (string, error) // n counts calls from 1
	text    []sdk.TextRequest
	images  []sdk.ImageRequest
	imgErrs []error
}

func (r *router) Models() []string {
	return append([]string{"gpt-4o", "gpt-4o-mini"}, generate.ImageModels...)
}

func (r *router) GenerateText(_ context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	r.mu.Lock()
	r.text = append(r.text, req)
	n, answer := len(r.text), r.answer
	r.mu.Unlock()
	out := "improved"
	if answer != nil {
		var err error
		if out, err = answer(req, n); err != nil {
			return sdk.TextResponse{}, err
		}
	}
	return sdk.TextResponse{Text: out, Model: model + "-2026", FinishReason: "stop", Usage: sdk.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}}, nil
}

func (r *router) GenerateImage(_ context.Context, model string, req sdk.ImageRequest) (sdk.ImageResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.images = append(r.images, req)
	if len(r.imgErrs) > 0 {
		err := r.imgErrs[0]
		r.imgErrs = r.imgErrs[1:]
		if err != nil {
			return sdk.ImageResponse{}, err
		}
	}
	return sdk.ImageResponse{Data: pngBytes, MIMEType: "image/png", Model: model, Size: req.Size, Quality: req.Quality}, nil
}

func (r *router) textCalls() []sdk.TextRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sdk.TextRequest(nil), r.text...)
}

// bundle is a real API server (REST and Connect) over the content and
// generate services, with keys for alice and bob of workspace acme (free
// plan limited to `credits` a month) and mallory of workspace other.
type bundle struct {
	url                 string
	store               *store.Store
	queue               *jobs.Queue
	router              *router
	voices              *voice.Service
	alice, bob, mallory string
	aliceP, bobP, malP  auth.Principal
}

func setup(t *testing.T, s *store.Store, credits int) *bundle {
	t.Helper()
	ctx := context.Background()
	b := &bundle{store: s, router: &router{}}
	var err error
	for _, k := range []struct {
		key       *string
		p         *auth.Principal
		ws, email string
	}{{&b.alice, &b.aliceP, "acme", "alice@acme.test"}, {&b.bob, &b.bobP, "acme", "bob@acme.test"}, {&b.mallory, &b.malP, "other", "m@other.test"}} {
		if *k.key, err = auth.CreateKey(ctx, s, k.ws, "free", k.email); err != nil {
			t.Fatal(err)
		}
		ws, u, err := s.EnsureWorkspaceUser(ctx, k.ws, "free", k.email)
		if err != nil {
			t.Fatal(err)
		}
		*k.p = auth.Principal{WorkspaceID: ws.ID, UserID: u.ID, Plan: "free"}
	}
	b.queue, err = jobs.New(jobs.Options{Store: s, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewFS(t.TempDir(), "http://blobs.test")
	if err != nil {
		t.Fatal(err)
	}
	byName := config.DefaultPlans()
	byName["free"] = config.Plan{MonthlyAICredits: credits}
	planTable := plans.New(byName)
	if b.voices, err = voice.New(voice.Deps{Store: s}); err != nil {
		t.Fatal(err)
	}
	gen, err := generate.New(generate.Deps{Models: b.router, Queue: b.queue, Store: s, Blobs: blobs, Plans: planTable, Voices: b.voices})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := content.New(content.Deps{Generator: gen, Credits: s, Queue: b.queue, Plans: planTable})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.queue.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.queue.Stop(context.Background()) })
	srv := httptest.NewServer(api.NewServer(api.Deps{
		Logger: hclog.NewNullLogger(), Store: s, Auth: auth.NewAuthenticator(s, "jwt-secret"),
		Registry: prometheus.NewRegistry(), MaxBodyBytes: 1 << 20, Blobs: blobs,
		Voices: voice.NewHandler(b.voices), Generate: generate.NewHandler(gen), Content: content.NewHandler(svc),
	}))
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

type response struct {
	status int
	body   map[string]any
	raw    string
}

// rest calls a REST route with a JSON body.
func (b *bundle) rest(t *testing.T, path, key, body string) response {
	t.Helper()
	return b.post(t, path, key, body)
}

// connectCall calls a ContentService procedure with the Connect protocol
// (JSON codec); errors come back as {code, message}.
func (b *bundle) connectCall(t *testing.T, method, key, body string) response {
	t.Helper()
	return b.post(t, "/herald.api.v1.ContentService/"+method, key, body)
}

func (b *bundle) post(t *testing.T, path, key, body string) response {
	t.Helper()
	req, err := http.NewRequest("POST", b.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("api-key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, raw: string(raw)}
	if err := json.Unmarshal(raw, &out.body); err != nil {
		t.Fatalf("POST %s: %d %q is not a JSON object", path, res.StatusCode, raw)
	}
	return out
}

func (r response) want(t *testing.T, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

// wantError checks an error answer of either face: the status and a
// message that contains each of parts.
func (r response) wantError(t *testing.T, status int, parts ...string) {
	t.Helper()
	r.want(t, status)
	msg, _ := r.body["message"].(string)
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Fatalf("message %q does not contain %q", msg, p)
		}
	}
}

func (r response) data(t *testing.T) map[string]any {
	t.Helper()
	d, ok := r.body["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object: %s", r.raw)
	}
	return d
}

// waitJob polls the job until it finishes.
func (b *bundle) waitJob(t *testing.T, ws, id string) store.Job {
	t.Helper()
	return jobstest.WaitFinished(t, b.queue, ws, id, 15*time.Second)
}

func (b *bundle) creditsUsed(t *testing.T, p auth.Principal) int {
	t.Helper()
	n, err := b.store.CreditsUsed(context.Background(), p.WorkspaceID, time.Now().UTC().Format("2006-01"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (b *bundle) voice(t *testing.T, p auth.Principal, name, content, scope string) string {
	t.Helper()
	v, err := b.voices.CreateFromText(context.Background(), p, voice.NewText{Name: name, Content: content, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return v.ID
}

var _ = connect.CodeOf
