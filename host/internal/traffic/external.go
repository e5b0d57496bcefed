package traffic

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/store"
)

// The sources a report can come from (GetStatsRequest.source and the
// report's Source).
const (
	SourceScript          = "script"
	SourceGoogleAnalytics = "google_analytics"
)

// External is a web analytics product that can answer a site's stats
// instead of the tracking script (Google Analytics 4, package analytics).
// Nil in Deps: stats always come from the script.
type External interface {
	// Connected reports whether the workspace has a connection.
	Connected(ctx context.Context, workspaceID string) bool
	// SiteReport reads the site's sessions over [from, to] (YYYY-MM-DD).
	// The answer says whether the workspace is connected and which
	// property belongs to the site, also beside an error; an error's text
	// is fit for users (it is quoted in sourceReason).
	SiteReport(ctx context.Context, workspaceID, siteID, from, to string) (ExternalReport, error)
}

// ExternalReport is a product's sessions for a site, unclassified.
type ExternalReport struct {
	// Connected reports that the workspace has a connection; PropertyID is
	// the site's property, "" when the site has none.
	Connected  bool
	PropertyID string
	Days       []ExternalDay
	Pages      []ExternalPage
	// Sampled: the product estimated the figures from a sample.
	Sampled bool
	// CachedAt is when the product answered (epoch ms).
	CachedAt int64
}

// ExternalDay is one day's sessions from one source and medium; Channel is
// the product's channel grouping ("AI Assistant"), or "".
type ExternalDay struct {
	Date                    string
	Source, Medium, Channel string
	Sessions, Pageviews     int64
	EngagedSessions         int64
	DurationMs              int64
}

// ExternalPage is the sessions that landed on Path from one source.
type ExternalPage struct {
	Path, Source, Medium, Channel   string
	Sessions, Pageviews, DurationMs int64
}

// OtherAISource is the source id of sessions that the product's own AI
// channel counts but Herald's table does not know.
const OtherAISource = "other_ai"

// ClassifySession returns the AI source id of a product's session source
// ("chatgpt.com", "perplexity", "copilot.microsoft.com"), with the same
// table as the script's visits: a known utm_source value first, then a
// referrer host or one of its parent domains. A session the table does not
// know but the product's channel calls AI is OtherAISource; "" is not AI.
func ClassifySession(source, channel string) string {
	source = strings.TrimSpace(source)
	if source != "" && !strings.HasPrefix(source, "(") {
		if src := sourceByUTM(source); src != nil {
			return src.ID
		}
		if src := sourceByReferrer(source); src != nil {
			return src.ID
		}
	}
	if isAIChannel(channel) {
		return OtherAISource
	}
	return ""
}

// isAIChannel matches GA4's AI channel ("AI Assistant", "AI assistants").
func isAIChannel(channel string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(channel)), "ai assistant")
}

// sourceChoice is which source a report comes from and why.
type sourceChoice struct {
	report    *Report
	connected bool
	reason    string
}

// fromExternal answers the report from the external product when the
// query allows it and the site has a property; otherwise (and whenever the
// product fails) it says why the script answers. Only an explicit
// source=google_analytics for a site without a property is an error.
func (s *Service) fromExternal(ctx context.Context, workspaceID string, site store.TrafficSite, source string, from, to int64) (sourceChoice, error) {
	if s.external == nil {
		if source == SourceGoogleAnalytics {
			return sourceChoice{}, apierr.Invalid("source google_analytics: Google Analytics is not available on this server")
		}
		return sourceChoice{reason: "Google Analytics is not available on this server"}, nil
	}
	if source == SourceScript {
		// Still say whether Google Analytics is connected.
		return sourceChoice{connected: s.external.Connected(ctx, workspaceID), reason: "source=script was asked for"}, nil
	}
	ext, err := s.external.SiteReport(ctx, workspaceID, site.ID, dayString(from), dayString(to))
	switch {
	case !ext.Connected && source == SourceGoogleAnalytics:
		return sourceChoice{}, apierr.Invalid("source google_analytics: Google Analytics is not connected for this workspace (PUT /v1/analytics/google)")
	case !ext.Connected:
		return sourceChoice{reason: "Google Analytics is not connected"}, nil
	case ext.PropertyID == "" && source == SourceGoogleAnalytics:
		return sourceChoice{}, apierr.Invalid("source google_analytics: site %s has no Google Analytics property (PUT /v1/analytics/google/sites/%s)", site.SiteKey, site.SiteKey)
	case ext.PropertyID == "":
		return sourceChoice{connected: true, reason: "Google Analytics is connected, but this site has no GA4 property: these are the script's stats"}, nil
	case err != nil:
		return sourceChoice{connected: true, reason: err.Error() + ": these are the script's stats"}, nil
	}
	r := buildExternalReport(from, to, ext)
	r.PropertyID = ext.PropertyID
	r.SourceReason = "GA4 property " + ext.PropertyID + " is connected to this site"
	if ext.Sampled {
		r.SourceReason += " (Google sampled these figures)"
	}
	if ext.CachedAt > 0 {
		r.SourceReason += "; answered by Google at " + time.UnixMilli(ext.CachedAt).UTC().Format(time.RFC3339)
	}
	return sourceChoice{report: &r, connected: true}, nil
}

// buildExternalReport classifies a product's rows into the report's shape.
// Scroll depth is not something GA4 measures by default: it stays 0.
func buildExternalReport(from, to int64, ext ExternalReport) Report {
	r := Report{Source: SourceGoogleAnalytics, From: dayString(from), To: dayString(to), Sources: []SourceStats{}, TopPages: []PageStats{}, Crawlers: []CrawlerStats{}}
	series := make([]DayStats, to-from+1)
	index := make(map[string]int, len(series))
	for d := from; d <= to; d++ {
		series[d-from].Date = dayString(d)
		index[series[d-from].Date] = int(d - from)
	}
	r.Series = series
	// A property's rows repeat a few dozen sources over every day: each
	// distinct source and channel is classified once.
	classes := map[[2]string]string{}
	classify := func(source, channel string) string {
		k := [2]string{source, channel}
		id, ok := classes[k]
		if !ok {
			id = ClassifySession(source, channel)
			classes[k] = id
		}
		return id
	}
	var ai, other store.TrafficDailyDelta
	bySource := map[string]*store.TrafficDailyDelta{}
	for _, row := range ext.Days {
		i, ok := index[row.Date]
		if !ok {
			continue
		}
		d := store.TrafficDailyDelta{Visits: row.Sessions, Pageviews: row.Pageviews, EngagedVisits: row.EngagedSessions, DurationMs: row.DurationMs}
		pt := &series[i]
		pt.Visits += row.Sessions
		pt.Pageviews += row.Pageviews
		id := classify(row.Source, row.Channel)
		if id == "" {
			other.Add(d)
			continue
		}
		pt.AIVisits += row.Sessions
		pt.Sources = addDaySource(pt.Sources, id, row.Sessions)
		ai.Add(d)
		if bySource[id] == nil {
			bySource[id] = &store.TrafficDailyDelta{}
		}
		bySource[id].Add(d)
	}
	finishReport(&r, ai, other, bySource)
	pages := map[string]*PageStats{}
	durations := map[string]int64{}
	for _, p := range ext.Pages {
		if classify(p.Source, p.Channel) == "" {
			continue
		}
		ps := pages[p.Path]
		if ps == nil {
			ps = &PageStats{Path: p.Path}
			pages[p.Path] = ps
		}
		ps.AIVisits += p.Sessions
		ps.AIPageviews += p.Pageviews
		durations[p.Path] += p.DurationMs
	}
	for path, ps := range pages {
		ps.AvgDurationMs = perVisit(durations[path], ps.AIVisits)
		r.TopPages = append(r.TopPages, *ps)
	}
	sort.Slice(r.TopPages, func(i, j int) bool {
		a, b := r.TopPages[i], r.TopPages[j]
		if a.AIPageviews != b.AIPageviews {
			return a.AIPageviews > b.AIPageviews
		}
		return a.Path < b.Path
	})
	if len(r.TopPages) > topPages {
		r.TopPages = r.TopPages[:topPages]
	}
	return r
}

// finishReport sets the totals, the per-source list (with names from the
// table) and the engagement split from the summed rows, for the script's
// report and a product's alike.
func finishReport(r *Report, ai, other store.TrafficDailyDelta, bySource map[string]*store.TrafficDailyDelta) {
	for _, pt := range r.Series {
		sort.Slice(pt.Sources, func(i, j int) bool {
			a, b := pt.Sources[i], pt.Sources[j]
			if a.Visits != b.Visits {
				return a.Visits > b.Visits
			}
			return a.Source < b.Source
		})
	}
	t := &r.Totals
	t.Visits, t.AIVisits = ai.Visits+other.Visits, ai.Visits
	t.Pageviews, t.AIPageviews = ai.Pageviews+other.Pageviews, ai.Pageviews
	t.AIShare = ratio(t.AIVisits, t.Visits)
	for id, v := range bySource {
		name := id
		if src := SourceByID(id); src != nil {
			name = src.Name
		} else if id == OtherAISource {
			name = "Other AI assistants (GA4 channel)"
		}
		r.Sources = append(r.Sources, SourceStats{
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
	r.Engagement.AI, r.Engagement.Other = engagement(ai), engagement(other)
}

// addCrawlers adds Herald's own crawler hits to a product's report (GA4
// does not see crawlers), as the script's report counts them.
func addCrawlers(r *Report, from int64, crawlers []store.TrafficCrawlerRow) {
	script := buildReport(from, from+int64(len(r.Series))-1, nil, nil, crawlers)
	for i := range r.Series {
		r.Series[i].CrawlerHits = script.Series[i].CrawlerHits
	}
	r.Totals.CrawlerHits, r.Crawlers = script.Totals.CrawlerHits, script.Crawlers
}
