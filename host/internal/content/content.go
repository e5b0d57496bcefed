package content

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/sdk"
)

// VoiceRef (the brand voice a text was written in) and Usage (its tokens)
// are generate's: content's improvements are generations.
type (
	VoiceRef = generate.VoiceRef
	Usage    = generate.UsageResult
)

// Generator is what content needs from package generate: text in a brand
// voice, stored images paid with credits, and voice lookup.
type Generator interface {
	GenerateText(ctx context.Context, p auth.Principal, in generate.TextInput) (sdk.TextResponse, *generate.VoiceRef, error)
	GenerateImage(ctx context.Context, p auth.Principal, in generate.ImageInput) (generate.Image, error)
	ResolveVoice(ctx context.Context, p auth.Principal, id string) (*generate.Voice, error)
	DefaultTextModel() string
}

// Queue is what content needs of the job queue (*jobs.Queue).
type Queue interface {
	Enqueue(ctx context.Context, j jobs.NewJob) (string, error)
}

// Job names on contentQueue.
const (
	JobImproveSimple    = "improve_content_simple"
	JobImproveValidated = "improve_content_with_validation"
	JobBlogPost         = "blog_post_with_images"
)

// Options of the content jobs (host/jobs.go). One attempt each: an
// improvement's credit is reserved when it is queued and given back when
// it fails, and a blog post's images are paid as they are made, so a retry
// would have to pay again.
var (
	ImproveJobOptions = jobs.HandlerOptions{MaxAttempts: 1, Timeout: 10 * time.Minute}
	BlogJobOptions    = jobs.HandlerOptions{MaxAttempts: 1, Timeout: 20 * time.Minute}
)

// Limits of content requests.
const (
	MaxContentChars = 100_000
	MaxTitleChars   = 300
	MaxKeywords     = 20
	MaxPromptChars  = 4_000
)

// Deps is what the service needs.
type Deps struct {
	// Logger: nil is hclog.NewNullLogger().
	Logger hclog.Logger
	// Generator, Queue and Quota are required.
	Generator Generator
	Queue     Queue
	// Quota pays improvements and blog images with AI credits.
	Quota *quota.Checker
}

// Service is the content domain logic.
type Service struct {
	log   hclog.Logger
	gen   Generator
	queue Queue
	quota *quota.Checker
}

// New returns a Service. Its jobs (JobImproveSimple, JobImproveValidated,
// JobBlogPost) run through RunImproveSimple, RunImproveValidated and
// RunBlogPost, mounted by the host's job table.
func New(d Deps) (*Service, error) {
	if err := deps.Check("content",
		deps.Need("Generator", d.Generator == nil),
		deps.Need("Queue", d.Queue == nil),
		deps.Need("Quota", d.Quota == nil),
	); err != nil {
		return nil, err
	}
	log := deps.Logger(d.Logger, "content")
	return &Service{log: log, gen: d.Generator, queue: d.Queue, quota: d.Quota.WithLogger(log)}, nil
}

// principal is the caller as stored in a job, so the job acts for them.
type principal struct {
	Workspace string `json:"workspace"`
	User      string `json:"user"`
	Plan      string `json:"plan"`
}

func toStored(p auth.Principal) principal {
	return principal{Workspace: p.WorkspaceID, User: p.UserID, Plan: p.Plan}
}

func (p principal) auth() auth.Principal {
	return auth.Principal{WorkspaceID: p.Workspace, UserID: p.User, Plan: p.Plan, Via: auth.ViaAPIKey}
}

// reserve takes one AI credit for an improvement and returns the month it
// is counted in (a queued job keeps it, to give the credit back there);
// refund gives it back (used when the improvement fails).
func (s *Service) reserve(ctx context.Context, p auth.Principal) (refund func(), month string, err error) {
	month, refund, err = s.quota.ReserveMonth(ctx, p, 1)
	return refund, month, err
}

// model returns the requested model, or the default text model.
func (s *Service) model(m string) (string, error) {
	if m != "" {
		return m, nil
	}
	if d := s.gen.DefaultTextModel(); d != "" {
		return d, nil
	}
	return "", apierr.Invalid("model is required: no default text model is configured")
}
