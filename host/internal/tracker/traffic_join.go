package tracker

import (
	"context"
	"net/url"
	"time"

	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// EngineSources maps the provider plugin of an engine to the AI traffic
// source it sends visitors from (docs/METRICS.md).
var EngineSources = map[string]string{
	"openai":     "chatgpt",
	"perplexity": "perplexity",
	"gemini":     "gemini",
	"anthropic":  "claude",
}

// engineSource is the AI traffic source of an engine, "" when none.
func (s *Service) engineSource(engine string) string {
	provider := ""
	if s.engineProvider != nil {
		provider = s.engineProvider(engine)
	}
	if provider == "" {
		provider = visibility.ProviderByName(engine)
	}
	return EngineSources[provider]
}

// TrafficDay is one day of the visibility-and-visits series, per engine.
type TrafficDay struct {
	Day     string                      `json:"day"`
	Engines map[string]TrafficDayEngine `json:"engines"`
}

// TrafficDayEngine is visibility(self) on one engine (the day's run, or
// the last run carried forward) beside the visits of its source.
type TrafficDayEngine struct {
	Source     string   `json:"source"`
	Visibility *float64 `json:"visibility"`
	// Carried says the visibility is the last run's, carried forward.
	Carried bool  `json:"carried"`
	Visits  int64 `json:"visits"`
}

// TrafficTotal is an engine's totals over the window.
type TrafficTotal struct {
	Source         string   `json:"source"`
	Visits         int64    `json:"visits"`
	MeanVisibility *float64 `json:"meanVisibility"`
}

// TrafficChange compares the first and the last 7 days of the window.
type TrafficChange struct {
	Source           string   `json:"source"`
	VisibilityFirst7 *float64 `json:"visibilityFirst7"`
	VisibilityLast7  *float64 `json:"visibilityLast7"`
	VisibilityChange *float64 `json:"visibilityChange"`
	VisitsFirst7     int64    `json:"visitsFirst7"`
	VisitsLast7      int64    `json:"visitsLast7"`
	VisitsChange     int64    `json:"visitsChange"`
}

// TrafficJoin is the visibility-and-visits view of a tracker.
type TrafficJoin struct {
	SiteID string                   `json:"siteId"`
	Domain string                   `json:"domain"`
	Days   []TrafficDay             `json:"days"`
	Totals map[string]TrafficTotal  `json:"totals"`
	Change map[string]TrafficChange `json:"change"`
}

// trafficJoin builds the series when the workspace tracks a site whose
// registrable domain is the tracker's; nil otherwise. prior is the last
// run before the window (carried into its first days).
func (s *Service) trafficJoin(ctx context.Context, ws string, t Tracker, prior *trendRun, runs []trendRun, start time.Time, days int) (*TrafficJoin, error) {
	u, err := url.Parse(t.Setup.WebsiteURL)
	if err != nil {
		return nil, nil
	}
	domain := site.RegistrableDomain(u.Hostname())
	if s.traffic == nil {
		return nil, nil
	}
	firstDay := start.Unix() / 86400
	siteID, visits, err := s.traffic.DailyVisits(ctx, ws, domain, firstDay, days)
	if err != nil || siteID == "" {
		return nil, err
	}
	all := runs
	if prior != nil {
		all = append([]trendRun{*prior}, runs...)
	}
	return joinTraffic(siteID, domain, s.engineSource, all, visits, firstDay, days), nil
}

// joinTraffic is the pure part of the join: runs oldest first (a run
// before the window may lead), visits per epoch day and source, the window
// of days from firstDay. Each engine whose provider sends an AI traffic
// source gets, per day, the visibility(self) of the day's last run on that
// engine, or the last earlier run's carried forward (null before any run),
// beside that source's visits.
func joinTraffic(siteID, domain string, source func(engine string) string, runs []trendRun, visits map[int64]map[string]int64, firstDay int64, days int) *TrafficJoin {
	j := &TrafficJoin{SiteID: siteID, Domain: domain, Days: make([]TrafficDay, 0, days), Totals: map[string]TrafficTotal{}, Change: map[string]TrafficChange{}}
	// Self's visibility per engine per run.
	type runVis struct {
		day int64
		vis map[string]float64
	}
	var rv []runVis
	engineSet := map[string]string{}
	var engines []string
	for _, run := range runs {
		v := runVis{day: run.report.CreatedAt / 86400000, vis: map[string]float64{}}
		for _, b := range run.computed.Geo.Brands {
			if !b.Self {
				continue
			}
			for e, f := range b.Engines {
				src := source(e)
				if src == "" {
					continue
				}
				v.vis[e] = f.Visibility
				if _, ok := engineSet[e]; !ok {
					engineSet[e] = src
					engines = append(engines, e)
				}
			}
		}
		rv = append(rv, v)
	}
	last := map[string]float64{}
	lastDay := map[string]int64{}
	next := 0
	for d := 0; d < days; d++ {
		day := firstDay + int64(d)
		for next < len(rv) && rv[next].day <= day {
			for e, x := range rv[next].vis {
				last[e], lastDay[e] = x, rv[next].day
			}
			next++
		}
		td := TrafficDay{Day: time.Unix(day*86400, 0).UTC().Format(time.DateOnly), Engines: map[string]TrafficDayEngine{}}
		for _, e := range engines {
			src := engineSet[e]
			de := TrafficDayEngine{Source: src, Visits: visits[day][src]}
			if x, ok := last[e]; ok {
				x := x
				de.Visibility, de.Carried = &x, lastDay[e] < day
			}
			td.Engines[e] = de
		}
		j.Days = append(j.Days, td)
	}
	// meanOf returns the raw mean visibility (n = 0: none) and the visits.
	meanOf := func(list []TrafficDay, e string) (sum float64, n int, v int64) {
		for _, d := range list {
			de := d.Engines[e]
			v += de.Visits
			if de.Visibility != nil {
				sum += *de.Visibility
				n++
			}
		}
		return sum, n, v
	}
	for _, e := range engines {
		sum, n, v := meanOf(j.Days, e)
		j.Totals[e] = TrafficTotal{Source: engineSet[e], Visits: v, MeanVisibility: scoring.Mean1(sum, n)}
		w := min(7, len(j.Days))
		fs, fn, fv := meanOf(j.Days[:w], e)
		ls, ln, lv := meanOf(j.Days[len(j.Days)-w:], e)
		c := TrafficChange{Source: engineSet[e], VisibilityFirst7: scoring.Mean1(fs, fn), VisibilityLast7: scoring.Mean1(ls, ln),
			VisitsFirst7: fv, VisitsLast7: lv, VisitsChange: lv - fv}
		if fn > 0 && ln > 0 {
			x := scoring.Round1(ls/float64(ln) - fs/float64(fn))
			c.VisibilityChange = &x
		}
		j.Change[e] = c
	}
	return j
}
