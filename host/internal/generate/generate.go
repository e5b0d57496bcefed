package generate

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/agentstore"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

// Models is what generation needs from the plugin manager's model router.
type Models interface {
	// Models lists the configured model names and aliases.
	Models() []string
	GenerateText(ctx context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error)
	GenerateImage(ctx context.Context, model string, req sdk.ImageRequest) (sdk.ImageResponse, error)
}

// Limits of generation requests.
const (
	MaxPromptChars      = 100_000
	MaxImagePromptChars = 32_000
	// inlineTimeout bounds an inline text run; longer work belongs on the queue.
	inlineTimeout = 2 * time.Minute
)

// DefaultTextJob is the job name of queued text generation (SPEC).
const DefaultTextJob = "ai_tool_content"

// TextJobTypes are the job names registered at start. A queued text
// generation may carry any name jobTypePattern accepts (SPEC: "Job name
// when queuing", no list); every name runs the text handler, because the
// route, not the name, says what the job does.
var TextJobTypes = []string{DefaultTextJob, "blog_post", "social_post", "email", "ad_copy", "product_description", "seo_meta"}

// jobTypePattern is what a jobType may be: 1 to 64 letters, digits, "_",
// ".", ":" or "-".
var jobTypePattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// Queue is what generation needs of the job queue (*jobs.Queue).
type Queue interface {
	Enqueue(ctx context.Context, j jobs.NewJob) (string, error)
	// Registered reports whether a job name has a handler of its own.
	Registered(name string) bool
}

// Voices finds a brand voice the caller may use (package voice's Service):
// a team voice of the caller's workspace or the caller's own personal
// voice; anything else is a 404 apierr.
type Voices interface {
	Get(ctx context.Context, p auth.Principal, id string) (voice.Voice, error)
}

// TextJobOptions are the options of the text jobs (host/jobs.go): the
// names of TextJobTypes and the aiQueue fallback.
var TextJobOptions = jobs.HandlerOptions{MaxAttempts: 3, Timeout: 5 * time.Minute}

// Deps is what the generation service needs.
type Deps struct {
	// Logger: nil is hclog.NewNullLogger().
	Logger hclog.Logger
	// Models, Store, Queue and Quota are required.
	Models Models
	Store  *store.Store
	Queue  Queue
	// Quota pays images with AI credits.
	Quota *quota.Checker
	// Blobs stores generated images; without it the image route answers 503.
	Blobs blob.Store
	// Voices lets requests name a brandVoiceId (package voice's Service);
	// without it, a request that names one is answered 503.
	Voices Voices
	// Tuned routes the model name ft:<workspace name> of a workspace to its
	// newest fine-tuned model (inline and queued text); nil: not routed.
	Tuned *finetune.Resolver
	// Secrets (provider API keys, tokens) are redacted from the operator's
	// log of provider failures; values shorter than 6 characters are
	// ignored so that redaction does not shred ordinary words.
	Secrets []string
}

// Service is the generation domain logic.
type Service struct {
	log     hclog.Logger
	models  Models
	queue   Queue
	store   *store.Store
	quota   *quota.Checker
	blobs   blob.Store
	voices  Voices
	tuned   *finetune.Resolver
	secrets atomic.Pointer[[]string] // longest first; RedactAlso adds to it
}

// New returns a Service. Its text jobs (TextJobTypes, and every aiQueue
// job without a handler of its own: a client's jobType, which any host
// runs without having seen it before) run through RunText, mounted by the
// host's job table.
func New(d Deps) (*Service, error) {
	if err := deps.Check("generate",
		deps.Need("Models", d.Models == nil),
		deps.Need("Store", d.Store == nil),
		deps.Need("Queue", d.Queue == nil),
		deps.Need("Quota", d.Quota == nil),
	); err != nil {
		return nil, err
	}
	log := deps.Logger(d.Logger, "generate")
	s := &Service{log: log, models: d.Models, queue: d.Queue, store: d.Store, quota: d.Quota.WithLogger(log), blobs: d.Blobs,
		voices: d.Voices, tuned: d.Tuned}
	s.RedactAlso(d.Secrets)
	return s, nil
}

// TextInput is a text generation request.
type TextInput struct {
	Model, Text, JobType string
	Options              map[string]any
	// BrandVoiceID names a voice to write in (optional).
	BrandVoiceID string
}

// textJobData is the stored input of a queued text job (SPEC: the job's data).
type textJobData struct {
	Model   string         `json:"model"`
	Text    string         `json:"text"`
	Options map[string]any `json:"options,omitempty"`
	// BrandVoice is the voice whose prompt is in Options["system"].
	BrandVoice *VoiceRef `json:"brandVoice,omitempty"`
}

func (s *Service) checkModel(model string) error {
	if strings.TrimSpace(model) == "" {
		return apierr.Invalid("model is required (configured: %s)", strings.Join(s.sortedModels(), ", "))
	}
	if !slices.Contains(s.models.Models(), model) {
		return apierr.Invalid("unknown model %q (configured: %s)", model, strings.Join(s.sortedModels(), ", "))
	}
	return nil
}

func (s *Service) sortedModels() []string {
	m := slices.Clone(s.models.Models())
	slices.Sort(m)
	return m
}

// isImageModel reports whether model makes images, not text.
func isImageModel(model string) bool {
	return slices.Contains(ImageModels, model) || strings.Contains(model, "image")
}

// textModels are the configured models that write text, sorted.
func (s *Service) textModels() []string {
	var out []string
	for _, m := range s.sortedModels() {
		if !isImageModel(m) {
			out = append(out, m)
		}
	}
	return out
}

// checkTextModel is checkModel for text routes: an image model is named as
// such (not sent to chat completions) and the lists name text models only.
func (s *Service) checkTextModel(model string) error {
	configured := strings.Join(s.textModels(), ", ")
	switch {
	case strings.TrimSpace(model) == "":
		return apierr.Invalid("model is required (text models: %s)", configured)
	case isImageModel(model):
		return apierr.Invalid("%s is an image model: use POST /v1/ai/generate/image, or a text model (%s)", model, configured)
	case !slices.Contains(s.models.Models(), model):
		return apierr.Invalid("unknown model %q (text models: %s)", model, configured)
	}
	return nil
}

// checkText checks the model against the workspace's fine-tuned model and
// the configured routes, then the request itself.
func (s *Service) checkText(ctx context.Context, workspaceID string, in TextInput) error {
	if _, tuned, err := s.tuned.Resolve(ctx, workspaceID, in.Model); err != nil {
		return err
	} else if !tuned {
		if err := s.checkTextModel(in.Model); err != nil {
			return err
		}
	}
	return in.validate()
}

// validate checks the prompt and the options (the model is checked
// against the configuration by the service).
func (in TextInput) validate() error {
	if strings.TrimSpace(in.Text) == "" {
		return apierr.Invalid("text is required")
	}
	if n := utf8.RuneCountInString(in.Text); n > MaxPromptChars {
		return apierr.Invalid("text is %d characters; the limit is %d", n, MaxPromptChars)
	}
	_, err := textRequest(in.Model, in.Text, in.Options)
	return err
}

// jobName is the queued job's name: JobType, else DefaultTextJob.
func (in TextInput) jobName() (string, error) {
	name := in.JobType
	if name == "" {
		name = DefaultTextJob
	}
	if !jobTypePattern.MatchString(name) {
		return "", apierr.Invalid("jobType must be 1 to 64 letters, digits, _, ., : or -; got %q", name)
	}
	return name, nil
}

// textRequest builds the provider request; options system, maxOutputTokens
// and temperature are understood, the rest pass through.
func textRequest(model, text string, options map[string]any) (sdk.TextRequest, error) {
	req := sdk.TextRequest{Model: model, Prompt: text}
	rest := map[string]any{}
	for k, v := range options {
		switch k {
		case "system":
			str, ok := v.(string)
			if !ok {
				return req, apierr.Invalid("options.system must be a string")
			}
			req.System = str
		case "maxOutputTokens":
			n, ok := v.(float64)
			if !ok || n < 1 || n != float64(int64(n)) {
				return req, apierr.Invalid("options.maxOutputTokens must be a positive integer")
			}
			req.MaxOutputTokens = int64(n)
		case "temperature":
			f, ok := v.(float64)
			if !ok || f < 0 || f > 2 {
				return req, apierr.Invalid("options.temperature must be a number from 0 to 2")
			}
			req.Temperature = &f
		default:
			rest[k] = v
		}
	}
	if len(rest) > 0 {
		req.Options = rest
	}
	return req, nil
}

// GenerateText runs a prompt inline and returns the completion and the
// brand voice it was written in (nil when none was asked for).
func (s *Service) GenerateText(ctx context.Context, p auth.Principal, in TextInput) (sdk.TextResponse, *VoiceRef, error) {
	if err := s.checkText(ctx, p.WorkspaceID, in); err != nil {
		return sdk.TextResponse{}, nil, err
	}
	voice, err := s.applyVoice(ctx, p, &in)
	if err != nil {
		return sdk.TextResponse{}, nil, err
	}
	req, _ := textRequest(in.Model, in.Text, in.Options)
	ctx, cancel := context.WithTimeout(ctx, inlineTimeout)
	defer cancel()
	res, err := s.generateText(ctx, p.WorkspaceID, in.Model, req)
	if err != nil {
		return sdk.TextResponse{}, nil, s.providerError(ctx, err)
	}
	return res, voice, nil
}

// Generated is an inline generation of the text route.
type Generated struct {
	sdk.TextResponse
	// GenerationID names the generation for feedback.
	GenerationID string
	// Voice is the brand voice written in, nil when none was asked for.
	Voice *VoiceRef
}

// GenerateInline runs a prompt inline (GenerateText) and records the
// generation so that it can be rated (POST /v1/ai/generate/feedback).
func (s *Service) GenerateInline(ctx context.Context, p auth.Principal, in TextInput) (Generated, error) {
	res, voice, err := s.GenerateText(ctx, p, in)
	if err != nil {
		return Generated{}, err
	}
	id, err := agentstore.New(s.store).RecordGeneration(ctx, p.WorkspaceID, p.UserID, in.Model)
	if err != nil {
		return Generated{}, err
	}
	return Generated{TextResponse: res, GenerationID: id, Voice: voice}, nil
}

// QueueText enqueues a prompt on aiQueue and returns the job id.
func (s *Service) QueueText(ctx context.Context, p auth.Principal, in TextInput) (string, error) {
	if err := s.checkText(ctx, p.WorkspaceID, in); err != nil {
		return "", err
	}
	name, err := in.jobName()
	if err != nil {
		return "", err
	}
	voice, err := s.applyVoice(ctx, p, &in)
	if err != nil {
		return "", err
	}
	// A name another area's jobs use would run that area's handler.
	if !slices.Contains(TextJobTypes, name) && s.queue.Registered(name) {
		return "", apierr.Invalid("jobType %q is reserved for Herald's own jobs; choose another name", name)
	}
	id, err := s.queue.Enqueue(ctx, jobs.NewJob{
		Workspace: p.WorkspaceID, Queue: jobs.AIQueue, Name: name,
		Data: textJobData{Model: in.Model, Text: in.Text, Options: in.Options, BrandVoice: voice},
	})
	if err != nil {
		return "", fmt.Errorf("queue text job: %w", err)
	}
	return id, nil
}

// TextResult is the result object of a text job.
type TextResult struct {
	Text         string      `json:"text"`
	Model        string      `json:"model"`
	FinishReason string      `json:"finishReason"`
	Usage        UsageResult `json:"usage"`
	// BrandVoice is the voice written in, or null.
	BrandVoice *VoiceRef `json:"brandVoice"`
}

// UsageResult is the token usage in a job result.
type UsageResult struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	TotalTokens  int64 `json:"totalTokens"`
}

// RunText runs a queued text generation. Provider failures that may pass
// (429, 5xx) are retried after the provider's Retry-After; others fail the
// job at once with the provider's message.
func (s *Service) RunText(ctx context.Context, job *jobs.Job) (any, error) {
	var in textJobData
	if err := job.Decode(&in); err != nil {
		return nil, err
	}
	req, err := textRequest(in.Model, in.Text, in.Options)
	if err != nil {
		return nil, jobs.NoRetry(err)
	}
	res, err := s.generateText(ctx, job.Workspace, in.Model, req)
	if err != nil {
		var se *sdk.Error
		if errors.As(err, &se) {
			// The job's error is shown to the tenant: a generic message
			// with the job id; the operator's log has the provider's text.
			msg := s.jobProviderError(job.ID, se)
			if se.Retryable && se.RetryAfter > 0 {
				return nil, jobs.RetryAfter(se.RetryAfter, msg)
			}
			if se.Retryable {
				return nil, msg // the handler's backoff applies
			}
			return nil, jobs.NoRetry(msg)
		}
		return nil, err
	}
	return TextResult{Text: res.Text, Model: res.Model, FinishReason: res.FinishReason, Usage: UsageResult(res.Usage), BrandVoice: in.BrandVoice}, nil
}

// generateText answers req with the workspace's fine-tuned model when model
// names it, else through the configured routes.
func (s *Service) generateText(ctx context.Context, workspaceID, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	t, tuned, err := s.tuned.Resolve(ctx, workspaceID, model)
	if err != nil {
		return sdk.TextResponse{}, err
	}
	if tuned {
		return s.tuned.GenerateText(ctx, t, req)
	}
	return s.models.GenerateText(ctx, model, req)
}
