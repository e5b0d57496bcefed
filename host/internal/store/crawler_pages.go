package store

import (
	"context"
)

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
// one read of the per-page day rollups (page_days.go).
func (s *Store) PageActivity(ctx context.Context, siteID string, from, to int64) ([]CrawlerPageRow, []PageSourceRow, error) {
	rows, err := s.readPageDays(ctx, siteID, from, to)
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
