package store

import (
	"context"
)

// landingKey is a page on one day and the AI source of the visits that
// landed on it.
type landingKey struct {
	site   string
	day    int64
	path   string
	source string
}

// AddLanding counts an AI visit from source that started on path on day
// (the pages view's aiVisits per source).
func (r *TrafficRollups) AddLanding(site string, day int64, path, source string) {
	if r.landings == nil {
		r.landings = map[landingKey]int64{}
	}
	r.landings[landingKey{site, day, path, source}]++
}

// writeLandings appends the landings to page_days, one entry per page,
// source and day.
func (r *TrafficRollups) writeLandings(ctx context.Context, q Querier, d Dialect) error {
	if len(r.landings) == 0 {
		return nil
	}
	p := pageDays{}
	for k, n := range r.landings {
		p.add(pageDaysKey{k.site, k.path, pageKindSource, k.source}, k.day, n, 0)
	}
	clear(r.landings)
	return p.write(ctx, q, d)
}
