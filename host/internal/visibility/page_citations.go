package visibility

import (
	"cmp"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"

	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// EngineOperators maps an engine's provider to the company whose crawlers
// fetch pages for it (the operators of traffic.Crawlers).
var EngineOperators = map[string]string{
	"openai":     "OpenAI",
	"anthropic":  "Anthropic",
	"perplexity": "Perplexity",
	"gemini":     "Google",
	"serpapi":    "Google",
	"dataforseo": "Google",
	"mistral":    "Mistral",
}

// engineOperator is the crawler operator of an engine, "" when unknown.
func (s *Service) engineOperator(engine string) string {
	provider := ""
	if s.engineProvider != nil {
		provider = s.engineProvider(engine)
	}
	if provider == "" {
		provider = ProviderByName(engine)
	}
	return EngineOperators[provider]
}

var _ traffic.CitationSource = (*Service)(nil)

// PageCitations lists the answers of the workspace's reports completed at
// or after since whose sources (citations and URLs in the text) include a
// page of domain or one of its subdomains: one entry per answer and page,
// in report order. Reports saved with their answers' pages (every report
// since migration 62) are read from those pages, by the domain's
// registrable domain; an older report's answers are read and scanned as
// they were. A domain that is itself a public suffix ("github.io", a bare
// "localhost") has subdomains of other registrable domains, so it reads
// every answer.
func (s *Service) PageCitations(ctx context.Context, workspaceID, domain string, since int64) ([]traffic.PageCitation, error) {
	reports, err := s.store.CompletedVisibilityReportKeysSince(ctx, workspaceID, since)
	if err != nil {
		return nil, err
	}
	// Reports come oldest first; rank orders the entries the same way.
	rank := make(map[string]int, len(reports))
	var saved []string
	byKey := pagesKeyed(domain)
	for i, r := range reports {
		rank[r.ID] = i
		if byKey && r.AnswerPages {
			saved = append(saved, r.ID)
		}
	}
	var out []traffic.PageCitation
	if len(saved) > 0 {
		rows, err := s.store.VisibilityAnswerPages(ctx, workspaceID, site.RegistrableDomain(domain), saved)
		if err != nil {
			return nil, err
		}
		type key struct{ report, engine, item, path string }
		seen := map[key]bool{} // the same page under two hosts (www. and bare) once
		for _, r := range rows {
			k := key{r.ReportID, r.Engine, r.Item, r.Path}
			if !onDomain(r.Host, domain) || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, traffic.PageCitation{Path: r.Path, Engine: r.Engine, Operator: s.engineOperator(r.Engine),
				ReportID: r.ReportID, Answer: r.Item})
		}
	}
	for _, r := range reports {
		if byKey && r.AnswerPages {
			continue
		}
		answers, err := s.store.ListVisibilityAnswers(ctx, workspaceID, r.ID, KindPrompt)
		if err != nil {
			return nil, err
		}
		for _, sa := range answers {
			seen := map[string]bool{}
			for _, pg := range answerPages(sa) {
				if !onDomain(pg.Host, domain) || seen[pg.Path] {
					continue
				}
				seen[pg.Path] = true
				out = append(out, traffic.PageCitation{Path: pg.Path, Engine: sa.Engine, Operator: s.engineOperator(sa.Engine),
					ReportID: r.ID, Answer: sa.Item})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b traffic.PageCitation) int { return cmp.Compare(rank[a.ReportID], rank[b.ReportID]) })
	return out, nil
}

// pagesKeyed tells whether the pages of domain and its subdomains are all
// found under domain's registrable domain: an IP address, or a domain with
// a registrable domain of its own (not a public suffix).
func pagesKeyed(domain string) bool {
	if net.ParseIP(domain) != nil {
		return true
	}
	_, err := publicsuffix.EffectiveTLDPlusOne(domain)
	return err == nil
}

// onDomain tells whether host is domain or one of its subdomains.
func onDomain(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// answerPages is the pages an answer's sources cite, in their order (nil
// for a failed answer), as saved with a prompt answer; a page cited twice
// is listed twice (the store saves it once, the old read keeps it once).
func answerPages(sa store.VisibilityAnswer) []store.AnswerPage {
	if sa.Error != nil {
		return nil
	}
	a := analysis.Answer{Engine: sa.Engine, Text: sa.Text}
	_ = json.Unmarshal([]byte(sa.Citations), &a.Citations)
	var out []store.AnswerPage
	for _, src := range analysis.AnswerSources(a) {
		host, path, ok := hostPath(src.URL)
		if !ok {
			continue
		}
		out = append(out, store.AnswerPage{Domain: site.RegistrableDomain(host), Host: host, Path: path})
	}
	return out
}

// withPages sets a prompt answer's Pages before its first save (a non-nil
// list, so that the save replaces whatever a previous attempt stored).
func withPages(a *store.VisibilityAnswer) {
	if a.Kind == KindPrompt {
		a.Pages = append([]store.AnswerPage{}, answerPages(*a)...)
	}
}

// hostPath returns a source URL's host (lower case, no final dot) and
// escaped path ("/" when empty), query and fragment dropped.
func hostPath(raw string) (host, path string, ok bool) {
	u := strings.TrimSpace(raw)
	if !strings.Contains(u, "://") {
		u = "https://" + u
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return "", "", false
	}
	host = strings.TrimSuffix(strings.ToLower(parsed.Hostname()), ".")
	if host == "" {
		return "", "", false
	}
	path = parsed.EscapedPath()
	if path == "" {
		path = "/"
	}
	return host, path, true
}
