package visibility

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// Cadences of a tracker.
const (
	CadenceDaily  = "daily"
	CadenceWeekly = "weekly"
)

// MaxTags caps a prompt's tags.
const (
	MaxTags     = 10
	MaxTagChars = 50
)

// TrackerPrompt is a buyer prompt with its tags.
type TrackerPrompt struct {
	Text string   `json:"text"`
	Tags []string `json:"tags,omitempty"`
}

// TrackerSetup is what a tracker's runs run on: a report's input with
// tagged prompts. Competitors are kept in the form given (strings or
// objects), as reports keep them.
type TrackerSetup struct {
	WebsiteURL  string            `json:"websiteurl"`
	Competitors []CompetitorInput `json:"competitors"`
	Prompts     []TrackerPrompt   `json:"prompts"`
	SelfAliases []string          `json:"selfAliases,omitempty"`
}

// TrackerSkip is a slot that did not run, and why.
type TrackerSkip struct {
	At     time.Time
	Reason string
}

// Tracker is a stored report setup run at its slot.
type Tracker struct {
	ID      string
	Setup   TrackerSetup
	Engines []string
	Cadence string
	Active  bool
	// SlotMinute is the minute of the UTC day of the slot, SlotWeekday its
	// weekday (weekly).
	SlotMinute  int
	SlotWeekday time.Weekday
	// NextRunAt is nil while paused.
	NextRunAt    *time.Time
	LastRunAt    *time.Time
	LastReportID string
	LastLate     *time.Duration
	LastSkip     *TrackerSkip
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// Samples is the tracker's own answers per prompt and engine; nil:
	// the plan's tracker_samples.
	Samples *int
}

// NewTracker asks for a tracker.
type NewTracker struct {
	Setup   TrackerSetup
	Engines []string
	Cadence string
	// Active defaults to true.
	Active *bool
	// Samples lowers the plan's tracker_samples for this tracker; nil:
	// the plan's.
	Samples *int
}

// TrackerUpdate changes the fields that are not nil.
type TrackerUpdate struct {
	ID          string
	WebsiteURL  *string
	Competitors *[]CompetitorInput
	Prompts     *[]TrackerPrompt
	Engines     *[]string
	Cadence     *string
	Active      *bool
	SelfAliases *[]string
	// Samples: 0 goes back to the plan's.
	Samples *int
}

// clean trims and de-duplicates the setup's lists.
func (t TrackerSetup) clean() TrackerSetup {
	t.WebsiteURL = strings.TrimSpace(t.WebsiteURL)
	var prompts []TrackerPrompt
	seen := map[string]bool{}
	for _, p := range t.Prompts {
		p.Text = strings.Join(strings.Fields(p.Text), " ")
		if k := strings.ToLower(p.Text); p.Text != "" && !seen[k] {
			seen[k] = true
			p.Tags = dedupe(p.Tags)
			prompts = append(prompts, p)
		}
	}
	t.Prompts = prompts
	t.Competitors = dedupeCompetitors(t.Competitors)
	t.SelfAliases = dedupe(t.SelfAliases)
	return t
}

// input is the report input of a run.
func (t TrackerSetup) input() Input {
	in := Input{WebsiteURL: t.WebsiteURL, Competitors: t.Competitors, Prompts: make([]string, len(t.Prompts)), SelfAliases: t.SelfAliases}
	for i, p := range t.Prompts {
		in.Prompts[i] = p.Text
	}
	return in
}

// validate checks a setup as a report's input is checked (websiteurl,
// prompts within the plan's limit, competitors), plus the tags, and
// returns it with the URL normalised.
func (t TrackerSetup) validate(plan config.Plan, planName string) (TrackerSetup, error) {
	url, err := validateURL(t.WebsiteURL)
	if err != nil {
		return t, err
	}
	t.WebsiteURL = url
	if err := t.input().validate(plan.PromptsPerReport, planName, true); err != nil {
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

// validateEngines checks engines against the model routes the router knows.
func (s *Service) validateEngines(engines []string) ([]string, error) {
	engines = dedupe(engines)
	if len(engines) > MaxListedEngines {
		return nil, apierr.Invalid("engines: %d given; the limit is %d", len(engines), MaxListedEngines)
	}
	known := s.models.Models()
	for i, e := range engines {
		if !slices.Contains(known, e) && !slices.Contains(s.cfg.Engines, e) {
			return nil, apierr.Invalid("engines[%d]: %q is not a configured model route", i, e)
		}
	}
	return engines, nil
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
	engines, err := s.validateEngines(req.Engines)
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
	row := store.Tracker{WorkspaceID: p.WorkspaceID, WebsiteURL: setup.WebsiteURL, Input: mustJSON(setup), Engines: mustJSON(nonNil(engines)),
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
		if engines, err = s.validateEngines(*u.Engines); err != nil {
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
	upd.WebsiteURL, upd.Input, upd.Engines, upd.Cadence, upd.Active = setup.WebsiteURL, mustJSON(setup), mustJSON(nonNil(engines)), cadence, active
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

// RunTracker starts a run now (any cadence, paused or not), paid like a
// report: 403 when the credits do not cover it (recorded as lastSkip).
func (s *Service) RunTracker(ctx context.Context, p auth.Principal, id string) (string, error) {
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

// samplesOf is a plan's samples setting (report_samples or
// tracker_samples), 1 when unset.
func samplesOf(n int) int { return max(1, min(config.MaxSamples, n)) }

// validateSamples checks a tracker's own samples: 1 to MaxSamples and at
// most the plan's tracker_samples.
func validateSamples(n int, plan config.Plan, planName string) error {
	if n < 1 || n > config.MaxSamples {
		return apierr.Invalid("samples must be between 1 and %d, got %d", config.MaxSamples, n)
	}
	if limit := samplesOf(plan.TrackerSamples); n > limit {
		return apierr.Invalid("samples: %d asked; the %s plan allows %d answers per prompt and engine (tracker_samples)", n, planName, limit)
	}
	return nil
}

// runSamples is how many samples a run of the tracker asks, read when the
// run is queued: its own samples, never more than the plan allows now (a
// plan lowered since applies from the next run on).
func runSamples(own *int, plan config.Plan) int {
	n := samplesOf(plan.TrackerSamples)
	if own != nil && *own >= 1 {
		n = min(n, *own)
	}
	return n
}
