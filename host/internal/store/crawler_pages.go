package store

import (
	"context"
	"fmt"
	"strings"
)

// CrawlerPageRow is a page's crawler hits by one operator over a window.
type CrawlerPageRow struct {
	Path, Operator    string
	Verified, Claimed int64
}

// CrawlerPages returns a site's crawler hits per page and operator over
// days from..to, read as a signed sum of blocks like TrafficTopPages.
func (s *Store) CrawlerPages(ctx context.Context, siteID string, from, to int64) ([]CrawlerPageRow, error) {
	var out []CrawlerPageRow
	err := s.blockSum(ctx, "crawler_pages", []string{"path", "operator"}, []string{"verified", "claimed"}, siteID, from, to,
		func(scan func(...any) error) error {
			var r CrawlerPageRow
			if err := scan(&r.Path, &r.Operator, &r.Verified, &r.Claimed); err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	return out, err
}

// PageSourceRow is the AI visits of one source landing on a page.
type PageSourceRow struct {
	Path, Source string
	Visits       int64
}

// TrafficPageSources returns the AI visits landing on each page per source
// over days from..to.
func (s *Store) TrafficPageSources(ctx context.Context, siteID string, from, to int64) ([]PageSourceRow, error) {
	var out []PageSourceRow
	err := s.blockSum(ctx, "traffic_page_sources", []string{"path", "source"}, []string{"visits"}, siteID, from, to,
		func(scan func(...any) error) error {
			var r PageSourceRow
			if err := scan(&r.Path, &r.Source, &r.Visits); err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	return out, err
}

// blockSum sums the value columns of a table kept in pageSpans blocks
// (site_id, span, period, keys..., values...) over days from..to, grouped
// by the key columns, and calls row for every group with a non-zero sum.
func (s *Store) blockSum(ctx context.Context, table string, keys, values []string, siteID string, from, to int64, row func(scan func(...any) error) error) error {
	if from > to {
		return nil
	}
	slots := pageCover(from, to, to >= Day(s.Now()))
	n := pageQuerySlots
	for n < len(slots) {
		n += pageQuerySlots
	}
	args := make([]any, 0, n*(4+len(values)))
	ph := func(v any) string {
		args = append(args, v)
		return placeholder(s.Dialect, len(args))
	}
	parts := make([]string, 0, n)
	keyList := strings.Join(keys, ", ")
	for i := 0; i < n; i++ {
		sl := pageSlot{coef: 1} // span 0: no rows
		if i < len(slots) {
			sl = slots[i]
		}
		var b strings.Builder
		b.WriteString("SELECT " + keyList)
		for _, v := range values {
			b.WriteString(", " + v + " * " + ph(sl.coef) + " AS " + v)
		}
		b.WriteString(" FROM " + table + " WHERE site_id = " + ph(siteID) + " AND span = " + ph(sl.span) +
			" AND period BETWEEN " + ph(sl.from) + " AND " + ph(sl.to))
		parts = append(parts, b.String())
	}
	sums := make([]string, len(values))
	nonZero := make([]string, len(values))
	for i, v := range values {
		sums[i] = "CAST(SUM(" + v + ") AS BIGINT)"
		nonZero[i] = "SUM(" + v + ") <> 0"
	}
	rows, err := s.query(ctx, `SELECT `+keyList+`, `+strings.Join(sums, ", ")+` FROM (`+strings.Join(parts, " UNION ALL ")+
		`) p GROUP BY `+keyList+` HAVING `+strings.Join(nonZero, " OR "), args...)
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return fmt.Errorf("read %s: %w", table, err)
		}
	}
	return rows.Err()
}
