package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
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

type landingBlockKey struct {
	site         string
	span, period int64
	path, source string
}

// writeLandings upserts the landings into traffic_page_sources, in the
// block of every page span that holds their day, in key order.
func (r *TrafficRollups) writeLandings(ctx context.Context, q Querier, d Dialect) error {
	if len(r.landings) == 0 {
		return nil
	}
	blocks := map[landingBlockKey]int64{}
	for k, n := range r.landings {
		for _, span := range pageSpans {
			blocks[landingBlockKey{k.site, span, floorDiv(k.day, span), k.path, k.source}] += n
		}
	}
	clear(r.landings)
	keys := slices.SortedFunc(mapKeys(blocks), func(a, b landingBlockKey) int {
		return cmp.Or(strings.Compare(a.site, b.site), cmp.Compare(a.span, b.span), cmp.Compare(a.period, b.period),
			strings.Compare(a.path, b.path), strings.Compare(a.source, b.source))
	})
	err := insertRows(ctx, q, d, `INSERT INTO traffic_page_sources (site_id, span, period, path, source, visits) VALUES `, 6, len(keys),
		func(args []any, i int) []any {
			k := keys[i]
			return append(args, k.site, k.span, k.period, k.path, k.source, blocks[k])
		}, ` ON CONFLICT (site_id, span, period, path, source) DO UPDATE SET visits = traffic_page_sources.visits + excluded.visits`)
	if err != nil {
		return fmt.Errorf("upsert traffic_page_sources: %w", err)
	}
	return nil
}
