package content_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/jobs/jobstest"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
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
	srv                 *apitest.Server
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
	credit := quota.New(s, config.Limits{}).Follow(plans.New(byName))
	if b.voices, err = voice.New(voice.Deps{Store: s}); err != nil {
		t.Fatal(err)
	}
	gen, err := generate.New(generate.Deps{Models: b.router, Queue: b.queue, Store: s, Quota: credit, Blobs: blobs, Voices: b.voices})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := content.New(content.Deps{Generator: gen, Queue: b.queue, Quota: credit})
	if err != nil {
		t.Fatal(err)
	}
	mount(b.queue, svc)
	if err := b.queue.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.queue.Stop(context.Background()) })
	b.srv = apitest.Start(t, api.Deps{
		Store: s, MaxBodyBytes: 1 << 20, Blobs: blobs,
		Voices: voice.NewHandler(b.voices), Generate: generate.NewHandler(gen), Content: content.NewHandler(svc),
	})
	return b
}

// mount mounts content's rows of the job table (host/jobs.go) on q.
func mount(q *jobs.Queue, svc *content.Service) {
	q.Mount([]jobs.Route{
		{Queue: jobs.ContentQueue, Name: content.JobImproveSimple, Handler: jobs.HandlerFunc(svc.RunImproveSimple), Options: content.ImproveJobOptions},
		{Queue: jobs.ContentQueue, Name: content.JobImproveValidated, Handler: jobs.HandlerFunc(svc.RunImproveValidated), Options: content.ImproveJobOptions},
		{Queue: jobs.ContentQueue, Name: content.JobBlogPost, Handler: jobs.HandlerFunc(svc.RunBlogPost), Options: content.BlogJobOptions},
	})
}

// rest calls a REST route with a JSON body.
func (b *bundle) rest(t *testing.T, path, key, body string) apitest.Response {
	t.Helper()
	return b.srv.Do(t, "POST", path, key, body)
}

// connectCall calls a ContentService procedure with the Connect protocol
// (JSON codec); errors come back as {code, message}.
func (b *bundle) connectCall(t *testing.T, method, key, body string) apitest.Response {
	t.Helper()
	return b.srv.Do(t, "POST", "/herald.api.v1.ContentService/"+method, key, body)
}

// waitJob polls the job until it finishes.
func (b *bundle) waitJob(t *testing.T, ws, id string) jobstore.Job {
	t.Helper()
	return jobstest.WaitFinished(t, b.queue, ws, id, 15*time.Second)
}

func (b *bundle) creditsUsed(t *testing.T, p auth.Principal) int {
	t.Helper()
	n, err := creditstore.New(b.store).CreditsUsed(context.Background(), p.WorkspaceID, time.Now().UTC().Format("2006-01"))
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
