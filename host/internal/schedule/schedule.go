// Package schedule is Herald's post scheduler (/v1/scheduler): it stores
// posts with their contentToExport, re-hosts their images in the blob store,
// and publishes due posts exactly once through the destination plugins with
// the credentials that package destination keeps.
//
// A pending schedule and its publish job (queue contentQueue, run at
// whenToExport) are written in one transaction, so a schedule is never
// without a job. The job handler (Publisher) moves the schedule from
// pending to publishing with a guarded update, so that only one attempt on
// any host proceeds, exports it with the schedule's id as idempotency key,
// and records published (with the external id and URL) or failed (with the
// destination's message). Retryable failures (429, 5xx, unreachable) go
// back to pending with the reason and retry with backoff or Retry-After.
// An attempt that died between sending and recording leaves the schedule in
// publishing; the next attempt takes it over and exports again with the
// same idempotency key (see Publisher for what each destination does with
// it). A reconciler gives a new job to any due schedule whose job is gone.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// PageSize is how many schedules GET /v1/scheduler returns per page.
const PageSize = 20

// WebhookDestination is the destination whose credentials come from saved
// webhooks rather than a stored connection.
const WebhookDestination = destination.WebhookDestination

// Destinations is what the scheduler needs from the plugin manager
// (*pluginhost.Manager implements it).
type Destinations interface {
	// Destinations returns the configured destination names.
	Destinations() []string
	Validate(ctx context.Context, name string, req sdk.ValidateRequest) ([]sdk.Problem, error)
	// Export publishes once; the implementation repeats it only for
	// destinations whose Info declares them Idempotent. An unknown name is
	// an error matching sdk.ErrUnknownDestination.
	Export(ctx context.Context, name string, req sdk.ExportRequest) (sdk.ExportResult, error)
}

// Queue is what the scheduler and the publisher need from the job queue
// (*jobs.Queue implements it).
type Queue interface {
	Register(name string, h jobs.Handler, opts jobs.HandlerOptions)
	EnqueueTx(ctx context.Context, tx store.Querier, j jobs.NewJob) (string, error)
	Wake(queues ...string)
}

// Credentials opens the sealed credentials of exports
// (*destination.Service implements it).
type Credentials interface {
	// ExportCredentials returns the credentials a new post to dest will
	// use, checking webhookId; its errors are API errors.
	ExportCredentials(ctx context.Context, workspace, dest string, webhookID *string) (map[string]string, error)
	// Credentials returns the credentials of an export to dest: the saved
	// webhook's for webhook, the stored connection's otherwise. Errors:
	// destination.ErrNoSecretKey, destination.ErrNoWebhook,
	// store.ErrNotFound.
	Credentials(ctx context.Context, workspace, dest string, webhookID *string) (map[string]string, error)
}

// Deps are what a Service works with.
type Deps struct {
	Store        *store.Store
	Queue        Queue
	Destinations Destinations
	Credentials  Credentials
	Blobs        blob.Store
	// Plans gives each plan's SchedulerAPIAccess, read at request time
	// (nil: the defaults).
	Plans *plans.Table
	// AllowedPrivateCIDRs are the private ranges image downloads may reach.
	AllowedPrivateCIDRs []netip.Prefix
	Logger              hclog.Logger
	// Limits caps waiting schedules per workspace and name lengths (zero:
	// config.DefaultLimits).
	Limits config.Limits
}

// Service implements the scheduler for both API faces.
type Service struct {
	store *store.Store
	queue Queue
	dests Destinations
	creds Credentials
	blobs blob.Store
	plans *plans.Table
	fetch *http.Client
	log   hclog.Logger
	quota *quota.Checker
}

// New returns the scheduler service.
func New(d Deps) (*Service, error) {
	if d.Store == nil || d.Queue == nil || d.Destinations == nil || d.Credentials == nil {
		return nil, errors.New("schedule: Store, Queue, Destinations and Credentials are required")
	}
	s := &Service{
		store: d.Store, queue: d.Queue, dests: d.Destinations, creds: d.Credentials, blobs: d.Blobs, plans: d.Plans,
		fetch: sdk.GuardedHTTPClient(30*time.Second, d.AllowedPrivateCIDRs),
		log:   d.Logger,
		quota: quota.New(d.Store, d.Limits).Follow(d.Plans), // the stored version's caps when Plans has them
	}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	if s.plans == nil {
		s.plans = plans.New(nil)
	}
	return s, nil
}

// NewSchedule is a validated create request before images are handled.
type NewSchedule struct {
	ExportTo     string
	Content      map[string]any
	Title        *string
	Text         *string
	Body         *string
	WhenToExport string
	Status       string
	WebhookID    *string
	Confirm      *bool
	Image        ImageInput
}

// Create validates and stores a schedule; a pending one gets its publish
// job in the same transaction.
func (s *Service) Create(ctx context.Context, p auth.Principal, in NewSchedule) (_ store.Schedule, err error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return store.Schedule{}, err
	}
	if in.Confirm != nil && !*in.Confirm {
		return store.Schedule{}, apierr.Invalid("confirm must be true: schedule only after the user approves")
	}
	if err := s.quota.Room(ctx, store.CountSchedules, p.WorkspaceID); err != nil {
		return store.Schedule{}, err
	}
	in.ExportTo = strings.TrimSpace(in.ExportTo)
	if in.ExportTo == "" {
		return store.Schedule{}, apierr.Invalid("exportTo is required: one of %s", strings.Join(s.destinationNames(), ", "))
	}
	if !slices.Contains(s.destinationNames(), in.ExportTo) {
		return store.Schedule{}, apierr.Invalid("exportTo %q is not a configured destination (configured: %s)", in.ExportTo, strings.Join(s.destinationNames(), ", "))
	}
	switch in.Status {
	case "":
		in.Status = store.SchedulePending
	case store.SchedulePending, store.ScheduleDraft:
	default:
		return store.Schedule{}, apierr.Invalid("status must be pending or draft, got %q", in.Status)
	}
	content := in.Content
	if content == nil {
		if in.Title == nil && in.Text == nil && in.Body == nil {
			return store.Schedule{}, apierr.Invalid("contentToExport is required unless title, text or content is passed")
		}
		content = map[string]any{}
	}
	for key, v := range map[string]*string{"title": in.Title, "text": in.Text, "content": in.Body} {
		if v != nil {
			content[key] = *v
		}
	}
	var when *int64
	if strings.TrimSpace(in.WhenToExport) != "" {
		t, err := ParseTime(in.WhenToExport)
		if err != nil {
			return store.Schedule{}, apierr.Invalid("whenToExport %q is not an ISO-8601 time such as 2030-01-02T15:04:05Z or 2030-01-02T17:04:05+02:00", in.WhenToExport)
		}
		if err := checkWhen(t, time.UnixMilli(s.store.Now())); err != nil {
			return store.Schedule{}, err
		}
		ms := t.UnixMilli()
		when = &ms
	} else if in.Status == store.SchedulePending {
		return store.Schedule{}, apierr.Invalid("whenToExport is required unless status is draft")
	}
	creds, err := s.creds.ExportCredentials(ctx, p.WorkspaceID, in.ExportTo, in.WebhookID)
	if err != nil {
		return store.Schedule{}, err
	}
	meta := map[string]any{}
	if err := imageMeta(in.Image, meta); err != nil {
		return store.Schedule{}, err
	}
	img, err := s.hostImage(ctx, p.WorkspaceID, in.Image, content)
	if err != nil {
		return store.Schedule{}, err
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
	if err := s.validate(ctx, in.ExportTo, in.Status, content, creds); err != nil {
		return store.Schedule{}, err
	}
	body, err := marshalContent(content)
	if err != nil {
		return store.Schedule{}, err
	}
	sc := store.Schedule{
		WorkspaceID: p.WorkspaceID, UserID: p.UserID, ExportTo: in.ExportTo, Status: in.Status,
		WhenToExport: when, WebhookID: in.WebhookID, Content: body, ImageKey: img.Key,
	}
	err = s.store.Tx(ctx, func(q store.Querier) error {
		sc.ID, sc.JobID = store.NewID(), nil
		if sc.Status == store.SchedulePending {
			jobID, err := s.queue.EnqueueTx(ctx, q, publishJob(sc.WorkspaceID, sc.ID, *sc.WhenToExport))
			if err != nil {
				return fmt.Errorf("enqueue publish job: %w", err)
			}
			sc.JobID = &jobID
		}
		return s.store.InsertSchedule(ctx, q, &sc, s.quota.Cap(store.CountSchedules))
	})
	if err != nil {
		return store.Schedule{}, quota.Err(err)
	}
	if sc.Status == store.SchedulePending {
		s.queue.Wake(jobs.ContentQueue)
	}
	return sc, nil
}

func (s *Service) destinationNames() []string {
	if s.dests == nil {
		return nil
	}
	return s.dests.Destinations()
}

// validate runs the destination plugin's Validate. Missing or bad
// contentToExport keys are a 400 naming them; credential problems are a 400
// telling how to connect, except for drafts, which may be written before
// the destination is connected.
func (s *Service) validate(ctx context.Context, dest, status string, content map[string]any, creds map[string]string) error {
	problems, err := s.dests.Validate(ctx, dest, sdk.ValidateRequest{Content: content, Credentials: creds})
	if err != nil {
		return s.pluginError(dest, "validate", err)
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

// pluginError turns a plugin failure at create time into an API error.
func (s *Service) pluginError(dest, op string, err error) error {
	return destination.PluginError(dest, op, err)
}

// List returns a page of the caller's workspace's schedules and the total.
func (s *Service) List(ctx context.Context, p auth.Principal, skip int) ([]store.Schedule, int, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return nil, 0, err
	}
	if skip < 0 {
		return nil, 0, apierr.Invalid("skip must be 0 or more, got %d", skip)
	}
	return s.store.ListSchedules(ctx, p.WorkspaceID, skip, PageSize)
}

// Get returns one schedule of the caller's workspace.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (store.Schedule, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return store.Schedule{}, err
	}
	sc, err := s.store.GetSchedule(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return sc, apierr.NotFound("schedule %s not found", id)
	}
	return sc, err
}

// Delete cancels a pending schedule or removes a draft (or a failed one).
// It returns the resulting status: "cancelled" or "removed". A schedule
// being published, or already published, cannot be cancelled (409).
func (s *Service) Delete(ctx context.Context, p auth.Principal, id string) (string, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return "", err
	}
	before, result, err := s.store.CancelSchedule(ctx, p.WorkspaceID, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", apierr.NotFound("schedule %s not found", id)
	case errors.Is(err, store.ErrScheduleBusy) && before.Status == store.SchedulePublished:
		return "", apierr.Conflict("schedule %s is already published; it cannot be cancelled", id)
	case errors.Is(err, store.ErrScheduleBusy):
		return "", apierr.Conflict("schedule %s is being published right now; it cannot be cancelled", id)
	case err != nil:
		return "", err
	}
	// The cancelled schedule's job stays queued and does nothing when it
	// runs: the publisher only proceeds from pending. A removed draft's
	// image goes with it; a cancelled post's is swept after the grace.
	if result == "removed" && before.ImageKey != nil {
		s.dropImage(ctx, *before.ImageKey)
	}
	return result, nil
}

// Bounds of whenToExport: a time before earliestWhen is a client mistake
// (a zero or epoch date) rather than a post to publish now, and one more than
// maxAhead ahead cannot be meant. A past time within the bounds publishes at
// once; the queue's fair claiming keeps it from jumping ahead of other
// workspaces' jobs.
var earliestWhen = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

const maxAheadYears = 10

func checkWhen(t, now time.Time) error {
	if t.Before(earliestWhen) {
		return apierr.Invalid("whenToExport %s is before 2000-01-01", t.Format(time.RFC3339))
	}
	if t.After(now.AddDate(maxAheadYears, 0, 0)) {
		return apierr.Invalid("whenToExport %s is more than %d years ahead", t.Format(time.RFC3339), maxAheadYears)
	}
	return nil
}

// ParseTime reads an ISO-8601 time with any offset (Z, ±hh:mm, ±hhmm); a
// time without an offset is taken as UTC. Fractional seconds are optional.
func ParseTime(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	for _, layout := range []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04",
	} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not an ISO-8601 time: %q", v)
}
