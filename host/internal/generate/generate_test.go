package generate_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/jobs/jobstest"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/sdk"
)

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)

// router is an in-process model router: the domain tests check what
// generation does with the router's answers; the plugin path itself is
// tested end to end in integration/.
type router struct {
	mu       sync.Mutex
	textErrs []error // returned in order before succeeding
	imageErr error
	image    []byte
	prompts  []sdk.TextRequest
	calls    []time.Time // when each GenerateText call came
}

func (r *router) Models() []string { return append([]string{"gpt-4o"}, generate.ImageModels...) }

func (r *router) GenerateText(_ context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prompts = append(r.prompts, req)
	r.calls = append(r.calls, time.Now())
	if len(r.textErrs) > 0 {
		err := r.textErrs[0]
		r.textErrs = r.textErrs[1:]
		return sdk.TextResponse{}, err
	}
	return sdk.TextResponse{Text: "echo: " + req.Prompt, Model: model + "-2026", FinishReason: "stop", Usage: sdk.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}, nil
}

func (r *router) GenerateImage(_ context.Context, model string, req sdk.ImageRequest) (sdk.ImageResponse, error) {
	if r.imageErr != nil {
		return sdk.ImageResponse{}, r.imageErr
	}
	data := r.image
	if data == nil {
		data = pngBytes
	}
	return sdk.ImageResponse{Data: data, MIMEType: "image/png", Model: model, Size: req.Size, Quality: req.Quality}, nil
}

type testBundle struct {
	svc    *generate.Service
	store  *store.Store
	queue  *jobs.Queue
	router *router
	p      auth.Principal
}

// newService is generate.New for tests: a failure ends the test. Without
// a Quota, credits follow the default plans; the service's rows of the
// host's job table are mounted on d.Queue.
func newService(t *testing.T, d generate.Deps) *generate.Service {
	t.Helper()
	if d.Quota == nil {
		d.Quota = quota.New(d.Store, config.Limits{}).Follow(plans.New(nil))
	}
	svc, err := generate.New(d)
	if err != nil {
		t.Fatal(err)
	}
	mount(d.Queue.(*jobs.Queue), svc)
	return svc
}

// bare is newService for a test of single calls: d gets a new SQLite
// store, a queue that is not started, a blob store and a new router.
func bare(t *testing.T, d generate.Deps) (*generate.Service, *router) {
	t.Helper()
	s := storetest.SQLite(t)
	q, err := jobs.New(jobs.Options{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewFS(t.TempDir(), "http://herald.test")
	if err != nil {
		t.Fatal(err)
	}
	r := &router{}
	d.Models, d.Queue, d.Store, d.Blobs = r, q, s, blobs
	return newService(t, d), r
}

// mount mounts generate's rows of the job table (host/jobs.go) on q: the
// text job names and the aiQueue fallback.
func mount(q *jobs.Queue, svc *generate.Service) {
	text := jobs.HandlerFunc(svc.RunText)
	rows := []jobs.Route{{Queue: jobs.AIQueue, Handler: text, Options: generate.TextJobOptions}}
	for _, name := range generate.TextJobTypes {
		rows = append(rows, jobs.Route{Queue: jobs.AIQueue, Name: name, Handler: text, Options: generate.TextJobOptions})
	}
	q.Mount(rows)
}

// setup starts a queue and a service over s; with sets further Deps
// (brand voices).
func setup(t *testing.T, s *store.Store, plan string, with ...func(*generate.Deps)) *testBundle {
	t.Helper()
	ctx := context.Background()
	ws, u, err := s.EnsureWorkspaceUser(ctx, "acme", plan, "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(jobs.Options{Store: s, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	blobs, _ := blob.NewFS(t.TempDir(), "http://herald.test")
	byName := config.DefaultPlans()
	byName["free"] = config.Plan{PromptsPerReport: 5, MonthlyAICredits: 2}
	r := &router{}
	d := generate.Deps{Logger: hclog.NewNullLogger(), Models: r, Queue: q, Store: s, Blobs: blobs,
		Quota: quota.New(s, config.Limits{}).Follow(plans.New(byName))}
	for _, f := range with {
		f(&d)
	}
	svc := newService(t, d)
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	return &testBundle{svc: svc, store: s, queue: q, router: r,
		p: auth.Principal{WorkspaceID: ws.ID, UserID: u.ID, Plan: plan}}
}

func code(err error) connect.Code { return connect.CodeOf(err) }

func TestTextRunsInlineWithOptions(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	res, _, err := b.svc.GenerateText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "hi",
		Options: map[string]any{"system": "be brief", "maxOutputTokens": float64(50), "temperature": 0.2, "seed": float64(7)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "echo: hi" || res.Usage.TotalTokens != 7 {
		t.Fatalf("result: %+v", res)
	}
	got := b.router.prompts[0]
	if got.System != "be brief" || got.MaxOutputTokens != 50 || *got.Temperature != 0.2 || got.Options["seed"] != float64(7) {
		t.Fatalf("provider request: %+v", got)
	}
}

func TestBadTextRequestsAreRejectedBeforeAnyCall(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	cases := []struct {
		name string
		in   generate.TextInput
		want string
	}{
		{"no model", generate.TextInput{Text: "x"}, "model is required"},
		{"an unknown model", generate.TextInput{Model: "gpt-99", Text: "x"}, `unknown model "gpt-99" (text models: gpt-4o)`},
		{"an image model", generate.TextInput{Model: "gpt-image-1", Text: "x"}, "gpt-image-1 is an image model"},
		{"no text", generate.TextInput{Model: "gpt-4o", Text: "  "}, "text is required"},
		{"too much text", generate.TextInput{Model: "gpt-4o", Text: strings.Repeat("x", generate.MaxPromptChars+1)}, "limit"},
		{"a string temperature", generate.TextInput{Model: "gpt-4o", Text: "x", Options: map[string]any{"temperature": "hot"}}, "temperature"},
		{"a fractional token cap", generate.TextInput{Model: "gpt-4o", Text: "x", Options: map[string]any{"maxOutputTokens": 1.5}}, "maxOutputTokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := b.svc.GenerateText(context.Background(), b.p, c.in)
			if code(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want 400 mentioning %q", err, c.want)
			}
			_, err = b.svc.QueueText(context.Background(), b.p, c.in)
			if code(err) != connect.CodeInvalidArgument {
				t.Fatalf("queued: got %v", err)
			}
		})
	}
	for _, bad := range []string{strings.Repeat("a", 65), "has space", "slash/name", "ünicode"} {
		if _, err := b.svc.QueueText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "x", JobType: bad}); code(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "jobType") {
			t.Fatalf("jobType %q: %v, want 400 naming jobType", bad, err)
		}
	}
	if len(b.router.prompts) != 0 {
		t.Fatalf("the provider was called for invalid requests: %v", b.router.prompts)
	}
}

func waitJob(t *testing.T, q *jobs.Queue, ws, id string) jobstore.Job {
	t.Helper()
	return jobstest.WaitFinished(t, q, ws, id, 15*time.Second)
}

func TestQueuedTextCompletesAndRetriesTransientFailures(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, "business")
		b.router.textErrs = []error{&sdk.Error{Code: sdk.CodeRateLimited, Message: "slow down", Retryable: true, RetryAfter: 100 * time.Millisecond}}
		id, err := b.svc.QueueText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "queued", JobType: "blog_post"})
		if err != nil {
			t.Fatal(err)
		}
		j := waitJob(t, b.queue, b.p.WorkspaceID, id)
		if jobs.StateOf(j) != jobs.StateCompleted || j.Name != "blog_post" || j.Queue != jobs.AIQueue || j.AttemptsMade != 2 {
			t.Fatalf("job: %+v", j)
		}
		if j.Result == nil || !strings.Contains(*j.Result, `"text":"echo: queued"`) || !strings.Contains(*j.Result, `"totalTokens":7`) || !strings.Contains(j.Data, `"model":"gpt-4o"`) {
			t.Fatalf("result %v, data %s", j.Result, j.Data)
		}
	})
}

// SPEC's jobType is the job's name, with no list: any name of the allowed
// characters runs the text handler (the route decides) and is reported as
// the job's name.
func TestAnyJobTypeRunsTheTextHandlerAndNamesTheJob(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	for _, name := range []string{"newsletter:weekly.v2", strings.Repeat("x", 64), "A-b_c"} {
		id, err := b.svc.QueueText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "queued", JobType: name})
		if err != nil {
			t.Fatalf("jobType %q: %v", name, err)
		}
		j := waitJob(t, b.queue, b.p.WorkspaceID, id)
		if jobs.StateOf(j) != jobs.StateCompleted || j.Name != name || j.Result == nil || !strings.Contains(*j.Result, `"text":"echo: queued"`) {
			t.Fatalf("job %q: %+v", name, j)
		}
	}
}

// A job queued with a custom jobType on one host runs on another host that
// has never seen the name (or after a restart): the text handler is the
// aiQueue's fallback, not registered per name.
func TestACustomJobTypeRunsOnAHostThatNeverSawIt(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := context.Background()
	ws, _, err := s.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	// The host that queued it never runs it.
	first, err := jobs.New(jobs.Options{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	firstSvc := newService(t, generate.Deps{Models: &router{}, Queue: first, Store: s})
	id, err := firstSvc.QueueText(ctx, auth.Principal{WorkspaceID: ws.ID, Plan: "business"}, generate.TextInput{Model: "gpt-4o", Text: "later", JobType: "digest.daily"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(jobs.Options{Store: s, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	newService(t, generate.Deps{Models: &router{}, Queue: q, Store: s})
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	if j := waitJob(t, q, ws.ID, id); jobs.StateOf(j) != jobs.StateCompleted || j.Name != "digest.daily" {
		t.Fatalf("job: %+v", j)
	}
	// A name another area's jobs use is refused rather than run by that
	// area's handler.
	first.Register("seo_site_report", jobs.HandlerFunc(func(context.Context, *jobs.Job) (any, error) { return nil, nil }), jobs.HandlerOptions{})
	_, err = firstSvc.QueueText(ctx, auth.Principal{WorkspaceID: ws.ID, Plan: "business"}, generate.TextInput{Model: "gpt-4o", Text: "x", JobType: "seo_site_report"})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("a reserved job name: %v, want invalid argument", err)
	}
}

func TestQueuedTextFailsAtOnceOnAPermanentError(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	b.router.textErrs = []error{&sdk.Error{Code: sdk.CodeInvalidArgument, Message: "prompt violates policy"}}
	id, err := b.svc.QueueText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "bad"})
	if err != nil {
		t.Fatal(err)
	}
	j := waitJob(t, b.queue, b.p.WorkspaceID, id)
	// The tenant sees a generic reason with the job id, not the provider's text.
	if jobs.StateOf(j) != jobs.StateFailed || j.AttemptsMade != 1 || j.FailedReason == nil || !strings.Contains(*j.FailedReason, "the provider rejected the request (job "+id+")") || strings.Contains(*j.FailedReason, "prompt violates policy") {
		t.Fatalf("job: %+v", j)
	}
}

func TestProviderErrorsMapToActionableStatuses(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	cases := []struct {
		err  error
		code connect.Code
		want string
	}{
		{&sdk.Error{Code: sdk.CodeUnconfigured, Message: "set OPENAI_API_KEY: the openai plugin has no API key"}, connect.CodeUnavailable, "its provider is not configured on this server"},
		{&sdk.Error{Code: sdk.CodeRateLimited, Message: "429", Retryable: true}, connect.CodeResourceExhausted, "rate limiting"},
		{&sdk.Error{Code: sdk.CodeUnavailable, Message: "upstream 502", Retryable: true}, connect.CodeUnavailable, "the provider failed"},
		{&sdk.Error{Code: sdk.CodeInvalidArgument, Message: "bad prompt"}, connect.CodeInvalidArgument, "the provider rejected the request"},
		{context.DeadlineExceeded, connect.CodeDeadlineExceeded, "useWorker"},
	}
	for _, c := range cases {
		b.router.textErrs = []error{c.err}
		_, _, err := b.svc.GenerateText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "x"})
		if code(err) != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v (%v), want %v mentioning %q", c.err, err, code(err), c.code, c.want)
		}
	}
}

func TestImagesUsePresetsAndSpendOneCreditEachOnlyOnSuccess(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, "free") // 2 credits a month
		ctx := context.Background()
		month := time.Now().UTC().Format("2006-01")

		b.router.imageErr = &sdk.Error{Code: sdk.CodeUnavailable, Message: "boom", Retryable: true}
		if _, err := b.svc.GenerateImage(ctx, b.p, generate.ImageInput{Text: "a cat"}); code(err) != connect.CodeUnavailable {
			t.Fatalf("provider failure: %v", err)
		}
		b.router.imageErr = nil
		b.router.image = []byte("<html>not an image</html>")
		if _, err := b.svc.GenerateImage(ctx, b.p, generate.ImageInput{Text: "a cat"}); code(err) != connect.CodeUnavailable {
			t.Fatalf("non-image bytes: %v", err)
		}
		b.router.image = nil
		if used, _ := creditstore.New(s).CreditsUsed(ctx, b.p.WorkspaceID, month); used != 0 {
			t.Fatalf("failed requests spent %d credits", used)
		}

		img, err := b.svc.GenerateImage(ctx, b.p, generate.ImageInput{Text: "a cat", Purpose: "linkedin"})
		if err != nil {
			t.Fatal(err)
		}
		if img.Model != "gpt-image-1" || img.Size != "1536x1024" || img.Quality != "high" || img.Purpose != "linkedin" || !strings.HasPrefix(img.URL, "http://herald.test/v1/blobs/") || !strings.HasSuffix(img.URL, ".png") {
			t.Fatalf("image: %+v", img)
		}
		img, err = b.svc.GenerateImage(ctx, b.p, generate.ImageInput{Text: "a dog", Purpose: "square", Quality: "low", Model: "gpt-image-2"})
		if err != nil || img.Size != "1024x1024" || img.Quality != "low" || img.Model != "gpt-image-2" {
			t.Fatalf("explicit quality wins over the preset: %+v %v", img, err)
		}
		_, err = b.svc.GenerateImage(ctx, b.p, generate.ImageInput{Text: "a third"})
		if code(err) != connect.CodePermissionDenied || !strings.Contains(err.Error(), "credit") {
			t.Fatalf("over the allowance: %v", err)
		}
		if used, _ := creditstore.New(s).CreditsUsed(ctx, b.p.WorkspaceID, month); used != 2 {
			t.Fatalf("credits used: %d", used)
		}
	})
}

func TestBadImageRequestsListWhatIsAllowed(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	cases := []struct {
		in   generate.ImageInput
		want string
	}{
		{generate.ImageInput{}, "text is required"},
		{generate.ImageInput{Text: "x", Model: "dall-e-3"}, "model must be one of gpt-image-1, gpt-image-1-mini, gpt-image-1.5, gpt-image-2"},
		{generate.ImageInput{Text: "x", Model: "stability-ultra"}, "model must be one of"},
		{generate.ImageInput{Text: "x", Size: "512x512"}, "size must be one of 1024x1024, 1536x1024, 1024x1536, auto"},
		{generate.ImageInput{Text: "x", Quality: "ultra"}, "quality must be one of low, medium, high, auto"},
		{generate.ImageInput{Text: "x", Purpose: "banner"}, "purpose must be one of blog, linkedin, portrait, square"},
	}
	for _, c := range cases {
		_, err := b.svc.GenerateImage(context.Background(), b.p, c.in)
		if code(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want 400 mentioning %q", c.in, err, c.want)
		}
	}
	var ce *connect.Error
	_, err := b.svc.GenerateImage(context.Background(), b.p, generate.ImageInput{Text: "x", Size: "1x1"})
	if !errors.As(err, &ce) {
		t.Fatalf("not an API error: %v", err)
	}
}

// jobType without useWorker names no job and is ignored, even when it
// would not be a valid job name.
func TestJobTypeWithoutUseWorkerIsIgnored(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	h := generate.NewHandler(b.svc)
	ctx := auth.WithPrincipal(context.Background(), b.p)
	res, err := h.GenerateText(ctx, connect.NewRequest(&apiv1.GenerateTextRequest{Model: "gpt-4o", Text: "inline", JobType: "not a job name"}))
	if err != nil {
		t.Fatalf("inline with jobType: %v", err)
	}
	if d := res.Msg.GetData(); d == nil || d.Text != "echo: inline" {
		t.Fatalf("inline answer = %v", res.Msg)
	}
}

// SPEC types purpose as a string: an image made without a preset answers
// "custom", never null, over the API.
func TestAnImageWithoutAPresetAnswersPurposeCustom(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	h := generate.NewHandler(b.svc)
	ctx := auth.WithPrincipal(context.Background(), b.p)
	for _, purpose := range []string{"", "custom"} {
		res, err := h.GenerateImage(ctx, connect.NewRequest(&apiv1.GenerateImageRequest{Text: "a cat", Purpose: purpose}))
		if err != nil {
			t.Fatalf("purpose %q: %v", purpose, err)
		}
		if d := res.Msg.GetData(); d.Purpose != "custom" || d.Size != "1024x1024" || d.Quality != "high" {
			t.Fatalf("purpose %q: answer %v, want purpose custom with the defaults", purpose, d)
		}
	}
}

// The provider's Retry-After is honoured: the retry comes no sooner, even
// though the queue's own backoff after a first attempt is at most 1 s.
func TestQueuedTextWaitsForTheProvidersRetryAfter(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), "business")
	const retryAfter = 1500 * time.Millisecond
	b.router.textErrs = []error{&sdk.Error{Code: sdk.CodeRateLimited, Message: "slow down", Retryable: true, RetryAfter: retryAfter}}
	id, err := b.svc.QueueText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "later"})
	if err != nil {
		t.Fatal(err)
	}
	if j := waitJob(t, b.queue, b.p.WorkspaceID, id); jobs.StateOf(j) != jobs.StateCompleted || j.AttemptsMade != 2 {
		t.Fatalf("job: %+v", j)
	}
	b.router.mu.Lock()
	defer b.router.mu.Unlock()
	if len(b.router.calls) != 2 {
		t.Fatalf("%d provider calls, want 2", len(b.router.calls))
	}
	// Run times are stored in whole milliseconds: allow that much. Ignoring
	// Retry-After retries within the queue's own backoff (≤ 1 s).
	if gap := b.router.calls[1].Sub(b.router.calls[0]); gap < retryAfter-5*time.Millisecond {
		t.Fatalf("retried %s after the rate limit, want at least its Retry-After %s", gap, retryAfter)
	}
}
