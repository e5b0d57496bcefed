package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// TrafficDailyDelta is an increment of a traffic_daily row.
type TrafficDailyDelta struct {
	Visits, Pageviews, EngagedVisits, DurationMs, ScrollSum, ScrollCount int64
}

// Add adds o to d.
func (d *TrafficDailyDelta) Add(o TrafficDailyDelta) {
	d.Visits += o.Visits
	d.Pageviews += o.Pageviews
	d.EngagedVisits += o.EngagedVisits
	d.DurationMs += o.DurationMs
	d.ScrollSum += o.ScrollSum
	d.ScrollCount += o.ScrollCount
}

// TrafficPageDelta is an increment of a traffic_pages row (AI visits only).
type TrafficPageDelta struct {
	AIVisits, AIPageviews, AIDurationMs int64
}

func (p *TrafficPageDelta) add(o TrafficPageDelta) {
	p.AIVisits += o.AIVisits
	p.AIPageviews += o.AIPageviews
	p.AIDurationMs += o.AIDurationMs
}

type dailyKey struct {
	site   string
	day    int64
	source string
}

type pageKey struct {
	site   string
	span   int64
	period int64
	path   string
}

// pageDayKey is a page on one day: AddPage adds to it, and write adds it
// to the block of each page span that holds the day.
type pageDayKey struct {
	site string
	day  int64
	path string
}

type crawlerKey struct {
	site string
	day  int64
	bot  string
}

// TrafficRollups accumulates rollup increments in memory so that a batch of
// events costs one upsert per touched rollup row, not one per event.
type TrafficRollups struct {
	daily map[dailyKey]*TrafficDailyDelta
	pages map[pageKey]*TrafficPageDelta
	// pageDays are AddPage's increments, added to pages by write: an AI
	// pageview costs one map update, not one per page span.
	pageDays map[pageDayKey]*TrafficPageDelta
	crawlers map[crawlerKey]int64
	// landings are AddLanding's AI visits per page and source.
	landings map[landingKey]int64
}

// NewTrafficRollups returns empty rollups.
func NewTrafficRollups() *TrafficRollups {
	return &TrafficRollups{daily: map[dailyKey]*TrafficDailyDelta{}, pages: map[pageKey]*TrafficPageDelta{},
		pageDays: map[pageDayKey]*TrafficPageDelta{}, crawlers: map[crawlerKey]int64{}}
}

// AddDaily adds d to the visits of site on day from source.
func (r *TrafficRollups) AddDaily(site string, day int64, source string, d TrafficDailyDelta) {
	if d == (TrafficDailyDelta{}) {
		return
	}
	k := dailyKey{site, day, source}
	v := r.daily[k]
	if v == nil {
		v = &TrafficDailyDelta{}
		r.daily[k] = v
	}
	v.Add(d)
}

// Daily returns the increment of the visits of site on day from source.
func (r *TrafficRollups) Daily(site string, day int64, source string) TrafficDailyDelta {
	if d := r.daily[dailyKey{site, day, source}]; d != nil {
		return *d
	}
	return TrafficDailyDelta{}
}

// AddPage adds p to path on day, in the block of every page span that
// holds the day.
func (r *TrafficRollups) AddPage(site string, day int64, path string, p TrafficPageDelta) {
	k := pageDayKey{site, day, path}
	v := r.pageDays[k]
	if v == nil {
		v = &TrafficPageDelta{}
		r.pageDays[k] = v
	}
	v.add(p)
}

// spreadPages adds the increments of pageDays to the block of every page
// span that holds their day, and empties pageDays.
func (r *TrafficRollups) spreadPages() {
	for dk, p := range r.pageDays {
		for _, span := range pageSpans {
			k := pageKey{dk.site, span, floorDiv(dk.day, span), dk.path}
			v := r.pages[k]
			if v == nil {
				v = &TrafficPageDelta{}
				r.pages[k] = v
			}
			v.add(*p)
		}
	}
	clear(r.pageDays)
}

// AddCrawler adds hits of bot on day.
func (r *TrafficRollups) AddCrawler(site string, day int64, bot string, hits int64) {
	r.crawlers[crawlerKey{site, day, bot}] += hits
}

// AddTrafficRollups writes rollups without raw events. Bulk imports and the
// stats benchmark use it; RecordTraffic writes rollups with their events.
func (s *Store) AddTrafficRollups(ctx context.Context, r *TrafficRollups) error {
	return s.Tx(ctx, func(q Querier) error { return r.write(ctx, q, s.Dialect, s.Now()) })
}

// write upserts the increments in key order, so concurrent writers take row
// locks in the same order.
func (r *TrafficRollups) write(ctx context.Context, q Querier, d Dialect, now int64) error {
	dk := make([]dailyKey, 0, len(r.daily))
	for k := range r.daily {
		dk = append(dk, k)
	}
	slices.SortFunc(dk, func(a, b dailyKey) int {
		return cmp.Or(strings.Compare(a.site, b.site), cmp.Compare(a.day, b.day), strings.Compare(a.source, b.source))
	})
	err := insertRows(ctx, q, d, `INSERT INTO traffic_daily (site_id, day, source, visits, pageviews, engaged_visits, duration_ms, scroll_sum, scroll_count) VALUES `,
		9, len(dk), func(args []any, i int) []any {
			k, v := dk[i], r.daily[dk[i]]
			return append(args, k.site, k.day, k.source, v.Visits, v.Pageviews, v.EngagedVisits, v.DurationMs, v.ScrollSum, v.ScrollCount)
		}, ` ON CONFLICT (site_id, day, source) DO UPDATE SET visits = traffic_daily.visits + excluded.visits,
			pageviews = traffic_daily.pageviews + excluded.pageviews, engaged_visits = traffic_daily.engaged_visits + excluded.engaged_visits,
			duration_ms = traffic_daily.duration_ms + excluded.duration_ms, scroll_sum = traffic_daily.scroll_sum + excluded.scroll_sum,
			scroll_count = traffic_daily.scroll_count + excluded.scroll_count`)
	if err != nil {
		return fmt.Errorf("upsert traffic_daily: %w", err)
	}

	r.spreadPages()
	pk := make([]pageKey, 0, len(r.pages))
	for k := range r.pages {
		pk = append(pk, k)
	}
	slices.SortFunc(pk, func(a, b pageKey) int {
		return cmp.Or(strings.Compare(a.site, b.site), cmp.Compare(a.span, b.span), cmp.Compare(a.period, b.period),
			strings.Compare(a.path, b.path))
	})
	var site, span, period lastArg
	err = insertRows(ctx, q, d, `INSERT INTO traffic_pages (site_id, span, period, path, ai_visits, ai_pageviews, ai_duration_ms) VALUES `,
		7, len(pk), func(args []any, i int) []any {
			k, v := pk[i], r.pages[pk[i]]
			return append(args, site.str(k.site), span.int(k.span), period.int(k.period), k.path, v.AIVisits, v.AIPageviews, v.AIDurationMs)
		}, ` ON CONFLICT (site_id, span, period, path) DO UPDATE SET ai_visits = traffic_pages.ai_visits + excluded.ai_visits,
			ai_pageviews = traffic_pages.ai_pageviews + excluded.ai_pageviews, ai_duration_ms = traffic_pages.ai_duration_ms + excluded.ai_duration_ms`)
	if err != nil {
		return fmt.Errorf("upsert traffic_pages: %w", err)
	}

	ck := make([]crawlerKey, 0, len(r.crawlers))
	for k := range r.crawlers {
		ck = append(ck, k)
	}
	slices.SortFunc(ck, func(a, b crawlerKey) int {
		return cmp.Or(strings.Compare(a.site, b.site), cmp.Compare(a.day, b.day), strings.Compare(a.bot, b.bot))
	})
	err = insertRows(ctx, q, d, `INSERT INTO traffic_crawlers (site_id, day, bot, hits) VALUES `, 4, len(ck),
		func(args []any, i int) []any { k := ck[i]; return append(args, k.site, k.day, k.bot, r.crawlers[k]) },
		` ON CONFLICT (site_id, day, bot) DO UPDATE SET hits = traffic_crawlers.hits + excluded.hits`)
	if err != nil {
		return fmt.Errorf("upsert traffic_crawlers: %w", err)
	}
	return r.writeLandings(ctx, q, d)
}

// TrafficDailyRow is one traffic_daily row.
type TrafficDailyRow struct {
	Day    int64
	Source string
	TrafficDailyDelta
}

// TrafficDaily returns the visit rollups of a site for days from..to
// (inclusive epoch days).
func (s *Store) TrafficDaily(ctx context.Context, siteID string, from, to int64) ([]TrafficDailyRow, error) {
	rows, err := s.query(ctx, `SELECT day, source, visits, pageviews, engaged_visits, duration_ms, scroll_sum, scroll_count
		FROM traffic_daily WHERE site_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, source`, siteID, from, to)
	if err != nil {
		return nil, fmt.Errorf("read traffic_daily: %w", err)
	}
	defer rows.Close()
	var out []TrafficDailyRow
	for rows.Next() {
		var r TrafficDailyRow
		if err := rows.Scan(&r.Day, &r.Source, &r.Visits, &r.Pageviews, &r.EngagedVisits, &r.DurationMs, &r.ScrollSum, &r.ScrollCount); err != nil {
			return nil, fmt.Errorf("read traffic_daily: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TrafficCrawlerRow is one traffic_crawlers row.
type TrafficCrawlerRow struct {
	Day  int64
	Bot  string
	Hits int64
}

// TrafficCrawlers returns AI crawler hits of a site for days from..to.
func (s *Store) TrafficCrawlers(ctx context.Context, siteID string, from, to int64) ([]TrafficCrawlerRow, error) {
	rows, err := s.query(ctx, `SELECT day, bot, hits FROM traffic_crawlers WHERE site_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, bot`,
		siteID, from, to)
	if err != nil {
		return nil, fmt.Errorf("read traffic_crawlers: %w", err)
	}
	defer rows.Close()
	var out []TrafficCrawlerRow
	for rows.Next() {
		var r TrafficCrawlerRow
		if err := rows.Scan(&r.Day, &r.Bot, &r.Hits); err != nil {
			return nil, fmt.Errorf("read traffic_crawlers: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
