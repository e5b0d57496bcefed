package schedule

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/sdk"
)

// NewSchedule is a create request (POST /v1/scheduler/create, and the
// agent's schedule_content tool).
type NewSchedule struct {
	ExportTo     string
	Content      map[string]any
	Title        *string
	Text         *string
	Body         *string
	WhenToExport string
	// Status is pending (the default) or draft.
	Status    string
	WebhookID *string
	Confirm   *bool
	Image     ImageInput
	// Targets is the tracker and prompts the post is written for (both
	// empty: none).
	Targets Targets

	// when is WhenToExport parsed by validate; nil when empty.
	when *time.Time
	// status is Status parsed by validate.
	status Status
}

// validate holds the request's own checks (no I/O): destinations are the
// configured destination names. It trims ExportTo, defaults Status and
// parses WhenToExport.
func (in *NewSchedule) validate(destinations []string) error {
	if err := in.Targets.validate(); err != nil {
		return err
	}
	if in.Confirm != nil && !*in.Confirm {
		return apierr.Invalid("confirm must be true: schedule only after the user approves")
	}
	in.ExportTo = strings.TrimSpace(in.ExportTo)
	if in.ExportTo == "" {
		return apierr.Invalid("exportTo is required: one of %s", strings.Join(destinations, ", "))
	}
	if !slices.Contains(destinations, in.ExportTo) {
		return apierr.Invalid("exportTo %q is not a configured destination (configured: %s)", in.ExportTo, strings.Join(destinations, ", "))
	}
	st, ok := ParseStatus(in.Status)
	if !ok {
		return apierr.Invalid("status must be pending or draft, got %q", in.Status)
	}
	in.status = st
	if in.Content == nil && in.Title == nil && in.Text == nil && in.Body == nil {
		return apierr.Invalid("contentToExport is required unless title, text or content is passed")
	}
	in.when = nil
	if strings.TrimSpace(in.WhenToExport) != "" {
		t, err := ParseTime(in.WhenToExport)
		if err != nil {
			return apierr.Invalid("whenToExport %q is not an ISO-8601 time such as 2030-01-02T15:04:05Z or 2030-01-02T17:04:05+02:00", in.WhenToExport)
		}
		in.when = &t
	} else if in.status == StatusPending {
		return apierr.Invalid("whenToExport is required unless status is draft")
	}
	return nil
}

// content is contentToExport with title, text and content merged in.
func (in NewSchedule) content() map[string]any {
	content := in.Content
	if content == nil {
		content = map[string]any{}
	}
	for key, v := range map[string]*string{"title": in.Title, "text": in.Text, "content": in.Body} {
		if v != nil {
			content[key] = *v
		}
	}
	return content
}

// Check runs the checks of a create request that need nothing stored (the
// same messages as Create gives): the agent checks a post with it before
// proposing it, and the confirmation runs the rest.
func (s *Service) Check(in NewSchedule) error { return in.validate(s.destinationNames()) }

// CheckFor runs Check and the checks against the caller's workspace that
// Create runs first: the targets (a tracker of the workspace and its
// prompts) and, for a webhook export, that webhookId names a saved webhook
// of the workspace. A draft runs it before it spends a credit; the plan, a
// connection's credentials and the destination's Validate run at Create.
func (s *Service) CheckFor(ctx context.Context, p auth.Principal, in NewSchedule) error {
	if err := s.Check(in); err != nil {
		return err
	}
	if err := s.checkTargets(ctx, p.WorkspaceID, in.Targets); err != nil {
		return err
	}
	if in.ExportTo != destination.WebhookDestination {
		return nil
	}
	_, err := s.creds.ExportCredentials(ctx, destination.Export{Workspace: p.WorkspaceID, Destination: in.ExportTo, WebhookID: in.WebhookID})
	return err
}

// Create validates and stores a schedule, as a post to one destination; a
// pending one gets its publish job in the same transaction.
func (s *Service) Create(ctx context.Context, p auth.Principal, in NewSchedule) (Schedule, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return Schedule{}, err
	}
	if err := in.validate(s.destinationNames()); err != nil {
		return Schedule{}, err
	}
	if err := s.checkTargets(ctx, p.WorkspaceID, in.Targets); err != nil {
		return Schedule{}, err
	}
	plan, _ := s.plans.Get(p.Plan)
	post, err := s.createPost(ctx, p, []NewSchedule{in}, in.Image, nil, plan)
	if err != nil {
		return Schedule{}, err
	}
	out := post.Schedules[0]
	out.Targets = in.Targets
	return out, nil
}

// validateWith runs the destination plugin's Validate. Missing or bad
// contentToExport keys are a 400 naming them; credential problems are a 400
// telling how to connect, except for drafts, which may be written before
// the destination is connected.
func (s *Service) validateWith(ctx context.Context, dest string, status Status, content map[string]any, creds map[string]string) error {
	problems, err := s.dests.Validate(ctx, dest, sdk.ValidateRequest{Content: content, Credentials: creds})
	if err != nil {
		return destination.PluginError(dest, "validate", err)
	}
	var keys, keyMsgs, credMsgs []string
	for _, pr := range problems {
		if strings.HasPrefix(pr.Key, "credentials.") {
			credMsgs = append(credMsgs, pr.Message)
			continue
		}
		keys = append(keys, pr.Key)
		keyMsgs = append(keyMsgs, pr.Message)
	}
	if len(keys) > 0 {
		return apierr.WithList(apierr.New(connect.CodeInvalidArgument, fmt.Sprintf("contentToExport is not valid for %s: %s", dest, strings.Join(keyMsgs, "; "))),
			"missingKeys", keys)
	}
	if len(credMsgs) > 0 && status == StatusPending {
		how := "connect it with PUT /v1/destinations/" + dest + "/connection"
		if dest == WebhookDestination {
			how = "check the saved webhook"
		}
		return apierr.Invalid("%s is not connected for this workspace (%s): %s", dest, how, strings.Join(credMsgs, "; "))
	}
	return nil
}
