package content

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/sdk"
)

// SimpleInput is an improve-content-simple request.
type SimpleInput struct {
	Content       string `json:"content"`
	ImprovePrompt string `json:"improvePrompt"`
	MetricType    string `json:"metricType,omitempty"`
	Model         string `json:"model"`
	BrandVoiceID  string `json:"brandVoiceId,omitempty"`
}

func checkContent(content string) error {
	if strings.TrimSpace(content) == "" {
		return apierr.Invalid("content is required")
	}
	if n := utf8.RuneCountInString(content); n > MaxContentChars {
		return apierr.Invalid("content is %d characters; the limit is %d", n, MaxContentChars)
	}
	return nil
}

func checkPrompt(prompt string, required bool) error {
	if required && strings.TrimSpace(prompt) == "" {
		return apierr.Invalid("improvePrompt is required")
	}
	if n := utf8.RuneCountInString(prompt); n > MaxPromptChars {
		return apierr.Invalid("improvePrompt is %d characters; the limit is %d", n, MaxPromptChars)
	}
	return nil
}

func (in *SimpleInput) validate() error {
	if err := checkContent(in.Content); err != nil {
		return err
	}
	if err := checkPrompt(in.ImprovePrompt, true); err != nil {
		return err
	}
	if utf8.RuneCountInString(in.MetricType) > 100 {
		return apierr.Invalid("metricType is longer than 100 characters")
	}
	return nil
}

// Improved is the result of a simple improvement (also a job's result).
type Improved struct {
	Content    string               `json:"content"`
	Model      string               `json:"model"`
	Usage      generate.UsageResult `json:"usage"`
	MetricType string               `json:"metricType,omitempty"`
	BrandVoice *generate.VoiceRef   `json:"brandVoice"`
}

// editorSystem is the editor's standing instructions; the brand voice, when
// asked for, comes before it.
const editorSystem = `You are a careful editor. Rewrite the content the user gives you, following their instructions.
Keep its format: Markdown stays Markdown, HTML stays HTML, plain text stays plain text.
Keep every link and heading. Do not add facts, numbers, names or quotes that are not in the original.
Answer with the improved content only: no preface, no explanation, no code fences.`

// improve runs one model call and strips what models wrap content in.
func (s *Service) improve(ctx context.Context, p auth.Principal, model, voiceID, user string) (string, sdk.TextResponse, *generate.VoiceRef, error) {
	res, voice, err := s.gen.GenerateText(ctx, p, generate.TextInput{
		Model: model, Text: user, BrandVoiceID: voiceID,
		Options: map[string]any{"system": editorSystem},
	})
	if err != nil {
		return "", res, nil, err
	}
	out := stripFences(res.Text)
	if strings.TrimSpace(out) == "" {
		return "", res, nil, apierr.Unavailable("the model returned no content")
	}
	return out, res, voice, nil
}

// stripFences removes a ``` fence around the whole answer.
func stripFences(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	t = strings.TrimSuffix(t, "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	} else {
		t = strings.TrimPrefix(t, "```")
	}
	return strings.TrimSpace(t)
}

func simplePrompt(in SimpleInput) string {
	var b strings.Builder
	b.WriteString("Instructions:\n")
	b.WriteString(in.ImprovePrompt)
	if in.MetricType != "" {
		fmt.Fprintf(&b, "\n(The improvement targets this metric: %s.)", in.MetricType)
	}
	b.WriteString("\n\nContent:\n")
	b.WriteString(in.Content)
	return b.String()
}

func usage(u sdk.Usage) generate.UsageResult { return generate.UsageResult(u) }

// ImproveSimple improves content inline for one AI credit.
func (s *Service) ImproveSimple(ctx context.Context, p auth.Principal, in SimpleInput) (Improved, error) {
	if err := s.prepare(in.validate, &in.Model); err != nil {
		return Improved{}, err
	}
	return paid(ctx, s, p, in, s.runSimple)
}

// prepare checks an improvement request and fills its model: the one
// asked for, or the default text model.
func (s *Service) prepare(validate func() error, model *string) error {
	if err := validate(); err != nil {
		return err
	}
	m, err := s.model(*model)
	if err != nil {
		return err
	}
	*model = m
	return nil
}

// paid runs an improvement inline for one AI credit, given back when the
// improvement fails.
func paid[In, Out any](ctx context.Context, s *Service, p auth.Principal, in In, run func(context.Context, auth.Principal, In) (Out, error)) (Out, error) {
	refund, _, err := s.reserve(ctx, p)
	if err != nil {
		var zero Out
		return zero, err
	}
	out, err := run(ctx, p, in)
	if err != nil {
		refund()
	}
	return out, err
}

func (s *Service) runSimple(ctx context.Context, p auth.Principal, in SimpleInput) (Improved, error) {
	text, res, voice, err := s.improve(ctx, p, in.Model, in.BrandVoiceID, simplePrompt(in))
	if err != nil {
		return Improved{}, err
	}
	return Improved{Content: text, Model: res.Model, Usage: usage(res.Usage), MetricType: in.MetricType, BrandVoice: voice}, nil
}

// queued is the stored input of an improvement job.
type queued[T any] struct {
	Principal principal `json:"principal"`
	Month     string    `json:"creditMonth"`
	Input     T         `json:"input"`
}

// enqueue checks the voice, reserves the credit and queues the job.
func (s *Service) enqueue(ctx context.Context, p auth.Principal, name, voiceID string, input any) (string, error) {
	if _, err := s.gen.ResolveVoice(ctx, p, voiceID); err != nil {
		return "", err
	}
	refund, month, err := s.reserve(ctx, p)
	if err != nil {
		return "", err
	}
	id, err := s.queue.Enqueue(ctx, jobs.NewJob{Workspace: p.WorkspaceID, Queue: jobs.ContentQueue, Name: name,
		Data: queued[any]{Principal: toStored(p), Month: month, Input: input}})
	if err != nil {
		refund()
		return "", fmt.Errorf("queue %s: %w", name, err)
	}
	return id, nil
}

// QueueImproveSimple queues an improvement on contentQueue.
func (s *Service) QueueImproveSimple(ctx context.Context, p auth.Principal, in SimpleInput) (string, error) {
	if err := s.prepare(in.validate, &in.Model); err != nil {
		return "", err
	}
	return s.enqueue(ctx, p, JobImproveSimple, in.BrandVoiceID, in)
}

// RunImproveSimple runs a JobImproveSimple job.
func (s *Service) RunImproveSimple(ctx context.Context, job *jobs.Job) (any, error) {
	return runPaid(ctx, s, job, s.runSimple)
}

// runPaid runs a queued improvement whose credit was reserved when it was
// queued, and gives the credit back when the work fails (these jobs run
// once, so a credit is never spent twice).
func runPaid[In, Out any](ctx context.Context, s *Service, job *jobs.Job, run func(context.Context, auth.Principal, In) (Out, error)) (any, error) {
	var q queued[In]
	if err := job.Decode(&q); err != nil {
		return nil, err
	}
	out, err := run(ctx, q.Principal.auth(), q.Input)
	if err != nil {
		s.quota.Refund(context.WithoutCancel(ctx), q.Principal.Workspace, q.Month, 1)
		return nil, jobs.NoRetry(err)
	}
	return out, nil
}
