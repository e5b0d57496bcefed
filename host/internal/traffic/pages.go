package traffic

import (
	"cmp"
	"context"
	"slices"
	"sort"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// CitationSource lists the engines' answers that cite pages of a domain;
// the visibility service is one (host/serve.go wires it).
type CitationSource interface {
	// PageCitations returns, for the workspace's reports completed at or
	// after since (epoch ms), one PageCitation per answer and cited page
	// of domain or its subdomains.
	PageCitations(ctx context.Context, workspaceID, domain string, since int64) ([]PageCitation, error)
}

// PageCitation is an answer whose sources include a page of the site.
type PageCitation struct {
	// Path is the cited URL's path, query dropped.
	Path string
	// Engine is the answering engine (model route); Operator the crawler
	// operator behind it ("OpenAI"), "" when unknown.
	Engine, Operator string
	ReportID         string
	// Answer identifies the answer within the report (prompt item), so an
	// answer citing a page twice counts once.
	Answer string
}

// PagesReport is the per-page join of citations, crawler hits and AI
// visits over a window.
type PagesReport struct {
	SiteKey, Domain string
	Days            int32
	From, To        string
	Pages           []PageRow
	CrawledNotCited []OperatorGap
	CitedNotCrawled []EngineGap
	CitedAndVisited []CitedVisited
}

// PageRow is one page.
type PageRow struct {
	Path     string
	CitedIn  []EngineCitations
	Crawled  []OperatorHits
	AIVisits []SourceVisits
}

// EngineCitations is one engine's answers citing a page.
type EngineCitations struct {
	Engine, Operator string
	Answers          int64
	ReportIDs        []string
}

// OperatorHits is one operator's crawler hits on a page.
type OperatorHits struct {
	Operator          string
	Verified, Claimed int64
}

// SourceVisits is the AI visits of one source landing on a page.
type SourceVisits struct {
	Source string
	Visits int64
}

// OperatorGap is a page verified-crawled by an operator whose engines
// never cited it in the window.
type OperatorGap struct {
	Path, Operator string
	Verified       int64
}

// EngineGap is a page an engine cited without a verified hit by its
// operator in the window.
type EngineGap struct {
	Path, Engine, Operator string
	Answers, Claimed       int64
}

// CitedVisited is a page cited and landed on by AI visitors.
type CitedVisited struct {
	Path     string
	Engines  []string
	AIVisits int64
}

// Pages reports, per page of a site, which engines cite it, which
// crawlers fetched it and how many AI visits landed on it, over days.
func (s *Service) Pages(ctx context.Context, p auth.Principal, siteKey string, days int32) (PagesReport, error) {
	if days == 0 {
		days = 30
	}
	if days < 1 || days > 365 {
		return PagesReport{}, apierr.Invalid("days must be between 1 and %d, got %d", MaxDays, days)
	}
	site, err := s.reportSite(ctx, p, siteKey, true)
	if err != nil {
		return PagesReport{}, err
	}
	to := store.Day(s.store.Now())
	from := to - int64(days) + 1
	hits, visits, err := s.store.PageActivity(ctx, site.ID, from, to)
	if err != nil {
		return PagesReport{}, err
	}
	var cites []PageCitation
	if s.logs.citations != nil {
		if cites, err = s.logs.citations.PageCitations(ctx, p.WorkspaceID, site.Domain, from*86_400_000); err != nil {
			return PagesReport{}, err
		}
	}
	r := JoinPages(hits, visits, cites)
	r.SiteKey, r.Domain, r.Days, r.From, r.To = site.SiteKey, site.Domain, days, dayString(from), dayString(to)
	return r, nil
}

// JoinPages builds the pages view from its three inputs. It is pure: the
// join rules are tested on it without a store.
func JoinPages(hits []store.CrawlerPageRow, visits []store.PageSourceRow, cites []PageCitation) PagesReport {
	type page struct {
		row      PageRow
		cited    int64
		engines  map[string]*EngineCitations
		answers  map[string]bool
		byOp     map[string]*OperatorHits
		citedOps map[string]bool
		visits   int64
	}
	// A page's maps are made when first written (most pages of a large
	// site have hits or visits only).
	pages := make(map[string]*page, len(hits))
	get := func(path string) *page {
		pg := pages[path]
		if pg == nil {
			pg = &page{row: PageRow{Path: path, CitedIn: []EngineCitations{}, Crawled: []OperatorHits{}, AIVisits: []SourceVisits{}}}
			pages[path] = pg
		}
		return pg
	}
	for _, c := range cites {
		pg := get(c.Path)
		if pg.answers == nil {
			pg.engines, pg.answers, pg.citedOps = map[string]*EngineCitations{}, map[string]bool{}, map[string]bool{}
		}
		key := c.ReportID + "\x00" + c.Engine + "\x00" + c.Answer
		if pg.answers[key] {
			continue
		}
		pg.answers[key] = true
		e := pg.engines[c.Engine]
		if e == nil {
			e = &EngineCitations{Engine: c.Engine, Operator: c.Operator, ReportIDs: []string{}}
			pg.engines[c.Engine] = e
		}
		e.Answers++
		if !slices.Contains(e.ReportIDs, c.ReportID) {
			e.ReportIDs = append(e.ReportIDs, c.ReportID)
		}
		pg.cited++
		if c.Operator != "" {
			pg.citedOps[c.Operator] = true
		}
	}
	for _, h := range hits {
		pg := get(h.Path)
		if pg.byOp == nil {
			pg.byOp = map[string]*OperatorHits{}
		}
		o := pg.byOp[h.Operator]
		if o == nil {
			o = &OperatorHits{Operator: h.Operator}
			pg.byOp[h.Operator] = o
		}
		o.Verified += h.Verified
		o.Claimed += h.Claimed
	}
	for _, v := range visits {
		pg := get(v.Path)
		pg.row.AIVisits = append(pg.row.AIVisits, SourceVisits{Source: v.Source, Visits: v.Visits})
		pg.visits += v.Visits
	}

	r := PagesReport{Pages: []PageRow{}, CrawledNotCited: []OperatorGap{}, CitedNotCrawled: []EngineGap{}, CitedAndVisited: []CitedVisited{}}
	paths := make([]string, 0, len(pages))
	for path := range pages {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		pg := pages[path]
		for _, e := range pg.engines {
			pg.row.CitedIn = append(pg.row.CitedIn, *e)
		}
		sort.Slice(pg.row.CitedIn, func(i, j int) bool { return pg.row.CitedIn[i].Engine < pg.row.CitedIn[j].Engine })
		for _, o := range pg.byOp {
			pg.row.Crawled = append(pg.row.Crawled, *o)
		}
		sort.Slice(pg.row.Crawled, func(i, j int) bool { return pg.row.Crawled[i].Operator < pg.row.Crawled[j].Operator })
		sort.Slice(pg.row.AIVisits, func(i, j int) bool { return pg.row.AIVisits[i].Source < pg.row.AIVisits[j].Source })
		r.Pages = append(r.Pages, pg.row)

		// Crawled, not cited: a verified operator none of whose engines
		// cited the page.
		for _, o := range pg.row.Crawled {
			if o.Verified > 0 && !pg.citedOps[o.Operator] {
				r.CrawledNotCited = append(r.CrawledNotCited, OperatorGap{Path: path, Operator: o.Operator, Verified: o.Verified})
			}
		}
		// Cited, not crawled: an engine whose operator has no verified
		// hit on the page (claimed hits do not count).
		for _, e := range pg.row.CitedIn {
			o := pg.byOp[e.Operator]
			if o != nil && o.Verified > 0 {
				continue
			}
			gap := EngineGap{Path: path, Engine: e.Engine, Operator: e.Operator, Answers: e.Answers}
			if o != nil {
				gap.Claimed = o.Claimed
			}
			r.CitedNotCrawled = append(r.CitedNotCrawled, gap)
		}
		if pg.cited > 0 && pg.visits > 0 {
			cv := CitedVisited{Path: path, AIVisits: pg.visits}
			for _, e := range pg.row.CitedIn {
				cv.Engines = append(cv.Engines, e.Engine)
			}
			r.CitedAndVisited = append(r.CitedAndVisited, cv)
		}
	}
	// Most cited first, then most verified hits, then path (the pages
	// are in path order already).
	type weighted struct {
		cited, verified int64
		row             PageRow
	}
	ws := make([]weighted, len(r.Pages))
	for i, p := range r.Pages {
		ws[i].row = p
		for _, e := range p.CitedIn {
			ws[i].cited += e.Answers
		}
		for _, o := range p.Crawled {
			ws[i].verified += o.Verified
		}
	}
	slices.SortStableFunc(ws, func(a, b weighted) int {
		return cmp.Or(cmp.Compare(b.cited, a.cited), cmp.Compare(b.verified, a.verified))
	})
	for i := range ws {
		r.Pages[i] = ws[i].row
	}
	return r
}
