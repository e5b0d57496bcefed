package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Top pages over any window of days.
//
// traffic_pages holds each page's AI totals per aligned block of days, for
// every span in pageSpans: block p of span s covers epoch days p*s to
// p*s+s-1, so the blocks nest (eight of one span make one of the next).
// A window is read as a signed sum of blocks: a year can be a 512-day
// block (whole when it reaches past today, where nothing is stored yet) or
// a few 64-day blocks, plus or minus a few shorter blocks at its edges. A page
// row is read once per block, and short blocks hold few pages, so a year
// costs a handful of blocks' rows instead of 365 days' or twelve months'
// rows plus the days of a partial month. The cost depends on the window,
// never on the events stored.

// pageSpans are the block lengths of traffic_pages, in days. Each is
// pageBase times the previous one. Every AI pageview upserts one row per
// span, so spans cost the collect writer: these four read a year as fast
// as the five of migration 00003 (1, 4, 16, 64, 256) did, with one upsert
// fewer per pageview; three (1, 8, 64) read it 50% slower
// (BenchmarkStats10M, docs/BENCHMARKS.md; migration 00007).
var pageSpans = [...]int64{1, 8, 64, 512}

const pageBase = 8

// pageSpanCost estimates the rows of one block of each span relative to a
// day block: longer blocks hold more distinct pages, but far fewer than
// their length in days would suggest.
var pageSpanCost = [...]int{2, 5, 10, 13}

// pageBlock is one block of traffic_pages: span pageSpans[level], period.
type pageBlock struct {
	level  int
	period int64
}

// pageSlot is a run of consecutive blocks of one span, added to the window
// sum coef times (coef is negative for blocks to subtract).
type pageSlot struct {
	span, from, to, coef int64
}

// pageCover returns slots whose signed sum is exactly the days from..to.
// When open is set no rows exist after to (to is today or later), so
// blocks that reach past to may be read whole.
func pageCover(from, to int64, open bool) []pageSlot {
	top := pageSpans[len(pageSpans)-1]
	anchor := floorDiv(from, top) * top
	lo, hi := from, to+1
	rounds := uint(1) << (len(pageSpans) - 1) // a round-down or round-up choice per level below the top
	var best, cur []pageTerm
	bestCost := -1
	for hr := uint(0); hr < rounds; hr++ {
		for lr := uint(0); lr < rounds; lr++ {
			cur = cur[:0]
			prefixBlocks(anchor, hi, hr, func(b pageBlock, coef int64) {
				if coef < 0 && open {
					return // after to: nothing stored there
				}
				cur = addTerm(cur, b, coef)
			})
			prefixBlocks(anchor, lo, lr, func(b pageBlock, coef int64) { cur = addTerm(cur, b, -coef) })
			cost := 0
			for _, t := range cur {
				if t.coef != 0 {
					cost += pageSpanCost[t.level]
				}
			}
			if bestCost < 0 || cost < bestCost {
				best, bestCost = append(best[:0], cur...), cost
			}
		}
	}
	sort.Slice(best, func(i, j int) bool {
		a, b := best[i], best[j]
		if a.level != b.level {
			return a.level < b.level
		}
		return a.period < b.period
	})
	var slots []pageSlot
	for _, b := range best {
		if b.coef == 0 {
			continue
		}
		span, coef := pageSpans[b.level], b.coef
		if n := len(slots); n > 0 && slots[n-1].span == span && slots[n-1].coef == coef && slots[n-1].to == b.period-1 {
			slots[n-1].to = b.period
			continue
		}
		slots = append(slots, pageSlot{span: span, from: b.period, to: b.period, coef: coef})
	}
	return slots
}

// pageTerm is a block and how many times the window sum adds it.
type pageTerm struct {
	pageBlock
	coef int64
}

// addTerm adds coef to b's term; covers have a few dozen terms at most.
func addTerm(terms []pageTerm, b pageBlock, coef int64) []pageTerm {
	for i := range terms {
		if terms[i].pageBlock == b {
			terms[i].coef += coef
			return terms
		}
	}
	return append(terms, pageTerm{b, coef})
}

// prefixBlocks calls add with signed blocks whose sum is the days
// anchor..x-1, where anchor is aligned to the longest span and x >= anchor.
// Bit k of up chooses, at level k, between adding the blocks just below x
// (round down) and subtracting those just above it (round up), which is
// cheaper when x is near the next boundary of the longer span.
func prefixBlocks(anchor, x int64, up uint, add func(b pageBlock, coef int64)) {
	pos := x
	last := len(pageSpans) - 1
	for k := 0; k < last; k++ {
		span := pageSpans[k]
		r := floorDiv(pos-anchor, span) % pageBase
		if r == 0 {
			continue
		}
		p := floorDiv(pos, span)
		if up&(1<<k) != 0 {
			for i := int64(0); i < pageBase-r; i++ {
				add(pageBlock{k, p + i}, -1)
			}
			pos += (pageBase - r) * span
			continue
		}
		for i := int64(1); i <= r; i++ {
			add(pageBlock{k, p - i}, 1)
		}
		pos -= r * span
	}
	top := pageSpans[last]
	for p := floorDiv(anchor, top); p < floorDiv(pos, top); p++ {
		add(pageBlock{last, p}, 1)
	}
}

// TrafficPageRow is a page's AI totals over a window.
type TrafficPageRow struct {
	Path string
	TrafficPageDelta
}

// pageQuerySlots is the number of slots of the top-pages statement: a fixed
// count, so that one prepared statement serves every window (unused slots
// match no rows). Covers of windows up to a year need fewer.
const pageQuerySlots = 12

// TrafficTopPages returns the pages with the most AI pageviews over days
// from..to, most first, at most limit.
func (s *Store) TrafficTopPages(ctx context.Context, siteID string, from, to int64, limit int) ([]TrafficPageRow, error) {
	if from > to {
		return nil, nil
	}
	slots := pageCover(from, to, to >= Day(s.Now()))
	n := pageQuerySlots
	for n < len(slots) {
		n += pageQuerySlots
	}
	args := make([]any, 0, n*7+1)
	parts := make([]string, 0, n)
	for i := 0; i < n; i++ {
		sl := pageSlot{coef: 1} // span 0: no rows
		if i < len(slots) {
			sl = slots[i]
		}
		ph := func(v any) string {
			args = append(args, v)
			return placeholder(s.Dialect, len(args))
		}
		parts = append(parts, `SELECT path, ai_visits * `+ph(sl.coef)+` AS v, ai_pageviews * `+ph(sl.coef)+` AS pv, ai_duration_ms * `+ph(sl.coef)+
			` AS dur FROM traffic_pages WHERE site_id = `+ph(siteID)+` AND span = `+ph(sl.span)+` AND period BETWEEN `+ph(sl.from)+` AND `+ph(sl.to))
	}
	args = append(args, limit)
	rows, err := s.query(ctx, `SELECT path, CAST(SUM(v) AS BIGINT), CAST(SUM(pv) AS BIGINT), CAST(SUM(dur) AS BIGINT) FROM (`+
		strings.Join(parts, " UNION ALL ")+`) p GROUP BY path HAVING SUM(pv) > 0 ORDER BY SUM(pv) DESC, path LIMIT `+placeholder(s.Dialect, len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("read traffic_pages: %w", err)
	}
	defer rows.Close()
	var out []TrafficPageRow
	for rows.Next() {
		var r TrafficPageRow
		if err := rows.Scan(&r.Path, &r.AIVisits, &r.AIPageviews, &r.AIDurationMs); err != nil {
			return nil, fmt.Errorf("read traffic_pages: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
