package traffic

import apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"

// statsProto converts a report to the stats response.
func statsProto(r Report) *apiv1.GetStatsResponse {
	out := &apiv1.GetStatsResponse{
		Source: r.Source, SourceReason: r.SourceReason, PropertyId: r.PropertyID, GoogleAnalyticsConnected: r.GoogleAnalyticsConnected, SiteKey: r.SiteKey, Domain: r.Domain, Days: r.Days, From: r.From, To: r.To,
		Totals: &apiv1.TrafficTotals{Visits: r.Totals.Visits, AiVisits: r.Totals.AIVisits, AiShare: r.Totals.AIShare,
			Pageviews: r.Totals.Pageviews, AiPageviews: r.Totals.AIPageviews, CrawlerHits: r.Totals.CrawlerHits},
		Sources:  make([]*apiv1.TrafficSource, 0, len(r.Sources)),
		Series:   make([]*apiv1.TrafficDay, 0, len(r.Series)),
		TopPages: make([]*apiv1.TrafficPage, 0, len(r.TopPages)),
		Engagement: &apiv1.TrafficEngagementSplit{
			Ai: engagementProto(r.Engagement.AI), Other: engagementProto(r.Engagement.Other)},
		Crawlers: make([]*apiv1.TrafficCrawler, 0, len(r.Crawlers)),
	}
	for _, s := range r.Sources {
		out.Sources = append(out.Sources, &apiv1.TrafficSource{Source: s.Source, Name: s.Name, Visits: s.Visits,
			Pageviews: s.Pageviews, Share: s.Share, AvgDurationMs: s.AvgDurationMs, EngagedVisits: s.EngagedVisits})
	}
	for _, d := range r.Series {
		day := &apiv1.TrafficDay{Date: d.Date, Visits: d.Visits, AiVisits: d.AIVisits, Pageviews: d.Pageviews, CrawlerHits: d.CrawlerHits}
		for _, s := range d.Sources {
			day.Sources = append(day.Sources, &apiv1.TrafficDaySource{Source: s.Source, Visits: s.Visits})
		}
		out.Series = append(out.Series, day)
	}
	for _, p := range r.TopPages {
		out.TopPages = append(out.TopPages, &apiv1.TrafficPage{Path: p.Path, AiVisits: p.AIVisits, AiPageviews: p.AIPageviews,
			AvgDurationMs: p.AvgDurationMs})
	}
	for _, c := range r.Crawlers {
		out.Crawlers = append(out.Crawlers, &apiv1.TrafficCrawler{Bot: c.Bot, Operator: c.Operator, Hits: c.Hits})
	}
	return out
}

func engagementProto(e Engagement) *apiv1.TrafficEngagement {
	return &apiv1.TrafficEngagement{Visits: e.Visits, AvgDurationMs: e.AvgDurationMs, AvgScrollDepth: e.AvgScrollDepth,
		PageviewsPerVisit: e.PageviewsPerVisit, EngagementRate: e.EngagementRate}
}
