package traffic

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// Stats window limits (SPEC: days 1 to 365, default 30).
const (
	DefaultDays = 30
	MaxDays     = 365
	topPages    = 20
)

// StatsQuery selects a report.
type StatsQuery struct {
	// SiteKey picks the site; empty means the workspace's first site, or,
	// with SiteKeyIfSeveral, a 400 when the workspace has several.
	SiteKey string
	// SiteKeyIfSeveral makes SiteKey required when the workspace has more
	// than one site. The API sets it (a silent choice misleads a caller);
	// the agent's summary keeps reporting the oldest site.
	SiteKeyIfSeveral bool
	// Days is the lookback; nil means DefaultDays.
	Days *int32
	// Source is "" (Google Analytics when the site has a property, else
	// the script), "script" or "google_analytics".
	Source string
}

// validate checks the source and the window, and sets Days to
// DefaultDays when it is nil.
func (q *StatsQuery) validate() error {
	switch q.Source {
	case "", SourceScript, SourceGoogleAnalytics:
	default:
		return apierr.Invalid("source must be script or google_analytics (or empty: Google Analytics when the site has a GA4 property), got %q", q.Source)
	}
	days := int32(DefaultDays)
	if q.Days != nil {
		days = *q.Days
	}
	if days < 1 || days > MaxDays {
		return apierr.Invalid("days must be between 1 and %d, got %d", MaxDays, days)
	}
	q.Days = &days
	return nil
}

// Report is a site's AI traffic over a window of days (the stats route).
type Report struct {
	// Source is where the numbers come from: SourceScript or
	// SourceGoogleAnalytics; SourceReason says why, PropertyID names the
	// GA4 property, and GoogleAnalyticsConnected whether the workspace is
	// connected.
	Source, SourceReason, PropertyID string
	GoogleAnalyticsConnected         bool
	SiteKey, Domain                  string
	Days                             int32
	// From and To are the window's first and last days, YYYY-MM-DD (UTC).
	From, To string
	Totals   Totals
	// Sources are the AI sources with a visit, most visits first.
	Sources []SourceStats
	// Series has one point per day of the window, oldest first, zero-filled.
	Series []DayStats
	// TopPages are the pages AI visitors viewed, most first (at most 20).
	TopPages []PageStats
	// Engagement compares AI visits with all other visits.
	Engagement struct{ AI, Other Engagement }
	// Crawlers are AI crawler hits per bot, most hits first.
	Crawlers []CrawlerStats
}

// Totals counts visits and pageviews over the window.
type Totals struct {
	Visits, AIVisits, Pageviews, AIPageviews, CrawlerHits int64
	// CrawlerHitsClaimed are log crawler hits that failed verification;
	// CrawlerHits counts the verified ones (and the script's).
	CrawlerHitsClaimed int64
	// AIShare is AIVisits / Visits, 0 without visits.
	AIShare float64
}

// SourceStats is one AI source over the window.
type SourceStats struct {
	Source, Name                 string
	Visits, Pageviews            int64
	Share                        float64 // of the AI visits
	AvgDurationMs, EngagedVisits int64
}

// DayStats is one day of the series.
type DayStats struct {
	Date                                     string
	Visits, AIVisits, Pageviews, CrawlerHits int64
	// Sources are the day's AI visits per source, most first.
	Sources []DaySource
}

// DaySource is one AI source's visits on one day.
type DaySource struct {
	Source string
	Visits int64
}

// PageStats is a page viewed by AI visitors.
type PageStats struct {
	Path                                 string
	AIVisits, AIPageviews, AvgDurationMs int64
}

// Engagement averages engagement over a group of visits.
type Engagement struct {
	Visits, AvgDurationMs                             int64
	AvgScrollDepth, PageviewsPerVisit, EngagementRate float64
}

// CrawlerStats is one AI crawler's hits.
type CrawlerStats struct {
	Bot, Operator string
	Hits          int64
	// Verified and Claimed split the hits from server logs.
	Verified, Claimed int64
}

// statsSyncWait caps how long Stats waits for the beacons this host has
// accepted to reach the rollups (see Writer.Sync); past it, the report is
// read as it stands.
const statsSyncWait = 2 * time.Second

// Stats reports a site's traffic over the last q.Days UTC days, today
// included. It reads only rollups: its cost grows with the days asked for,
// not with the events stored. Every beacon this host answered 202 before
// the call is counted.
func (s *Service) Stats(ctx context.Context, p auth.Principal, q StatsQuery) (Report, error) {
	if err := q.validate(); err != nil {
		return Report{}, err
	}
	days := *q.Days
	site, err := s.reportSite(ctx, p, q.SiteKey, q.SiteKeyIfSeveral)
	if err != nil {
		return Report{}, err
	}
	to := store.Day(s.store.Now())
	from := to - int64(days) + 1
	choice, err := s.fromExternal(ctx, p.WorkspaceID, site, q.Source, from, to)
	if err != nil {
		return Report{}, err
	}
	if r := choice.report; r != nil {
		// GA4 does not see crawlers: their hits are Herald's own.
		crawlers, err := s.store.TrafficCrawlers(ctx, site.ID, from, to)
		if err != nil {
			return Report{}, err
		}
		addCrawlers(r, from, crawlers)
		r.SiteKey, r.Domain, r.Days, r.GoogleAnalyticsConnected = site.SiteKey, site.Domain, days, true
		return *r, nil
	}
	sctx, cancel := context.WithTimeout(ctx, statsSyncWait)
	_ = s.writer.Sync(sctx) // past the wait, the report is read as it stands
	cancel()
	daily, err := s.store.TrafficDaily(ctx, site.ID, from, to)
	if err != nil {
		return Report{}, err
	}
	pages, err := s.store.TrafficTopPages(ctx, site.ID, from, to, topPages)
	if err != nil {
		return Report{}, err
	}
	crawlers, err := s.store.TrafficCrawlers(ctx, site.ID, from, to)
	if err != nil {
		return Report{}, err
	}
	r := buildReport(from, to, daily, pages, crawlers)
	logHits, err := s.store.CrawlerDaily(ctx, site.ID, from, to)
	if err != nil {
		return Report{}, err
	}
	addLogCrawlers(&r, from, logHits)
	r.SiteKey, r.Domain, r.Days = site.SiteKey, site.Domain, days
	r.GoogleAnalyticsConnected, r.SourceReason = choice.connected, choice.reason
	return r, nil
}

func (s *Service) reportSite(ctx context.Context, p auth.Principal, key string, strict bool) (store.TrafficSite, error) {
	if key == "" {
		sites, err := s.store.ListTrafficSites(ctx, p.WorkspaceID)
		if err != nil {
			return store.TrafficSite{}, err
		}
		if len(sites) == 0 {
			return store.TrafficSite{}, apierr.NotFound("no AI traffic site yet: create one with POST /v1/ai-traffic/sites")
		}
		if strict && len(sites) > 1 {
			// Reporting the oldest silently would mislead: make the caller pick.
			keys := make([]string, 0, len(sites))
			for _, st := range sites {
				keys = append(keys, st.SiteKey+" ("+st.Domain+")")
			}
			return store.TrafficSite{}, apierr.Invalid("siteKey is required: this workspace has %d sites: %s", len(sites), strings.Join(keys, ", "))
		}
		return sites[0], nil
	}
	site, err := s.store.TrafficSiteByKey(ctx, key)
	if err == store.ErrNotFound || (err == nil && site.WorkspaceID != p.WorkspaceID) {
		return store.TrafficSite{}, apierr.NotFound("site %q not found", key)
	}
	return site, err
}

// buildReport turns rollup rows into the response; it is pure so that its
// arithmetic is tested without a store.
func buildReport(from, to int64, daily []store.TrafficDailyRow, pages []store.TrafficPageRow, crawlers []store.TrafficCrawlerRow) Report {
	r := Report{Source: "script", From: dayString(from), To: dayString(to), Sources: []SourceStats{}, TopPages: []PageStats{}, Crawlers: []CrawlerStats{}}
	series := make([]DayStats, to-from+1)
	for d := from; d <= to; d++ {
		series[d-from].Date = dayString(d)
	}
	r.Series = series

	var ai, other store.TrafficDailyDelta
	bySource := map[string]*store.TrafficDailyDelta{}
	for _, row := range daily {
		pt := &series[row.Day-from]
		pt.Visits += row.Visits
		pt.Pageviews += row.Pageviews
		if row.Source == "" {
			other.Add(row.TrafficDailyDelta)
			continue
		}
		pt.AIVisits += row.Visits
		pt.Sources = addDaySource(pt.Sources, row.Source, row.Visits)
		ai.Add(row.TrafficDailyDelta)
		if bySource[row.Source] == nil {
			bySource[row.Source] = &store.TrafficDailyDelta{}
		}
		bySource[row.Source].Add(row.TrafficDailyDelta)
	}
	finishReport(&r, ai, other, bySource)

	for _, p := range pages {
		r.TopPages = append(r.TopPages, PageStats{Path: p.Path, AIVisits: p.AIVisits, AIPageviews: p.AIPageviews,
			AvgDurationMs: perVisit(p.AIDurationMs, p.AIPageviews)})
	}

	hits := map[string]int64{}
	for _, c := range crawlers {
		hits[c.Bot] += c.Hits
		series[c.Day-from].CrawlerHits += c.Hits
		r.Totals.CrawlerHits += c.Hits
	}
	for bot, n := range hits {
		op := ""
		if c := CrawlerByToken(bot); c != nil {
			op = c.Operator
		}
		r.Crawlers = append(r.Crawlers, CrawlerStats{Bot: bot, Operator: op, Hits: n})
	}
	sort.Slice(r.Crawlers, func(i, j int) bool {
		a, b := r.Crawlers[i], r.Crawlers[j]
		if a.Hits != b.Hits {
			return a.Hits > b.Hits
		}
		return a.Bot < b.Bot
	})
	return r
}

func engagement(d store.TrafficDailyDelta) Engagement {
	return Engagement{
		Visits:            d.Visits,
		AvgDurationMs:     perVisit(d.DurationMs, d.Visits),
		AvgScrollDepth:    round1(ratio(d.ScrollSum, d.ScrollCount)),
		PageviewsPerVisit: round1(ratio(d.Pageviews, d.Visits)),
		EngagementRate:    round3(ratio(d.EngagedVisits, d.Visits)),
	}
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func perVisit(total, n int64) int64 {
	if n == 0 {
		return 0
	}
	return (total + n/2) / n
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

func dayString(day int64) string { return time.Unix(day*86400, 0).UTC().Format(time.DateOnly) }

// addDaySource adds visits to a source's count of one day; a day holds a
// handful of sources, so a scan beats a map.
func addDaySource(list []DaySource, source string, visits int64) []DaySource {
	if visits == 0 {
		return list
	}
	for i := range list {
		if list[i].Source == source {
			list[i].Visits += visits
			return list
		}
	}
	return append(list, DaySource{Source: source, Visits: visits})
}
