package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Per-page day rollups of the pages view.
//
// page_days holds one row per site, page, kind and name (a crawler
// operator, or the AI source of visits landing on the page) whose days
// column lists that key's counts per epoch day as "day:a:b;" entries
// (crawlers: a verified, b claimed; sources: a visits, b 0). Ingest does
// not write it: batches insert page_day_deltas rows, and the fold
// (FoldPageDays, page_day_deltas.go) appends their sums to page_days, one
// upsert per key, once per fold (every 10 s). A day may appear more than once
// until a fold compacts the row (one entry per day, none older than
// pageDaysKept): once days has grown past twice its compacted length
// (compact_len) plus pageDaysSlack, the fold that just appended rewrites it
// in the same transaction, under the row lock its upsert holds, so
// compaction takes no lock of its own. A read only reads: it sums
// duplicate days the same as compacted ones, plus the deltas not folded
// yet. The pages view of any window reads one row per page and key, and
// at most one fold interval of deltas, whatever the number of days or hits behind it.

// Kinds of page_days rows.
const (
	pageKindCrawler = "crawler"
	pageKindSource  = "source"
)

// pageDaysKept is how many days before today a compacted row keeps: the
// longest window the pages view reads, with some margin.
const pageDaysKept = 400

// pageDaysSlack is how many bytes of appended entries a row may gather
// beyond twice its compacted length before its writer compacts it.
const pageDaysSlack = 512

type pageDaysKey struct {
	site, path, kind, name string
}

type pageDayCount struct{ a, b int64 }

// pageDays collects the entries of one write, per key and day.
type pageDays map[pageDaysKey]map[int64]*pageDayCount

func (p pageDays) add(k pageDaysKey, day, a, b int64) {
	days := p[k]
	if days == nil {
		days = map[int64]*pageDayCount{}
		p[k] = days
	}
	c := days[day]
	if c == nil {
		c = &pageDayCount{}
		days[day] = c
	}
	c.a += a
	c.b += b
}

// appendPageDay writes one "day:a:b;" entry.
func appendPageDay(buf []byte, day, a, b int64) []byte {
	buf = strconv.AppendInt(buf, day, 10)
	buf = append(buf, ':')
	buf = strconv.AppendInt(buf, a, 10)
	buf = append(buf, ':')
	buf = strconv.AppendInt(buf, b, 10)
	return append(buf, ';')
}

// write upserts the collected entries into page_days, in key order,
// appending to the days of rows that exist, then compacts those of the
// rows it wrote that grew past their bound.
func (p pageDays) write(ctx context.Context, q Querier, d Dialect, now int64) error {
	if len(p) == 0 {
		return nil
	}
	keys := slices.SortedFunc(mapKeys(p), comparePageDaysKeys)
	var buf []byte
	err := insertRows(ctx, q, d, `INSERT INTO page_days (site_id, path, kind, name, last_day, days) VALUES `, 6, len(keys),
		func(args []any, i int) []any {
			k := keys[i]
			days := slices.Sorted(mapKeys(p[k]))
			buf = buf[:0]
			for _, day := range days {
				c := p[k][day]
				buf = appendPageDay(buf, day, c.a, c.b)
			}
			return append(args, k.site, k.path, k.kind, k.name, days[len(days)-1], string(buf))
		}, ` ON CONFLICT (site_id, path, kind, name) DO UPDATE SET days = page_days.days || excluded.days,
			last_day = CASE WHEN excluded.last_day > page_days.last_day THEN excluded.last_day ELSE page_days.last_day END`)
	if err != nil {
		return fmt.Errorf("upsert page_days: %w", err)
	}
	return p.compact(ctx, q, d, keys, Day(now)-pageDaysKept)
}

// compact rewrites the rows of keys (sorted, all upserted by this
// transaction, which therefore holds their locks) whose days outgrew
// 2×compact_len + pageDaysSlack: one entry per day, none older than keep.
// It locks no row the upsert did not, and updates them in key order.
func (p pageDays) compact(ctx context.Context, q Querier, d Dialect, keys []pageDaysKey, keep int64) error {
	for start := 0; start < len(keys); {
		site := keys[start].site
		end := start
		var paths []string
		for end < len(keys) && keys[end].site == site {
			if end == start || keys[end].path != keys[end-1].path {
				paths = append(paths, keys[end].path)
			}
			end++
		}
		start = end
		var stale []pageDaysKey
		var staleDays []string
		err := inList(d, []any{site, pageDaysSlack}, paths, 256, func(list string, args []any) error {
			rows, err := q.Query(ctx, `SELECT path, kind, name, days FROM page_days
				WHERE site_id = $1 AND length(days) > 2 * compact_len + $2 AND path IN (`+list+`)`, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				k := pageDaysKey{site: site}
				var days string
				if err := rows.Scan(&k.path, &k.kind, &k.name, &days); err != nil {
					return err
				}
				if _, ok := p[k]; ok { // a row this transaction holds
					stale = append(stale, k)
					staleDays = append(staleDays, days)
				}
			}
			return rows.Err()
		})
		if err != nil {
			return fmt.Errorf("read page_days to compact: %w", err)
		}
		order := make([]int, len(stale))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return comparePageDaysKeys(stale[a], stale[b]) })
		for _, i := range order {
			k := stale[i]
			days, err := compactPageDays(staleDays[i], keep)
			if err != nil {
				return fmt.Errorf("compact page_days of %s: %w", k.path, err)
			}
			if _, err := q.Exec(ctx, `UPDATE page_days SET days = $1, compact_len = $2
				WHERE site_id = $3 AND path = $4 AND kind = $5 AND name = $6`,
				days, int64(len(days)), k.site, k.path, k.kind, k.name); err != nil {
				return fmt.Errorf("compact page_days of %s: %w", k.path, err)
			}
		}
	}
	return nil
}

func comparePageDaysKeys(a, b pageDaysKey) int {
	return cmp.Or(strings.Compare(a.site, b.site), strings.Compare(a.path, b.path), strings.Compare(a.kind, b.kind), strings.Compare(a.name, b.name))
}

// parsePageDays sums the entries of days within from..to into a and b
// (a day listed twice counts twice, as its writes did).
func parsePageDays(days string, from, to int64) (a, b int64, err error) {
	for len(days) > 0 {
		var f [3]int64
		for i := range f {
			j := 0
			neg := false
			if j < len(days) && days[j] == '-' {
				neg, j = true, 1
			}
			start := j
			var n int64
			for j < len(days) && days[j] >= '0' && days[j] <= '9' {
				n = n*10 + int64(days[j]-'0')
				j++
			}
			sep := byte(':')
			if i == 2 {
				sep = ';'
			}
			if j == start || j >= len(days) || days[j] != sep {
				return 0, 0, fmt.Errorf("bad page_days entry near %q", days)
			}
			if neg {
				n = -n
			}
			f[i] = n
			days = days[j+1:]
		}
		if day := f[0]; day >= from && day <= to {
			a += f[1]
			b += f[2]
		}
	}
	return a, b, nil
}

// compactPageDays merges a row's entries per day and drops those older
// than keep.
func compactPageDays(days string, keep int64) (string, error) {
	sums := map[int64]*pageDayCount{}
	for len(days) > 0 {
		end := strings.IndexByte(days, ';')
		if end < 0 {
			return "", fmt.Errorf("bad page_days entry %q", days)
		}
		parts := strings.Split(days[:end], ":")
		days = days[end+1:]
		if len(parts) != 3 {
			return "", fmt.Errorf("bad page_days entry %q", parts)
		}
		var f [3]int64
		for i, s := range parts {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return "", fmt.Errorf("bad page_days entry %q", parts)
			}
			f[i] = n
		}
		if f[0] < keep {
			continue
		}
		c := sums[f[0]]
		if c == nil {
			c = &pageDayCount{}
			sums[f[0]] = c
		}
		c.a += f[1]
		c.b += f[2]
	}
	var buf []byte
	for _, day := range slices.Sorted(mapKeys(sums)) {
		if c := sums[day]; c.a != 0 || c.b != 0 {
			buf = appendPageDay(buf, day, c.a, c.b)
		}
	}
	return string(buf), nil
}

// pageDayRow is one page_days row summed over a window.
type pageDayRow struct {
	path, kind, name string
	a, b             int64
}

// readPageDays sums a site's counts over days from..to (of one page when
// path is set, else of every page), returning the keys with a non-zero
// sum. One statement reads page_days and the deltas not folded into it
// yet (page_day_deltas, summed per key), so it sees one snapshot: a fold
// that commits meanwhile is seen whole or not at all, and no count is
// missed or read twice. It writes nothing: the fold writes page_days.
func (s *Store) readPageDays(ctx context.Context, siteID, path string, from, to int64) ([]pageDayRow, error) {
	if from > to {
		return nil, nil
	}
	rollup := `SELECT path, kind, name, days, CAST(0 AS BIGINT), CAST(0 AS BIGINT) FROM page_days WHERE site_id = $1 AND last_day >= $2`
	deltas := `SELECT path, kind, name, '', CAST(SUM(a) AS BIGINT), CAST(SUM(b) AS BIGINT) FROM page_day_deltas
		WHERE site_id = $1 AND day >= $2 AND day <= $3`
	args := []any{siteID, from, to}
	if path != "" {
		rollup, deltas, args = rollup+` AND path = $4`, deltas+` AND path = $4`, append(args, path)
	}
	rows, err := s.query(ctx, rollup+` UNION ALL `+deltas+` GROUP BY path, kind, name`, args...)
	if err != nil {
		return nil, fmt.Errorf("read page_days: %w", err)
	}
	defer rows.Close()
	type key struct{ path, kind, name string }
	at := map[key]int{}
	var out []pageDayRow
	for rows.Next() {
		var r pageDayRow
		var days string
		var da, db int64
		if err := rows.Scan(&r.path, &r.kind, &r.name, &days, &da, &db); err != nil {
			return nil, fmt.Errorf("read page_days: %w", err)
		}
		a, b, err := parsePageDays(days, from, to)
		if err != nil {
			return nil, fmt.Errorf("read page_days of %s: %w", r.path, err)
		}
		a, b = a+da, b+db
		if a == 0 && b == 0 {
			continue
		}
		k := key{r.path, r.kind, r.name}
		if i, ok := at[k]; ok {
			out[i].a += a
			out[i].b += b
			continue
		}
		r.a, r.b = a, b
		at[k] = len(out)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read page_days: %w", err)
	}
	return out, nil
}

// CrawlerPageRow is a page's crawler hits by one operator over a window.
type CrawlerPageRow struct {
	Path, Operator    string
	Verified, Claimed int64
}

// PageSourceRow is the AI visits of one source landing on a page.
type PageSourceRow struct {
	Path, Source string
	Visits       int64
}

// PageActivity returns a site's crawler hits per page and operator and
// the AI visits landing on each page per source over days from..to, in
// one read of the per-page day rollups.
func (s *Store) PageActivity(ctx context.Context, siteID string, from, to int64) ([]CrawlerPageRow, []PageSourceRow, error) {
	return s.pageActivity(ctx, siteID, "", from, to)
}

// PathActivity is PageActivity for one page of the site (its path), read
// through the rollups' key instead of every page.
func (s *Store) PathActivity(ctx context.Context, siteID, path string, from, to int64) ([]CrawlerPageRow, []PageSourceRow, error) {
	if path == "" {
		return nil, nil, nil
	}
	return s.pageActivity(ctx, siteID, path, from, to)
}

func (s *Store) pageActivity(ctx context.Context, siteID, path string, from, to int64) ([]CrawlerPageRow, []PageSourceRow, error) {
	rows, err := s.readPageDays(ctx, siteID, path, from, to)
	if err != nil {
		return nil, nil, err
	}
	var hits []CrawlerPageRow
	var visits []PageSourceRow
	for _, r := range rows {
		switch r.kind {
		case pageKindCrawler:
			hits = append(hits, CrawlerPageRow{Path: r.path, Operator: r.name, Verified: r.a, Claimed: r.b})
		case pageKindSource:
			visits = append(visits, PageSourceRow{Path: r.path, Source: r.name, Visits: r.a})
		}
	}
	return hits, visits, nil
}

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

// writeLandings inserts the landings as page_day_deltas, one row per page,
// source and day (folded into page_days later).
func (r *TrafficRollups) writeLandings(ctx context.Context, q Querier, d Dialect) error {
	if len(r.landings) == 0 {
		return nil
	}
	p := pageDays{}
	for k, n := range r.landings {
		p.add(pageDaysKey{k.site, k.path, pageKindSource, k.source}, k.day, n, 0)
	}
	return p.writeDeltas(ctx, q, d)
}
