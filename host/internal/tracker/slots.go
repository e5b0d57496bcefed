package tracker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility"
)

// Slots. A tracker's slot is its creation time of day (UTC, to the
// minute) every day, or every week on its creation weekday. Exactly once
// per slot across hosts: every host looks for due trackers each tick, and
// a host runs a slot only after claiming it in one transaction with the
// run (store.ClaimTrackerSlot: a conditional UPDATE of next_run_at plus
// the (tracker, slot) row). A host down at the slot loses nothing: the
// slot stays due until a host claims it, which runs it late and records
// how late. Slots missed while no host ran are not run one by one: the
// one late run covers them, and the next slot is the first after now.

// DefaultTrackerTick is how often a host looks for due trackers.
const DefaultTrackerTick = 30 * time.Second

// dueBatch is how many due trackers one look reads at a time.
const dueBatch = 200

// nextSlot is the first slot of the cadence strictly after t.
func nextSlot(cadence string, minute int, weekday time.Weekday, t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	c := day.Add(time.Duration(minute) * time.Minute)
	for !c.After(t) || (cadence == CadenceWeekly && c.Weekday() != weekday) {
		c = c.AddDate(0, 0, 1)
	}
	return c
}

// runOutcome is what starting a run did.
type runOutcome struct {
	claimed  bool // a slot run: this host claimed the slot
	jobID    string
	reportID string
	skip     string // why it did not run
}

var errSlotTaken = errors.New("tracker slot taken")

// startRun queues a run of the tracker as a report with trackerId: for a
// slot (slot > 0) after claiming it, by hand or at creation otherwise.
// The credits are reserved in the same transaction; when they do not
// cover the run it is not queued and the tracker records lastSkip.
func (s *Service) startRun(ctx context.Context, row store.Tracker, slot int64, now time.Time) (runOutcome, error) {
	// A run acts for the workspace: its plan is read now.
	planName, _, err := s.quota.Plan(ctx, auth.Principal{WorkspaceID: row.WorkspaceID})
	if err != nil {
		return runOutcome{}, fmt.Errorf("tracker %s: %w", row.ID, err)
	}
	plan := s.reports.PlanNamed(planName)
	t, err := s.tracker(row)
	if err != nil {
		return runOutcome{}, err
	}
	in := t.Setup.input()
	engines := t.Engines
	if len(engines) == 0 {
		engines = s.reports.Engines()
	}
	// The samples are fixed now, with the plan of now: a plan lowered
	// while a run is under way changes the next run, not that one.
	samples := runSamples(row.Samples, plan)
	cost := len(in.Prompts) * len(engines) * samples
	month := s.quota.Month()
	var next int64
	if slot > 0 {
		next = nextSlot(row.Cadence, row.SlotMinute, time.Weekday(row.SlotWeekday), now).UnixMilli()
	}
	late := max(0, now.UnixMilli()-slot)
	var out runOutcome
	attempt := func(ctx context.Context, q store.Querier, skipOnly string) error {
		out = runOutcome{}
		if slot > 0 {
			ok, err := s.store.ClaimTrackerSlot(ctx, q, row, slot, next, now.UnixMilli(), s.hostID)
			if err != nil {
				return err
			}
			if !ok {
				return errSlotTaken
			}
			out.claimed = true
		}
		reason := skipOnly
		switch {
		case reason != "":
		case slot > 0 && (plan.Trackers == 0 || !slices.Contains(plan.TrackerCadences, row.Cadence)):
			reason = fmt.Sprintf("the %s plan does not include %s trackers", planName, row.Cadence)
		case len(engines) == 0:
			reason = "no answer engine is configured"
		default:
			used, ok, err := s.quota.ReserveTx(ctx, q, row.WorkspaceID, month, plan, cost)
			if err != nil {
				return err
			}
			if !ok {
				reason = fmt.Sprintf("AI credit limit reached: this run costs %d credits (prompts × engines × samples) and %d of the %s plan's %d monthly credits remain",
					cost, max(0, plan.MonthlyAICredits-used), planName, plan.MonthlyAICredits)
			}
		}
		if reason != "" {
			out.skip = reason
			return s.store.RecordTrackerSkip(ctx, q, row.WorkspaceID, row.ID, slot, now.UnixMilli(), reason)
		}
		report := &store.VisibilityReport{WorkspaceID: row.WorkspaceID, WebsiteURL: in.WebsiteURL, Input: visibility.MustJSON(in),
			Engines: visibility.MustJSON(engines), CreditsMonth: month, CreditsReserved: cost, CreatedAt: now.UnixMilli(), TrackerID: &row.ID,
			Samples: samples}
		if err := s.store.CreateVisibilityReport(ctx, q, report); err != nil {
			return err
		}
		jobID, err := s.queue.EnqueueTx(ctx, q, visibility.ReportJob(row.WorkspaceID, report.ID))
		if err != nil {
			return err
		}
		if err := s.store.SetVisibilityReportJob(ctx, q, row.WorkspaceID, report.ID, jobID); err != nil {
			return err
		}
		out.jobID, out.reportID = jobID, report.ID
		return s.store.RecordTrackerRun(ctx, q, row.WorkspaceID, row.ID, slot, report.ID, now.UnixMilli(), late)
	}
	err = s.store.Tx(ctx, func(q store.Querier) error { return attempt(ctx, q, "") })
	var overCap *store.OverCapError
	if slot > 0 && errors.As(err, &overCap) {
		// The workspace's queue is full: the slot is spent, and says why.
		err = s.store.Tx(ctx, func(q store.Querier) error {
			return attempt(ctx, q, "the workspace's job queue is full: "+overCap.Error())
		})
	}
	if errors.Is(err, errSlotTaken) {
		return runOutcome{}, nil
	}
	if err != nil {
		return runOutcome{}, err
	}
	if out.jobID != "" {
		s.queue.Wake(jobs.SEOQueue)
		s.log.Info("tracker run queued", "tracker", row.ID, "workspace", row.WorkspaceID, "slot", slot, "late_ms", late, "job", out.jobID)
	} else if out.skip != "" {
		s.log.Info("tracker run skipped", "tracker", row.ID, "workspace", row.WorkspaceID, "slot", slot, "reason", out.skip)
	}
	return out, nil
}

// QueueDue runs every tracker whose slot has come (by the service's clock):
// each slot claimed by exactly one host. It returns how many slots this
// host claimed (run or skipped).
func (s *Service) QueueDue(ctx context.Context) (int, error) {
	now := s.now().UTC()
	claimed := 0
	for {
		due, err := s.store.DueTrackers(ctx, now.UnixMilli(), dueBatch)
		if err != nil {
			return claimed, err
		}
		// Hosts looking at once start from different trackers, so they
		// rarely wait on the same row.
		rand.Shuffle(len(due), func(i, j int) { due[i], due[j] = due[j], due[i] })
		progress := 0
		var errs []error
		for _, t := range due {
			if ctx.Err() != nil {
				return claimed, ctx.Err()
			}
			out, err := s.startRun(ctx, t, t.NextRunAt, now)
			if err != nil {
				errs = append(errs, fmt.Errorf("tracker %s: %w", t.ID, err))
				continue
			}
			progress++ // claimed here, or by another host
			if out.claimed {
				claimed++
			}
		}
		if len(due) < dueBatch || progress == 0 {
			return claimed, errors.Join(errs...)
		}
	}
}

// Scheduler runs due trackers every tick between Start and Stop.
type Scheduler struct {
	svc  *Service
	tick time.Duration
	log  hclog.Logger
	stop chan struct{}
	done chan struct{}
	// Ticked, when set, receives the number of slots claimed after each
	// look (tests).
	Ticked chan int
}

// NewScheduler returns the scheduler of svc's trackers; tick 0 is
// DefaultTrackerTick.
func NewScheduler(svc *Service, tick time.Duration) *Scheduler {
	if tick <= 0 {
		tick = DefaultTrackerTick
	}
	return &Scheduler{svc: svc, tick: tick, log: svc.log.Named("trackers")}
}

// Start looks for due trackers at once and then every tick.
func (ts *Scheduler) Start(context.Context) error {
	stop, done := make(chan struct{}), make(chan struct{})
	ts.stop, ts.done = stop, done
	go func() {
		defer close(done)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		t := time.NewTicker(ts.tick)
		defer t.Stop()
		for {
			n, err := ts.svc.QueueDue(ctx)
			if err != nil && ctx.Err() == nil {
				ts.log.Error("run due trackers", "error", err)
			}
			if ts.Ticked != nil {
				select {
				case ts.Ticked <- n:
				default:
				}
			}
			select {
			case <-t.C:
			case <-stop:
				return
			}
		}
	}()
	return nil
}

// Stop ends the loop; a look in progress is cancelled (a slot claimed in a
// transaction that did not commit stays due for the next host).
func (ts *Scheduler) Stop(ctx context.Context) error {
	if ts.stop == nil {
		return nil
	}
	close(ts.stop)
	ts.stop = nil
	select {
	case <-ts.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
