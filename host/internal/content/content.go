// Package content scores and improves content and prepares blog posts with
// generated images. Scoring is package seo (no model); improvement calls a
// text model through package generate, re-scores and validates the result;
// blog processing runs on contentQueue, generating images through the image
// route's path (stored in the blob store, paid with AI credits). It
// implements herald.api.v1.ContentService.
package content

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

// Generator is what content needs from package generate: text in a brand
// voice, stored images paid with credits, and voice lookup.
type Generator interface {
	GenerateText(ctx context.Context, p auth.Principal, in generate.TextInput) (sdk.TextResponse, *generate.VoiceRef, error)
	GenerateImage(ctx context.Context, p auth.Principal, in generate.ImageInput) (generate.Image, error)
	ResolveVoice(ctx context.Context, p auth.Principal, id string) (*voice.Voice, error)
	DefaultTextModel() string
}

// Credits reserves and refunds monthly AI credits (package store).
type Credits interface {
	ReserveCredits(ctx context.Context, workspaceID, month string, n, limit int) (int, bool, error)
	RefundCredits(ctx context.Context, workspaceID, month string, n int) error
	CreditsUsed(ctx context.Context, workspaceID, month string) (int, error)
}

// Job names on contentQueue.
const (
	JobImproveSimple    = "improve_content_simple"
	JobImproveValidated = "improve_content_with_validation"
	JobBlogPost         = "blog_post_with_images"
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
	Log       hclog.Logger
	Generator Generator
	Credits   Credits
	Queue     *jobs.Queue
	// Plans give each plan's MonthlyAICredits, read at request time;
	// nil: config.DefaultPlans().
	Plans *plans.Table
	// Now is the clock (credits are counted per UTC month); default time.Now.
	Now func() time.Time
}

// Service is the content domain logic.
type Service struct {
	log   hclog.Logger
	gen   Generator
	cred  Credits
	queue *jobs.Queue
	plans *plans.Table
	now   func() time.Time
}

// New returns a Service and registers its job handlers on the queue.
func New(d Deps) (*Service, error) {
	s := &Service{log: d.Log, gen: d.Generator, cred: d.Credits, queue: d.Queue, plans: d.Plans, now: d.Now}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	s.log = s.log.Named("content")
	if s.now == nil {
		s.now = time.Now
	}
	if s.plans == nil {
		s.plans = plans.New(nil)
	}
	// One attempt each: the credit is reserved when the job is queued and
	// given back when it fails, so a retry would have to pay again.
	opts := jobs.HandlerOptions{MaxAttempts: 1, Timeout: 10 * time.Minute}
	s.queue.Register(JobImproveSimple, paidJob(s, s.runSimple), opts)
	s.queue.Register(JobImproveValidated, paidJob(s, s.runValidated), opts)
	s.queue.Register(JobBlogPost, jobs.HandlerFunc(s.blogJob), jobs.HandlerOptions{MaxAttempts: 1, Timeout: 20 * time.Minute})
	return s, nil
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

func (s *Service) month() string { return s.now().UTC().Format("2006-01") }

// reserve takes one AI credit for an improvement; the returned function
// gives it back (used when the improvement fails).
func (s *Service) reserve(ctx context.Context, p auth.Principal) (refund func(), month string, err error) {
	plan, _ := s.plans.Get(p.Plan)
	month = s.month()
	_, ok, err := s.cred.ReserveCredits(ctx, p.WorkspaceID, month, 1, plan.MonthlyAICredits)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", apierr.Forbidden("monthly AI credit limit reached: the %s plan allows %d credits a month", p.Plan, plan.MonthlyAICredits)
	}
	return func() { s.refund(ctx, p.WorkspaceID, month) }, month, nil
}

func (s *Service) refund(ctx context.Context, workspace, month string) {
	if err := s.cred.RefundCredits(context.WithoutCancel(ctx), workspace, month, 1); err != nil {
		s.log.Error("refund AI credit", "workspace", workspace, "error", err)
	}
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
