package impact

import (
	"context"
	"errors"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/tracker"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// Schedules is what the impact reads of posts (*schedule.Service).
type Schedules interface {
	// Targeted returns a schedule of the caller's workspace with its
	// targets (another workspace's: an API 404).
	Targeted(ctx context.Context, p auth.Principal, id string) (schedule.Schedule, error)
	// TargetedPosts returns a tracker's targeted schedules.
	TargetedPosts(ctx context.Context, workspaceID, trackerID string) ([]schedule.Schedule, error)
}

// Trackers is what the impact reads of trackers (*tracker.Service).
type Trackers interface {
	// ImpactRuns returns the tracker's prompts and its completed runs
	// since (another workspace's tracker: an API 404).
	ImpactRuns(ctx context.Context, workspaceID, trackerID string, since time.Time) (tracker.ImpactData, error)
}

// Pages is what the impact reads of AI traffic (*traffic.Service).
type Pages interface {
	PageActivity(ctx context.Context, workspaceID, domain, path string, from, to int64) (traffic.PageActivity, error)
}

// Deps are the dependencies of a Service. Schedules and Trackers are
// required.
type Deps struct {
	// Logger: nil logs nothing.
	Logger    hclog.Logger
	Schedules Schedules
	Trackers  Trackers
	// Pages gives the crawls and visits of a post's page; nil: none.
	Pages Pages
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Writer, Credits and Proposals make drafts of a gap (Draft); any
	// nil: drafts are unavailable.
	Writer    Writer
	Credits   Credits
	Proposals Proposals
}

// Service reads the impact of published posts.
type Service struct {
	log       hclog.Logger
	schedules Schedules
	trackers  Trackers
	pages     Pages
	now       func() time.Time
	writer    Writer
	credits   Credits
	proposals Proposals
}

// New returns the impact service; the error names each missing required
// dependency.
func New(d Deps) (*Service, error) {
	if err := deps.Check("impact", deps.Need("Schedules", d.Schedules == nil), deps.Need("Trackers", d.Trackers == nil)); err != nil {
		return nil, err
	}
	s := &Service{log: deps.Logger(d.Logger, "impact"), schedules: d.Schedules, trackers: d.Trackers, pages: d.Pages, now: d.Now,
		writer: d.Writer, credits: d.Credits, proposals: d.Proposals}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Count is a count before and after publishing, overall and per key.
type Count struct {
	Before, After     int64
	BeforeBy, AfterBy map[string]int64
}

func newCount() Count { return Count{BeforeBy: map[string]int64{}, AfterBy: map[string]int64{}} }

func (c *Count) add(afterWindow bool, key string, n int64) {
	if n == 0 {
		return
	}
	if afterWindow {
		c.After += n
		c.AfterBy[key] += n
	} else {
		c.Before += n
		c.BeforeBy[key] += n
	}
}

// Page is the post's page.
type Page struct {
	URL, Path      string
	OnTrackedSite  bool
	TrafficTracked bool
	Citations      Count
	VerifiedCrawls Count
	ClaimedCrawls  Count
	AIVisits       Count
}

// PostImpact is one post's impact.
type PostImpact struct {
	ScheduleID    string
	TrackerID     string
	TargetPrompts []string
	PublishedAt   *time.Time
	Figures
	Page *Page
}

// Schedule returns the impact of one schedule of the caller's workspace.
func (s *Service) Schedule(ctx context.Context, p auth.Principal, id string) (PostImpact, error) {
	sc, err := s.schedules.Targeted(ctx, p, id)
	if err != nil {
		return PostImpact{}, err
	}
	out := PostImpact{ScheduleID: sc.ID, TrackerID: sc.Targets.TrackerID, TargetPrompts: sc.Targets.Prompts}
	if sc.Targets.Empty() {
		out.State = StateUntargeted
		out.Notes = []string{"the post targets no tracker prompts (targetPrompts and trackerId were not set when it was scheduled)"}
		return out, nil
	}
	pub, ok := published(sc)
	if !ok {
		return unpublished(out), nil
	}
	data, err := s.trackers.ImpactRuns(ctx, p.WorkspaceID, sc.Targets.TrackerID, pub.AddDate(0, 0, -BaselineDays))
	if err != nil {
		return PostImpact{}, err
	}
	return s.post(ctx, p.WorkspaceID, newIndex(data), sc, pub, s.now())
}

// Tracker returns the impact of every targeted post of a tracker of the
// caller's workspace, oldest published first.
func (s *Service) Tracker(ctx context.Context, p auth.Principal, trackerID string) ([]PostImpact, error) {
	list, err := s.schedules.TargetedPosts(ctx, p.WorkspaceID, trackerID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	since := now
	for _, sc := range list {
		if pub, ok := published(sc); ok && pub.Before(since) {
			since = pub
		}
	}
	// One read of the runs serves every post; it also answers 404 for a
	// tracker of another workspace.
	data, err := s.trackers.ImpactRuns(ctx, p.WorkspaceID, trackerID, since.AddDate(0, 0, -BaselineDays))
	if err != nil {
		return nil, err
	}
	ix := newIndex(data)
	// The posts are computed on every core (each one's bootstrap is
	// independent), in the list's order.
	out := make([]PostImpact, len(list))
	errs := make([]error, len(list))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(list)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sc := list[i]
				pub, ok := published(sc)
				if !ok {
					out[i] = unpublished(PostImpact{ScheduleID: sc.ID, TrackerID: trackerID, TargetPrompts: sc.Targets.Prompts})
					continue
				}
				out[i], errs[i] = s.post(ctx, p.WorkspaceID, ix, sc, pub, now)
			}
		}()
	}
	for i := range list {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func published(sc schedule.Schedule) (time.Time, bool) {
	if sc.Status != schedule.StatusPublished || sc.PublishedAt == nil || sc.ExternalURL == nil || *sc.ExternalURL == "" {
		return time.Time{}, false
	}
	return time.UnixMilli(*sc.PublishedAt).UTC(), true
}

func unpublished(out PostImpact) PostImpact {
	out.State = StateUnpublished
	out.Notes = []string{"not published yet: the impact is read once the post is published and has its page's URL"}
	return out
}

// post computes one published post's impact and its page's counts.
func (s *Service) post(ctx context.Context, ws string, ix *index, sc schedule.Schedule, pub, now time.Time) (PostImpact, error) {
	out := PostImpact{ScheduleID: sc.ID, TrackerID: sc.Targets.TrackerID, TargetPrompts: sc.Targets.Prompts, PublishedAt: &pub}
	out.Figures = ix.compute(Post{ScheduleID: sc.ID, PublishedAt: pub, Targets: sc.Targets.Prompts}, now)
	page, err := s.page(ctx, ws, ix, *sc.ExternalURL, pub, now)
	if err != nil {
		return PostImpact{}, err
	}
	out.Page = &page
	return out, nil
}

// page counts the answers citing the post's page in the tracker's runs,
// and its crawler hits and AI visits, over the baseline window and since
// publishing.
func (s *Service) page(ctx context.Context, ws string, ix *index, raw string, pub, now time.Time) (Page, error) {
	data := ix.data
	pg := Page{URL: raw, Path: tracker.PagePath(raw), Citations: newCount(), VerifiedCrawls: newCount(), ClaimedCrawls: newCount(), AIVisits: newCount()}
	if u, err := url.Parse(raw); err == nil && data.Domain != "" {
		pg.OnTrackedSite = site.RegistrableDomain(strings.ToLower(u.Hostname())) == data.Domain
	}
	if !pg.OnTrackedSite || pg.Path == "" {
		return pg, nil
	}
	from := pub.AddDate(0, 0, -BaselineDays)
	for _, c := range ix.cites[pg.Path] {
		at := data.Runs[c.run].At
		if at.Before(from) || at.After(now) {
			continue
		}
		pg.Citations.add(!at.Before(pub), c.engine, 1)
	}
	if s.pages == nil {
		return pg, nil
	}
	pubDay, today := day(pub), day(now)
	for _, w := range []struct {
		after    bool
		from, to int64
	}{{false, pubDay - BaselineDays, pubDay - 1}, {true, pubDay, today}} {
		act, err := s.pages.PageActivity(ctx, ws, data.Domain, pg.Path, w.from, w.to)
		if err != nil {
			return pg, err
		}
		pg.TrafficTracked = pg.TrafficTracked || act.Tracked
		for k, n := range act.Verified {
			pg.VerifiedCrawls.add(w.after, k, n)
		}
		for k, n := range act.Claimed {
			pg.ClaimedCrawls.add(w.after, k, n)
		}
		for k, n := range act.AIVisits {
			pg.AIVisits.add(w.after, k, n)
		}
	}
	return pg, nil
}

// day is the day number of t (days since the epoch, UTC), as AI traffic
// counts days.
func day(t time.Time) int64 {
	ms := t.UnixMilli()
	d := ms / 86_400_000
	if ms%86_400_000 < 0 {
		d--
	}
	return d
}
