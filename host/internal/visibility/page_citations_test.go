package visibility_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/sdk"
)

// citingEngines are the fake engines with every answer citing pages of
// example.com, of its subdomains and of look-alike hosts, in its text and
// in the engine's citations.
type citingEngines struct{ *fakeEngines }

func (c citingEngines) GenerateText(ctx context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	res, err := c.fakeEngines.GenerateText(ctx, model, req)
	if err != nil || req.System != "" {
		return res, err
	}
	res.Text += " See https://example.com/guide?utm_source=chatgpt.com and https://www.example.com/guide, " +
		"https://blog.example.com/post, https://notexample.com/a and https://example.com.evil.test/b."
	// blog.example.com/post both in the text and in the citations: one page.
	res.Citations = append(res.Citations, sdk.Citation{URL: "https://example.com/pricing"}, sdk.Citation{URL: "https://docs.example.com/api#auth"},
		sdk.Citation{URL: "https://blog.example.com/post"})
	return res, nil
}

// The pages view's citations come from the pages saved with each prompt
// answer (one read by the site's registrable domain) and, for a report
// saved before answers kept their pages, from its answers' text as before:
// both give the same entries in report order, and the same pages view; a
// subdomain site keeps
// its own pages only, probes and other workspaces' answers never count,
// and a cached answer (the second report) keeps its pages too.
func TestPageCitationsFromSavedPagesMatchTheAnswers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		b := setup(t, s, options{engines: []string{"gpt", "claude"}, ttl: time.Hour,
			models: citingEngines{newFakeEngines("gpt", "claude", "gpt-image-1")}})
		b.report(t, b.business, reportBody)
		b.report(t, b.business, reportBody) // from the answer cache
		b.report(t, b.other, reportBody)
		reports, err := s.CompletedVisibilityReportsSince(ctx, b.businessID, 0)
		if err != nil || len(reports) != 2 {
			t.Fatalf("%d completed reports (%v), want 2", len(reports), err)
		}
		var rows int
		storetest.QueryRow(ctx, s, `SELECT COUNT(*) FROM visibility_answer_pages WHERE report_id = $1`, reports[1].ID).Scan(&rows)
		// 4 prompt answers × 7 hosts and paths (example.com and www. are
		// two hosts of /guide), and the fixtures' own links (claude's
		// example.com/, gpt's initech.io/widgets); the probes keep none.
		if rows != 4*7+2 {
			t.Errorf("the cached report's answers saved %d pages, want 30 (4 prompt answers × 7 pages + 2, no probe's)", rows)
		}

		want := func(domain string, paths ...string) []string {
			var out []string
			for _, r := range reports {
				for _, e := range []string{"gpt", "claude"} {
					for _, item := range []string{"0", "1"} {
						for _, p := range paths {
							out = append(out, fmt.Sprintf("%s %s %s %s", r.ID, e, item, p))
						}
						if domain == "example.com" && e == "claude" && item == "0" {
							out = append(out, fmt.Sprintf("%s %s %s /", r.ID, e, item)) // "Acme (https://example.com)"
						}
					}
				}
			}
			slices.Sort(out)
			return out
		}
		got := func(domain string) ([]traffic.PageCitation, []string) {
			t.Helper()
			cites, err := b.svc.PageCitations(ctx, b.businessID, domain, 0)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for i, c := range cites {
				if i > 0 && c.ReportID != cites[i-1].ReportID && c.ReportID != reports[1].ID {
					t.Errorf("entries out of report order: %s after %s", c.ReportID, cites[i-1].ReportID)
				}
				keys = append(keys, fmt.Sprintf("%s %s %s %s", c.ReportID, c.Engine, c.Answer, c.Path))
			}
			slices.Sort(keys)
			return cites, keys
		}
		check := func(stage string) []traffic.PageCitation {
			t.Helper()
			cites, keys := got("example.com")
			if w := want("example.com", "/api", "/guide", "/post", "/pricing"); !slices.Equal(keys, w) {
				t.Errorf("%s: example.com citations\n%q\nwant\n%q", stage, keys, w)
			}
			if _, keys := got("blog.example.com"); !slices.Equal(keys, want("blog.example.com", "/post")) {
				t.Errorf("%s: blog.example.com citations %q, want /post of each answer only", stage, keys)
			}
			if _, keys := got("notexample.com"); len(keys) != 2*4 {
				t.Errorf("%s: notexample.com citations %q, want /a of each answer", stage, keys)
			}
			return cites
		}
		keyed := check("saved pages")
		exec := func(sql string, args ...any) {
			t.Helper()
			if _, err := storetest.Exec(ctx, s, sql, args...); err != nil {
				t.Fatal(err)
			}
		}
		// A report that is not a completed history report cites nothing.
		for _, set := range []string{"state = 'running'", "one_off = TRUE"} {
			exec(`UPDATE visibility_reports SET `+set+` WHERE id = $1`, reports[1].ID)
			cites, err := b.svc.PageCitations(ctx, b.businessID, "example.com", 0)
			if err != nil || len(cites) != 17 || slices.ContainsFunc(cites, func(c traffic.PageCitation) bool { return c.ReportID != reports[0].ID }) {
				t.Errorf("with the second report's %s: %d citations (%v), want the first report's 17 only", set, len(cites), err)
			}
			exec(`UPDATE visibility_reports SET state = 'completed', one_off = FALSE WHERE id = $1`, reports[1].ID)
		}

		// The first report as saved before its answers kept their pages.
		exec(`UPDATE visibility_reports SET answer_pages = FALSE WHERE id = $1`, reports[0].ID)
		exec(`DELETE FROM visibility_answer_pages WHERE report_id = $1`, reports[0].ID)
		mixed := check("one report from its answers")
		exec(`UPDATE visibility_reports SET answer_pages = FALSE WHERE workspace_id = $1`, b.businessID)
		legacy := check("every report from its answers")
		// The same pages view from either (the order within a report
		// differs: the saved pages come by engine, item, host and path).
		view := func(c []traffic.PageCitation) traffic.PagesReport { return traffic.JoinPages(nil, nil, c) }
		if !reflect.DeepEqual(view(keyed), view(legacy)) || !reflect.DeepEqual(view(mixed), view(legacy)) {
			t.Errorf("saved pages and answers' text give different views:\nsaved %+v\nmixed %+v\ntext  %+v", view(keyed), view(mixed), view(legacy))
		}
	})
}
