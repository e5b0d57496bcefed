package tracker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// Traffic is what the trend needs of AI traffic (a *traffic.Service): the
// visits per day and source of the workspace's site on a domain, siteID ""
// when it tracks none.
type Traffic interface {
	DailyVisits(ctx context.Context, workspaceID, domain string, firstDay int64, days int) (siteID string, visits map[int64]map[string]int64, err error)
}

// Deps are the dependencies of a Service. Store, Queue, Quota and Reports
// are required.
type Deps struct {
	// Logger: nil logs nothing.
	Logger hclog.Logger
	Store  *store.Store
	// Queue takes a run's report job (the reports' Queue).
	Queue visibility.Queue
	// Quota holds the AI credits a tracker's run reserves.
	Quota *quota.Checker
	// Plans gives each plan's tracker limits, read at request time; nil:
	// config.DefaultPlans. The same table as the report service's.
	Plans *plans.Table
	// Now is the clock (tests): the slots and the credits' month come by
	// it. nil: time.Now.
	Now func() time.Time
	// Reports is the report service a run is a report of: its engines,
	// plans and report job.
	Reports *visibility.Service
	// EngineProvider names the provider plugin of an engine (its model
	// route's first deployment), for the trend's engine → AI traffic
	// source mapping; nil or "": guessed from the model name.
	EngineProvider func(engine string) string
	// Traffic joins a trend with the visits AI engines sent; nil: trends
	// have no traffic join.
	Traffic Traffic
	// HostID names this host in the tracker slots it claims (default
	// hostname:pid).
	HostID string
}

// Service runs visibility trackers: stored report setups run at their
// slot, and their trend.
type Service struct {
	store   *store.Store
	queue   visibility.Queue
	quota   *quota.Checker
	reports *visibility.Service
	traffic Traffic
	log     hclog.Logger
	now     func() time.Time
	hostID  string
	// engineProvider: see Deps.EngineProvider.
	engineProvider func(string) string
}

// New returns the Service, or an error naming each required dependency
// missing.
func New(d Deps) (*Service, error) {
	if err := deps.Check("tracker",
		deps.Need("Store", d.Store == nil),
		deps.Need("Queue", d.Queue == nil),
		deps.Need("Quota", d.Quota == nil),
		deps.Need("Reports", d.Reports == nil),
	); err != nil {
		return nil, err
	}
	s := &Service{store: d.Store, queue: d.Queue, reports: d.Reports, traffic: d.Traffic,
		log: deps.Logger(d.Logger, "tracker"), now: d.Now, hostID: d.HostID, engineProvider: d.EngineProvider}
	if s.now == nil {
		s.now = time.Now
	}
	table := d.Plans
	if table == nil {
		table = plans.New(nil)
	}
	s.quota = d.Quota.Follow(table).WithClock(s.now).WithLogger(s.log)
	if s.hostID == "" {
		host, _ := os.Hostname()
		s.hostID = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	return s, nil
}

// plan is the caller's plan.
func (s *Service) plan(p auth.Principal) config.Plan { return s.reports.PlanNamed(p.Plan) }

// clean trims and de-duplicates the setup's lists.
func (t TrackerSetup) clean() TrackerSetup {
	t.WebsiteURL = strings.TrimSpace(t.WebsiteURL)
	var prompts []TrackerPrompt
	seen := map[string]bool{}
	for _, p := range t.Prompts {
		p.Text = strings.Join(strings.Fields(p.Text), " ")
		if k := strings.ToLower(p.Text); p.Text != "" && !seen[k] {
			seen[k] = true
			p.Tags = analysis.Dedupe(p.Tags)
			prompts = append(prompts, p)
		}
	}
	t.Prompts = prompts
	t.Competitors = analysis.DedupeCompetitors(t.Competitors)
	t.SelfAliases = analysis.Dedupe(t.SelfAliases)
	return t
}

// input is the report input of a run.
func (t TrackerSetup) input() visibility.Input {
	in := visibility.Input{WebsiteURL: t.WebsiteURL, Competitors: t.Competitors, Prompts: make([]string, len(t.Prompts)), SelfAliases: t.SelfAliases}
	for i, p := range t.Prompts {
		in.Prompts[i] = p.Text
	}
	return in
}

// validate checks a setup as a report's input is checked (websiteurl,
// prompts within the plan's limit, competitors), plus the tags, and
// returns it with the URL normalised.
func (t TrackerSetup) validate(plan config.Plan, planName string) (TrackerSetup, error) {
	url, err := visibility.ValidateURL(t.WebsiteURL)
	if err != nil {
		return t, err
	}
	t.WebsiteURL = url
	if err := t.input().Validate(plan.PromptsPerReport, planName, true); err != nil {
		return t, err
	}
	for i, p := range t.Prompts {
		if len(p.Tags) > MaxTags {
			return t, apierr.Invalid("prompts[%d].tags: %d tags given; the limit is %d", i, len(p.Tags), MaxTags)
		}
		for j, tag := range p.Tags {
			if utf8.RuneCountInString(tag) > MaxTagChars {
				return t, apierr.Invalid("prompts[%d].tags[%d] is longer than %d characters", i, j, MaxTagChars)
			}
		}
	}
	return t, nil
}

// validateCadence checks a cadence against the plan's tracker_cadences.
func validateCadence(cadence string, plan config.Plan, planName string) error {
	if cadence != CadenceDaily && cadence != CadenceWeekly {
		return apierr.Invalid("cadence must be daily or weekly, got %q", cadence)
	}
	if !slices.Contains(plan.TrackerCadences, cadence) {
		allowed := "none"
		if len(plan.TrackerCadences) > 0 {
			allowed = strings.Join(plan.TrackerCadences, ", ")
		}
		return apierr.Invalid("cadence %q is not available on the %s plan (cadences: %s)", cadence, planName, allowed)
	}
	return nil
}

// trackerCapError is the answer over the plan's trackers: 403, since only
// an upgrade (or pausing another tracker) frees a place.
func trackerCapError(planName string, plan config.Plan) error {
	if plan.Trackers == 0 {
		return apierr.Forbidden("trackers are not available on the %s plan; upgrade to track visibility daily or weekly", planName)
	}
	return apierr.Forbidden("tracker limit reached: the %s plan allows %d active trackers; pause or delete one, or upgrade", planName, plan.Trackers)
}

func (s *Service) tracker(row store.Tracker) (Tracker, error) {
	t := Tracker{ID: row.ID, Cadence: row.Cadence, Active: row.Active, SlotMinute: row.SlotMinute, SlotWeekday: time.Weekday(row.SlotWeekday),
		CreatedAt: time.UnixMilli(row.CreatedAt).UTC(), UpdatedAt: time.UnixMilli(row.UpdatedAt).UTC(), Samples: row.Samples}
	if err := json.Unmarshal([]byte(row.Input), &t.Setup); err != nil {
		return t, fmt.Errorf("decode tracker %s input: %w", row.ID, err)
	}
	if err := json.Unmarshal([]byte(row.Engines), &t.Engines); err != nil {
		return t, fmt.Errorf("decode tracker %s engines: %w", row.ID, err)
	}
	if row.Active {
		n := time.UnixMilli(row.NextRunAt).UTC()
		t.NextRunAt = &n
	}
	if row.LastRunAt != nil {
		l := time.UnixMilli(*row.LastRunAt).UTC()
		t.LastRunAt = &l
	}
	if row.LastReportID != nil {
		t.LastReportID = *row.LastReportID
	}
	if row.LastLateMs != nil {
		d := time.Duration(*row.LastLateMs) * time.Millisecond
		t.LastLate = &d
	}
	if row.LastSkipAt != nil && row.LastSkipReason != nil {
		t.LastSkip = &TrackerSkip{At: time.UnixMilli(*row.LastSkipAt).UTC(), Reason: *row.LastSkipReason}
	}
	return t, nil
}

// CreateTracker validates and stores a tracker and starts its first run
// (skipped, with lastSkip, when the credits do not cover it). It returns
// the tracker and the first run's job id ("" when skipped).
func (s *Service) CreateTracker(ctx context.Context, p auth.Principal, req NewTracker) (Tracker, string, error) {
	plan := s.plan(p)
	setup, err := req.Setup.clean().validate(plan, p.Plan)
	if err != nil {
		return Tracker{}, "", err
	}
	if req.Cadence == "" {
		req.Cadence = CadenceDaily
	}
	if plan.Trackers == 0 {
		return Tracker{}, "", trackerCapError(p.Plan, plan)
	}
	if err := validateCadence(req.Cadence, plan, p.Plan); err != nil {
		return Tracker{}, "", err
	}
	engines, err := s.reports.ValidateEngines(req.Engines)
	if err != nil {
		return Tracker{}, "", err
	}
	if req.Samples != nil {
		if err := validateSamples(*req.Samples, plan, p.Plan); err != nil {
			return Tracker{}, "", err
		}
	}
	active := req.Active == nil || *req.Active
	now := s.now().UTC()
	row := store.Tracker{WorkspaceID: p.WorkspaceID, WebsiteURL: setup.WebsiteURL, Input: visibility.MustJSON(setup), Engines: visibility.MustJSON(apiconv.NonNil(engines)),
		Cadence: req.Cadence, Active: active, SlotMinute: now.Hour()*60 + now.Minute(), SlotWeekday: int(now.Weekday()),
		CreatedAt: now.UnixMilli(), UpdatedAt: now.UnixMilli(), Samples: req.Samples}
	row.NextRunAt = nextSlot(row.Cadence, row.SlotMinute, time.Weekday(row.SlotWeekday), now).UnixMilli()
	err = s.store.Tx(ctx, func(q store.Querier) error {
		row.ID = ""
		return s.store.CreateTracker(ctx, q, &row, plan.Trackers)
	})
	if errors.Is(err, store.ErrTrackerCap) {
		return Tracker{}, "", trackerCapError(p.Plan, plan)
	}
	if err != nil {
		return Tracker{}, "", err
	}
	// The first run starts now: the creation is the first slot.
	jobID := ""
	if active {
		run, err := s.startRun(ctx, row, 0, now)
		if err != nil {
			s.log.Error("first tracker run", "tracker", row.ID, "error", err)
		}
		jobID = run.jobID
	}
	got, err := s.store.GetTracker(ctx, p.WorkspaceID, row.ID)
	if err != nil {
		return Tracker{}, "", err
	}
	t, err := s.tracker(got)
	return t, jobID, err
}

// GetTracker returns a tracker of the workspace.
func (s *Service) GetTracker(ctx context.Context, p auth.Principal, id string) (Tracker, error) {
	row, err := s.store.GetTracker(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return Tracker{}, apierr.NotFound("tracker %s not found", id)
	}
	if err != nil {
		return Tracker{}, err
	}
	return s.tracker(row)
}

// ListTrackers returns the workspace's trackers, oldest first.
func (s *Service) ListTrackers(ctx context.Context, p auth.Principal) ([]Tracker, error) {
	rows, err := s.store.ListTrackers(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]Tracker, 0, len(rows))
	for _, r := range rows {
		t, err := s.tracker(r)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// UpdateTracker changes a tracker's setup, cadence or state. A change of
// cadence or a resume moves the next run to the next slot from now.
func (s *Service) UpdateTracker(ctx context.Context, p auth.Principal, u TrackerUpdate) (Tracker, error) {
	plan := s.plan(p)
	row, err := s.store.GetTracker(ctx, p.WorkspaceID, u.ID)
	if errors.Is(err, store.ErrNotFound) {
		return Tracker{}, apierr.NotFound("tracker %s not found", u.ID)
	}
	if err != nil {
		return Tracker{}, err
	}
	cur, err := s.tracker(row)
	if err != nil {
		return Tracker{}, err
	}
	setup := cur.Setup
	if u.WebsiteURL != nil {
		setup.WebsiteURL = *u.WebsiteURL
	}
	if u.Competitors != nil {
		setup.Competitors = *u.Competitors
	}
	if u.Prompts != nil {
		setup.Prompts = *u.Prompts
	}
	if u.SelfAliases != nil {
		setup.SelfAliases = *u.SelfAliases
	}
	if setup, err = setup.clean().validate(plan, p.Plan); err != nil {
		return Tracker{}, err
	}
	cadence := row.Cadence
	if u.Cadence != nil {
		cadence = *u.Cadence
		if err := validateCadence(cadence, plan, p.Plan); err != nil {
			return Tracker{}, err
		}
	}
	engines := cur.Engines
	if u.Engines != nil {
		if engines, err = s.reports.ValidateEngines(*u.Engines); err != nil {
			return Tracker{}, err
		}
	}
	samples := row.Samples
	if u.Samples != nil {
		samples = nil
		if *u.Samples != 0 {
			if err := validateSamples(*u.Samples, plan, p.Plan); err != nil {
				return Tracker{}, err
			}
			samples = u.Samples
		}
	}
	active := row.Active
	if u.Active != nil {
		active = *u.Active
	}
	if active && !row.Active && plan.Trackers == 0 {
		return Tracker{}, trackerCapError(p.Plan, plan)
	}
	now := s.now().UTC()
	next := row.NextRunAt
	if cadence != row.Cadence || (active && !row.Active) {
		next = nextSlot(cadence, row.SlotMinute, time.Weekday(row.SlotWeekday), now).UnixMilli()
	}
	upd := row
	upd.WebsiteURL, upd.Input, upd.Engines, upd.Cadence, upd.Active = setup.WebsiteURL, visibility.MustJSON(setup), visibility.MustJSON(apiconv.NonNil(engines)), cadence, active
	upd.NextRunAt, upd.UpdatedAt, upd.Samples = next, now.UnixMilli(), samples
	err = s.store.Tx(ctx, func(q store.Querier) error {
		return s.store.UpdateTracker(ctx, q, upd, row.Active, plan.Trackers)
	})
	if errors.Is(err, store.ErrTrackerCap) {
		return Tracker{}, trackerCapError(p.Plan, plan)
	}
	if errors.Is(err, store.ErrNotFound) {
		return Tracker{}, apierr.NotFound("tracker %s not found", u.ID)
	}
	if err != nil {
		return Tracker{}, err
	}
	return s.GetTracker(ctx, p, u.ID)
}

// DeleteTracker removes a tracker; its runs stay in the history.
func (s *Service) DeleteTracker(ctx context.Context, p auth.Principal, id string) error {
	err := s.store.DeleteTracker(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound("tracker %s not found", id)
	}
	return err
}

// QueueRun starts a run now (any cadence, paused or not), paid like a
// report: 403 when the credits do not cover it (recorded as lastSkip).
func (s *Service) QueueRun(ctx context.Context, p auth.Principal, id string) (string, error) {
	row, err := s.store.GetTracker(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", apierr.NotFound("tracker %s not found", id)
	}
	if err != nil {
		return "", err
	}
	run, err := s.startRun(ctx, row, 0, s.now().UTC())
	if err != nil {
		return "", err
	}
	if run.skip != "" {
		return "", apierr.Forbidden("%s", run.skip)
	}
	return run.jobID, nil
}

// validateSamples checks a tracker's own samples: 1 to MaxSamples and at
// most the plan's tracker_samples.
func validateSamples(n int, plan config.Plan, planName string) error {
	if n < 1 || n > config.MaxSamples {
		return apierr.Invalid("samples must be between 1 and %d, got %d", config.MaxSamples, n)
	}
	if limit := visibility.SamplesOf(plan.TrackerSamples); n > limit {
		return apierr.Invalid("samples: %d asked; the %s plan allows %d answers per prompt and engine (tracker_samples)", n, planName, limit)
	}
	return nil
}

// runSamples is how many samples a run of the tracker asks, read when the
// run is queued: its own samples, never more than the plan allows now (a
// plan lowered since applies from the next run on).
func runSamples(own *int, plan config.Plan) int {
	n := visibility.SamplesOf(plan.TrackerSamples)
	if own != nil && *own >= 1 {
		n = min(n, *own)
	}
	return n
}
