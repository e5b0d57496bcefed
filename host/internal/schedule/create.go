package schedule

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
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
	switch in.Status {
	case "":
		in.Status = store.SchedulePending
	case store.SchedulePending, store.ScheduleDraft:
	default:
		return apierr.Invalid("status must be pending or draft, got %q", in.Status)
	}
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
	} else if in.Status == store.SchedulePending {
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
// proposing it.
func (s *Service) Check(in NewSchedule) error { return in.validate(s.destinationNames()) }

// Create validates and stores a schedule; a pending one gets its publish
// job in the same transaction.
func (s *Service) Create(ctx context.Context, p auth.Principal, in NewSchedule) (_ Schedule, err error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return Schedule{}, err
	}
	if err := in.validate(s.destinationNames()); err != nil {
		return Schedule{}, err
	}
	if err := s.checkTargets(ctx, p.WorkspaceID, in.Targets); err != nil {
		return Schedule{}, err
	}
	if err := s.quota.Room(ctx, store.CountSchedules, p.WorkspaceID); err != nil {
		return Schedule{}, err
	}
	var when *int64
	if in.when != nil {
		if err := checkWhen(*in.when, time.UnixMilli(s.store.Now())); err != nil {
			return Schedule{}, err
		}
		ms := in.when.UnixMilli()
		when = &ms
	}
	creds, err := s.creds.ExportCredentials(ctx, destination.Export{Workspace: p.WorkspaceID, Destination: in.ExportTo, WebhookID: in.WebhookID})
	if err != nil {
		return Schedule{}, err
	}
	content := in.content()
	meta := map[string]any{}
	if err := imageMeta(in.Image, meta); err != nil {
		return Schedule{}, err
	}
	img, err := s.hostImage(ctx, p.WorkspaceID, in.Image, content)
	if err != nil {
		return Schedule{}, err
	}
	// A create refused after its image was stored leaves nothing behind.
	defer func() {
		if err != nil && img.Key != nil {
			s.dropImage(context.WithoutCancel(ctx), *img.Key)
		}
	}()
	if img.URL != "" {
		content["imageUrl"] = img.URL
		maps.Copy(content, meta)
	}
	if err := refuseRawImages(content); err != nil {
		return Schedule{}, err
	}
	if err := s.validateWith(ctx, in.ExportTo, in.Status, content, creds); err != nil {
		return Schedule{}, err
	}
	body, err := marshalContent(content)
	if err != nil {
		return Schedule{}, err
	}
	sc := store.Schedule{
		WorkspaceID: p.WorkspaceID, UserID: p.UserID, ExportTo: in.ExportTo, Status: in.Status,
		WhenToExport: when, WebhookID: in.WebhookID, Content: body, ImageKey: img.Key,
	}
	if err := s.insert(ctx, &sc, in.Targets); err != nil {
		return Schedule{}, err
	}
	out := fromStore(sc)
	out.Targets = in.Targets
	return out, nil
}

// insert stores sc and, when it is pending, its publish job, in one
// transaction.
func (s *Service) insert(ctx context.Context, sc *store.Schedule, targets Targets) error {
	err := s.store.Tx(ctx, func(q store.Querier) error {
		sc.ID, sc.JobID = store.NewID(), nil
		if sc.Status == store.SchedulePending {
			jobID, err := s.queue.EnqueueTx(ctx, q, publishJob(sc.WorkspaceID, sc.ID, *sc.WhenToExport))
			if err != nil {
				return fmt.Errorf("enqueue publish job: %w", err)
			}
			sc.JobID = &jobID
		}
		if err := s.store.InsertSchedule(ctx, q, sc, s.quota.Cap(store.CountSchedules)); err != nil {
			return err
		}
		return s.insertTargets(ctx, q, sc, targets)
	})
	if err != nil {
		return quota.Err(err)
	}
	if sc.Status == store.SchedulePending {
		s.queue.Wake(jobs.ContentQueue)
	}
	return nil
}

// validateWith runs the destination plugin's Validate. Missing or bad
// contentToExport keys are a 400 naming them; credential problems are a 400
// telling how to connect, except for drafts, which may be written before
// the destination is connected.
func (s *Service) validateWith(ctx context.Context, dest, status string, content map[string]any, creds map[string]string) error {
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
	if len(credMsgs) > 0 && status == store.SchedulePending {
		how := "connect it with PUT /v1/destinations/" + dest + "/connection"
		if dest == WebhookDestination {
			how = "check the saved webhook"
		}
		return apierr.Invalid("%s is not connected for this workspace (%s): %s", dest, how, strings.Join(credMsgs, "; "))
	}
	return nil
}
