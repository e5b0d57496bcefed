package visibility

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

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
// page of domain or one of its subdomains: one entry per answer and page.
func (s *Service) PageCitations(ctx context.Context, workspaceID, domain string, since int64) ([]traffic.PageCitation, error) {
	reports, err := s.store.CompletedVisibilityReportsSince(ctx, workspaceID, since)
	if err != nil {
		return nil, err
	}
	var out []traffic.PageCitation
	for _, r := range reports {
		answers, err := s.store.ListVisibilityAnswers(ctx, workspaceID, r.ID, KindPrompt)
		if err != nil {
			return nil, err
		}
		for _, sa := range answers {
			if sa.Error != nil {
				continue
			}
			a := analysis.Answer{Engine: sa.Engine, Text: sa.Text}
			_ = json.Unmarshal([]byte(sa.Citations), &a.Citations)
			seen := map[string]bool{}
			for _, src := range analysis.AnswerSources(a) {
				path, ok := pageOf(src.URL, domain)
				if !ok || seen[path] {
					continue
				}
				seen[path] = true
				out = append(out, traffic.PageCitation{Path: path, Engine: sa.Engine, Operator: s.engineOperator(sa.Engine),
					ReportID: r.ID, Answer: sa.Item})
			}
		}
	}
	return out, nil
}

// pageOf returns the path of a source URL on domain (or a subdomain),
// query and fragment dropped; ok is false for other hosts.
func pageOf(raw, domain string) (string, bool) {
	u := strings.TrimSpace(raw)
	if !strings.Contains(u, "://") {
		u = "https://" + u
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(parsed.Hostname()), ".")
	if host != domain && !strings.HasSuffix(host, "."+domain) {
		return "", false
	}
	path := parsed.EscapedPath()
	if path == "" {
		path = "/"
	}
	return path, true
}
