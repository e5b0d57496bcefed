package schedule

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/deps"
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
	EnqueueTx(ctx context.Context, tx store.Querier, j jobs.NewJob) (string, error)
	Wake(queues ...string)
}

// Credentials opens the sealed credentials of exports
// (*destination.Service implements it).
type Credentials interface {
	// ExportCredentials returns the credentials a new post will use,
	// checking webhookId; its errors are API errors.
	ExportCredentials(ctx context.Context, e destination.Export) (map[string]string, error)
	// Credentials returns the credentials of an export: the saved
	// webhook's for webhook, the stored connection's otherwise. Errors:
	// destination.ErrNoSecretKey, destination.ErrNoWebhook,
	// store.ErrNotFound.
	Credentials(ctx context.Context, e destination.Export) (map[string]string, error)
}

// Results of Delete: a pending post is cancelled, a draft or failed one
// removed.
const (
	Cancelled = string(StatusCancelled)
	Removed   = "removed"
)

// Schedule is a post of a workspace and its publishing state. Times are
// epoch milliseconds.
type Schedule struct {
	ID          string
	WorkspaceID string
	ExportTo    string
	Status      Status
	// WhenToExport is nil for a draft saved without a time.
	WhenToExport *int64
	WebhookID    *string
	// Content is contentToExport as JSON text.
	Content     string
	Attempts    int
	LastError   *string
	ExternalID  *string
	ExternalURL *string
	PublishedAt *int64
	CreatedAt   int64
	UpdatedAt   int64
	// PostID is the post the schedule is one destination of.
	PostID *string
	// Targets is what the post is written for (zero: nothing).
	Targets Targets
}

// fromStore is the schedule of a stored row.
func fromStore(sc store.Schedule) Schedule {
	return Schedule{
		ID: sc.ID, WorkspaceID: sc.WorkspaceID, ExportTo: sc.ExportTo, Status: statusOf(sc.Status), WhenToExport: sc.WhenToExport,
		WebhookID: sc.WebhookID, Content: sc.Content, Attempts: sc.Attempts, LastError: sc.LastError,
		ExternalID: sc.ExternalID, ExternalURL: sc.ExternalURL, PublishedAt: sc.PublishedAt,
		CreatedAt: sc.CreatedAt, UpdatedAt: sc.UpdatedAt, PostID: sc.PostID,
	}
}

// Deps are what a Service works with.
type Deps struct {
	// Logger: nil discards.
	Logger hclog.Logger
	Store  *store.Store
	Queue  Queue
	// Quota caps waiting schedules per workspace (required).
	Quota *quota.Checker
	// Plans gives each plan's SchedulerAPIAccess, read at request time
	// (nil: the defaults).
	Plans        *plans.Table
	Destinations Destinations
	Credentials  Credentials
	Blobs        blob.Store
	// AllowedPrivateCIDRs are the private ranges image downloads may reach.
	AllowedPrivateCIDRs []netip.Prefix
	// RepeatAhead is how long before they are due a new repeat rule's
	// occurrences are created (default RepeatAhead).
	RepeatAhead time.Duration
	// Trackers checks a post's targets (nil: a post with targets is
	// refused).
	Trackers TargetChecker
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
	ahead time.Duration
	// trackers checks targets; nil refuses them.
	trackers TargetChecker
}

// New returns the scheduler service; the error names each missing
// required dep.
func New(d Deps) (*Service, error) {
	if err := deps.Check("schedule",
		deps.Need("Credentials", d.Credentials == nil), deps.Need("Destinations", d.Destinations == nil),
		deps.Need("Queue", d.Queue == nil), deps.Need("Quota", d.Quota == nil), deps.Need("Store", d.Store == nil),
	); err != nil {
		return nil, err
	}
	s := &Service{
		store: d.Store, queue: d.Queue, dests: d.Destinations, creds: d.Credentials, blobs: d.Blobs, plans: d.Plans,
		fetch: sdk.GuardedHTTPClient(30*time.Second, d.AllowedPrivateCIDRs),
		log:   d.Logger, quota: d.Quota, ahead: d.RepeatAhead, trackers: d.Trackers,
	}
	if s.ahead <= 0 {
		s.ahead = RepeatAhead
	}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	if s.plans == nil {
		s.plans = plans.New(nil)
	}
	return s, nil
}

func (s *Service) destinationNames() []string {
	if s.dests == nil {
		return nil
	}
	return s.dests.Destinations()
}

// List returns a page of the caller's workspace's schedules and the total.
func (s *Service) List(ctx context.Context, p auth.Principal, skip int) ([]Schedule, int, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return nil, 0, err
	}
	if skip < 0 {
		return nil, 0, apierr.Invalid("skip must be 0 or more, got %d", skip)
	}
	rows, total, err := s.store.ListSchedules(ctx, p.WorkspaceID, skip, PageSize)
	if err != nil {
		return nil, 0, err
	}
	list := make([]Schedule, len(rows))
	for i, sc := range rows {
		list[i] = fromStore(sc)
	}
	if err := s.attachTargets(ctx, p.WorkspaceID, list); err != nil {
		return nil, 0, err
	}
	return list, total, nil
}

// Get returns one schedule of the caller's workspace.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Schedule, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return Schedule{}, err
	}
	sc, err := s.store.GetSchedule(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return Schedule{}, apierr.NotFound("schedule %s not found", id)
	}
	if err != nil {
		return Schedule{}, err
	}
	out := []Schedule{fromStore(sc)}
	if err := s.attachTargets(ctx, p.WorkspaceID, out); err != nil {
		return Schedule{}, err
	}
	return out[0], nil
}

// Delete cancels a pending schedule or removes a draft (or a failed one).
// It returns the result: Cancelled or Removed. A schedule
// being published, or already published, cannot be cancelled (409).
func (s *Service) Delete(ctx context.Context, p auth.Principal, id string) (string, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return "", err
	}
	before, result, err := s.store.CancelSchedule(ctx, p.WorkspaceID, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", apierr.NotFound("schedule %s not found", id)
	case errors.Is(err, store.ErrScheduleBusy) && statusOf(before.Status) == StatusPublished:
		return "", apierr.Conflict("schedule %s is already published; it cannot be cancelled", id)
	case errors.Is(err, store.ErrScheduleBusy):
		return "", apierr.Conflict("schedule %s is being published right now; it cannot be cancelled", id)
	case err != nil:
		return "", err
	}
	// The cancelled schedule's job stays queued and does nothing when it
	// runs: the publisher only proceeds from pending. A removed draft's
	// image goes with it; a cancelled post's is swept after the grace.
	if result == Removed && before.ImageKey != nil {
		s.dropImage(ctx, *before.ImageKey)
	}
	if result == Removed && before.PostID != nil {
		if err := s.store.DropEmptyPost(ctx, p.WorkspaceID, *before.PostID); err != nil {
			s.log.Warn("remove an empty post", "post", *before.PostID, "error", err)
		}
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
