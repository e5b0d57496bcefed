package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// seedTraffic creates a site through the API and records AI visits over
// the last 14 days through the store's event path (the collect route only
// records "now"). It returns the site key and the AI visits recorded.
func (b *bundle) seedTraffic(t testing.TB) (siteKey string, aiVisits int) {
	t.Helper()
	ctx := context.Background()
	created := b.call(t, "POST", "/v1/ai-traffic/sites", `{"domain":"https://www.acme.test/","name":"Acme"}`, 201)
	siteKey = created["siteKey"].(string)
	site, err := b.store.TrafficSiteByKey(ctx, siteKey)
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	sources := []string{"chatgpt", "perplexity", "claude"}
	pages := []string{"/", "/pricing", "/docs/setup"}
	var events []store.TrafficEvent
	n := 0
	for day := 0; day < 14; day++ {
		at := today.AddDate(0, 0, -day).Add(10 * time.Hour).UnixMilli()
		for i, src := range sources {
			// A rising trend with sources of different sizes.
			for v := 0; v < (14-day)/(i+2)+1; v++ {
				n++
				events = append(events, store.TrafficEvent{
					SiteID: site.ID, Kind: store.TrafficPageview, SessionID: fmt.Sprintf("s-%d-%s-%d", day, src, v),
					Path: pages[(v+i)%len(pages)], Title: "Acme", Source: src, DurationMs: -1, ScrollDepth: -1, At: at + int64(v),
				})
			}
		}
		events = append(events,
			store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficPageview, SessionID: fmt.Sprintf("direct-%d", day), Path: "/", DurationMs: -1, ScrollDepth: -1, At: at},
			store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficCrawler, Bot: "GPTBot", Path: "/", DurationMs: -1, ScrollDepth: -1, At: at},
			store.TrafficEvent{SiteID: site.ID, Kind: store.TrafficCrawler, Bot: "ClaudeBot", Path: "/docs", DurationMs: -1, ScrollDepth: -1, At: at})
	}
	if _, err := traffic.Record(ctx, b.store, events); err != nil {
		t.Fatal(err)
	}
	return siteKey, n
}

// seedReports stores two completed visibility reports a week apart,
// scored by visibility.Compute over stored answers, as a finished report
// job leaves them.
func (b *bundle) seedReports(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	engines := []string{"gpt", "claude"}
	brands := []analysis.Brand{
		{Name: "Acme", Slug: "acme", Self: true, Aliases: []string{"Acme"}, Domains: []string{"acme.test"}},
		{Name: "Globex Corp", Slug: "globex_corp", Aliases: []string{"Globex Corp", "Globex"}},
		{Name: "initech.io", Slug: "initech_io", Aliases: []string{"Initech"}, Domains: []string{"initech.io"}},
	}
	prompts := []string{"best widget supplier", "widgets for factories"}
	runs := [][]string{
		{"Globex Corp is the leader; Acme is fine.", "I would pick Globex Corp.", "Initech and Globex.", "Globex Corp, then Initech."},
		// "The best known is Acme." (not "Acme is …"): acme is an ordinary
		// word, which at a sentence's start counts only on a judge's
		// verdict under the mention rules of scoring version 2.
		{"Top picks: Acme, Globex Corp and Initech.", "Acme (https://acme.test) is great.", "The best known is Acme.", "Globex Corp is the leader; see https://initech.io/widgets."},
	}
	in, _ := json.Marshal(visibility.Input{WebsiteURL: "https://acme.test", Competitors: analysis.ParseCompetitors([]string{"Globex Corp", "https://initech.io"}), Prompts: prompts})
	eng, _ := json.Marshal(engines)
	br, _ := json.Marshal(brands)
	for i, texts := range runs {
		created := time.Now().Add(time.Duration(i-1) * 7 * 24 * time.Hour).UnixMilli()
		r := &store.VisibilityReport{WorkspaceID: b.ws.ID, State: store.ReportCompleted, WebsiteURL: "https://acme.test",
			Input: string(in), Engines: string(eng), Brands: ptr(string(br)), Site: ptr(`{}`), CreditsMonth: "2026-01", CreatedAt: created, CompletedAt: &created}
		if err := b.store.CreateVisibilityReport(ctx, nil, r); err != nil {
			t.Fatal(err)
		}
		var answers []analysis.Answer
		for e, engine := range engines {
			for p, prompt := range prompts {
				text := texts[e*2+p]
				answers = append(answers, analysis.Answer{Engine: engine, Prompt: prompt, Text: text, Citations: []analysis.Citation{}})
				if err := b.store.SaveVisibilityAnswer(ctx, &store.VisibilityAnswer{ReportID: r.ID, WorkspaceID: b.ws.ID, Kind: "prompt",
					Engine: engine, Item: fmt.Sprint(p), Question: prompt, Text: text, Model: ptr(engine), Citations: "[]", AskedAt: created, CreatedAt: created}); err != nil {
					t.Fatal(err)
				}
			}
		}
		result, _ := json.Marshal(scoring.Compute(brands, engines, answers, nil, nil))
		if err := b.store.UpdateVisibilityReport(ctx, b.ws.ID, r.ID, store.ReportUpdate{Result: ptr(string(result))}); err != nil {
			t.Fatal(err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
