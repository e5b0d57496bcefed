package traffic

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
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
	// Source must be "" or "script".
	Source string
}

// Stats reports a site's traffic over the last q.Days UTC days, today
// included. It reads only rollups: its cost grows with the days asked for,
// not with the events stored.
func (s *Service) Stats(ctx context.Context, p auth.Principal, q StatsQuery) (*apiv1.GetStatsResponse, error) {
	switch q.Source {
	case "", "script":
	default:
		return nil, apierr.Invalid("source must be script: Google Analytics is not connected, so stats come from the tracking script")
	}
	days := int32(DefaultDays)
	if q.Days != nil {
		days = *q.Days
	}
	if days < 1 || days > MaxDays {
		return nil, apierr.Invalid("days must be between 1 and %d, got %d", MaxDays, days)
	}
	site, err := s.reportSite(ctx, p, q.SiteKey, q.SiteKeyIfSeveral)
	if err != nil {
		return nil, err
	}
	to := store.Day(s.store.Now())
	from := to - int64(days) + 1
	daily, err := s.store.TrafficDaily(ctx, site.ID, from, to)
	if err != nil {
		return nil, err
	}
	pages, err := s.store.TrafficTopPages(ctx, site.ID, from, to, topPages)
	if err != nil {
		return nil, err
	}
	crawlers, err := s.store.TrafficCrawlers(ctx, site.ID, from, to)
	if err != nil {
		return nil, err
	}
	r := buildReport(from, to, daily, pages, crawlers)
	r.SiteKey, r.Domain, r.Days = site.SiteKey, site.Domain, days
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
func buildReport(from, to int64, daily []store.TrafficDailyRow, pages []store.TrafficPageRow, crawlers []store.TrafficCrawlerRow) *apiv1.GetStatsResponse {
	r := &apiv1.GetStatsResponse{
		Source: "script", From: dayString(from), To: dayString(to),
		Totals: &apiv1.TrafficTotals{}, Sources: []*apiv1.TrafficSource{}, TopPages: []*apiv1.TrafficPage{},
		Crawlers: []*apiv1.TrafficCrawler{},
	}
	series := make([]*apiv1.TrafficDay, 0, to-from+1)
	for d := from; d <= to; d++ {
		series = append(series, &apiv1.TrafficDay{Date: dayString(d)})
	}
	r.Series = series

	var ai, other store.TrafficDailyDelta
	bySource := map[string]*store.TrafficDailyDelta{}
	for _, row := range daily {
		pt := series[row.Day-from]
		pt.Visits += row.Visits
		pt.Pageviews += row.Pageviews
		if row.Source == "" {
			other.Add(row.TrafficDailyDelta)
			continue
		}
		pt.AiVisits += row.Visits
		pt.Sources = addDaySource(pt.Sources, row.Source, row.Visits)
		ai.Add(row.TrafficDailyDelta)
		if bySource[row.Source] == nil {
			bySource[row.Source] = &store.TrafficDailyDelta{}
		}
		bySource[row.Source].Add(row.TrafficDailyDelta)
	}
	for _, pt := range series {
		sort.Slice(pt.Sources, func(i, j int) bool {
			a, b := pt.Sources[i], pt.Sources[j]
			if a.Visits != b.Visits {
				return a.Visits > b.Visits
			}
			return a.Source < b.Source
		})
	}
	t := r.Totals
	t.Visits, t.AiVisits = ai.Visits+other.Visits, ai.Visits
	t.Pageviews, t.AiPageviews = ai.Pageviews+other.Pageviews, ai.Pageviews
	t.AiShare = ratio(t.AiVisits, t.Visits)

	for id, v := range bySource {
		name := id
		if src := SourceByID(id); src != nil {
			name = src.Name
		}
		r.Sources = append(r.Sources, &apiv1.TrafficSource{
			Source: id, Name: name, Visits: v.Visits, Pageviews: v.Pageviews, Share: ratio(v.Visits, ai.Visits),
			AvgDurationMs: perVisit(v.DurationMs, v.Visits), EngagedVisits: v.EngagedVisits,
		})
	}
	sort.Slice(r.Sources, func(i, j int) bool {
		a, b := r.Sources[i], r.Sources[j]
		if a.Visits != b.Visits {
			return a.Visits > b.Visits
		}
		return a.Source < b.Source
	})
	r.Engagement = &apiv1.TrafficEngagementSplit{Ai: engagement(ai), Other: engagement(other)}

	for _, p := range pages {
		r.TopPages = append(r.TopPages, &apiv1.TrafficPage{Path: p.Path, AiVisits: p.AIVisits, AiPageviews: p.AIPageviews,
			AvgDurationMs: perVisit(p.AIDurationMs, p.AIPageviews)})
	}

	hits := map[string]int64{}
	for _, c := range crawlers {
		hits[c.Bot] += c.Hits
		series[c.Day-from].CrawlerHits += c.Hits
		t.CrawlerHits += c.Hits
	}
	for bot, n := range hits {
		op := ""
		if c := CrawlerByToken(bot); c != nil {
			op = c.Operator
		}
		r.Crawlers = append(r.Crawlers, &apiv1.TrafficCrawler{Bot: bot, Operator: op, Hits: n})
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

func engagement(d store.TrafficDailyDelta) *apiv1.TrafficEngagement {
	return &apiv1.TrafficEngagement{
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
func addDaySource(list []*apiv1.TrafficDaySource, source string, visits int64) []*apiv1.TrafficDaySource {
	if visits == 0 {
		return list
	}
	for _, s := range list {
		if s.Source == source {
			s.Visits += visits
			return list
		}
	}
	return append(list, &apiv1.TrafficDaySource{Source: source, Visits: visits})
}
