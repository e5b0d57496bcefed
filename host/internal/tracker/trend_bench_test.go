package tracker

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// BenchmarkTrackerTrend is the trend of one tracker with 50 prompts × 4
// engines × 90 daily runs (18,000 stored answers), default window of 90
// days and 5 answers per prompt and engine, against reading the same rows
// raw (the tracker, its 90 completed reports and the drill-down's answers)
// without decoding or computing. Target: p50 under 100 ms.
func BenchmarkTrackerTrend(b *testing.B) {
	backends := map[string]func(testing.TB) *store.Store{"sqlite": storetest.SQLite}
	if os.Getenv("HERALD_TEST_DATABASE_URL") != "" {
		backends["postgres"] = storetest.Postgres
	}
	for name, open := range backends {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			svc, p, id := trendFixture(b, s)
			ctx := context.Background()
			b.Run("trend", func(b *testing.B) {
				for range b.N {
					tr, err := svc.Trend(ctx, p, id, 90, 5)
					if err != nil || len(tr.Series) != 90 || len(tr.Prompts) != 50 {
						b.Fatalf("trend: %v", err)
					}
				}
			})
			b.Run("raw", func(b *testing.B) {
				for range b.N {
					if _, err := s.GetTracker(ctx, p.WorkspaceID, id); err != nil {
						b.Fatal(err)
					}
					_, runs, err := s.TrackerReports(ctx, p.WorkspaceID, id, svc.now().AddDate(0, 0, -90).UnixMilli())
					if err != nil || len(runs) != 90 {
						b.Fatalf("raw: %d %v", len(runs), err)
					}
					ids := make([]string, 0, 5)
					for i := len(runs) - 1; i >= len(runs)-5; i-- {
						ids = append(ids, runs[i].ID)
					}
					if a, err := s.ReportAnswers(ctx, p.WorkspaceID, ids); err != nil || len(a) != 1000 {
						b.Fatalf("raw answers: %d %v", len(a), err)
					}
					if _, err := s.ListTrafficSites(ctx, p.WorkspaceID); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func trendFixture(b *testing.B, s *store.Store) (*Service, auth.Principal, string) {
	ctx := context.Background()
	ws, _, err := s.EnsureWorkspaceUser(ctx, "bench", "business", "a@bench.test")
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	w, err := traffic.NewWriter(ctx, s, traffic.WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Close)
	visits, err := traffic.New(traffic.Deps{Store: s, Writer: w, BaseURL: "http://herald.test"})
	if err != nil {
		b.Fatal(err)
	}
	svc := &Service{store: s, traffic: visits, now: func() time.Time { return now }, log: hclog.NewNullLogger()}
	engines := []string{"gpt-4o", "claude-sonnet", "gemini-pro", "sonar"}
	brands := analysis.BuildBrands(analysis.SelfBrand("Zentrix", "zentrix.com"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}, {Name: "Initech", Domain: "initech.io"}})
	setup := TrackerSetup{WebsiteURL: "https://zentrix.com/"}
	var answers []analysis.Answer
	for _, e := range engines {
		for i := range 50 {
			text := fmt.Sprintf("For question %d, Globex and Zentrix lead; Initech follows. See https://g2.com/p%d and zentrix.com/pricing.", i, i)
			answers = append(answers, analysis.Answer{Engine: e, Prompt: fmt.Sprintf("prompt %d", i), Text: text})
		}
	}
	for i := range 50 {
		setup.Prompts = append(setup.Prompts, TrackerPrompt{Text: fmt.Sprintf("prompt %d", i), Tags: []string{"bench"}})
	}
	c := scoring.Compute(brands, engines, answers, nil, nil)
	sent := `{"zentrix":{"label":"positive","score":80},"globex":{"label":"neutral","score":50}}`
	sents := make([]map[string]analysis.Sentiment, len(answers))
	for i := range sents {
		sents[i] = analysis.DecodeSentiment(&sent)
	}
	scoring.Extend(&c, brands, engines, answers, sents)
	result, brandsJSON := visibility.MustJSON(c), visibility.MustJSON(brands)
	row := store.Tracker{WorkspaceID: ws.ID, WebsiteURL: setup.WebsiteURL, Input: visibility.MustJSON(setup), Engines: visibility.MustJSON(engines), Cadence: CadenceDaily,
		Active: true, NextRunAt: now.Add(time.Hour).UnixMilli(), CreatedAt: now.AddDate(0, 0, -91).UnixMilli(), UpdatedAt: now.UnixMilli()}
	if err := s.Tx(ctx, func(q store.Querier) error { return s.CreateTracker(ctx, q, &row, 1000) }); err != nil {
		b.Fatal(err)
	}
	for d := 89; d >= 0; d-- {
		at := now.AddDate(0, 0, -d).Add(-time.Minute).UnixMilli()
		done := at + 1000
		r := &store.VisibilityReport{WorkspaceID: ws.ID, WebsiteURL: setup.WebsiteURL, Input: "{}", Engines: visibility.MustJSON(engines), State: store.ReportCompleted,
			Brands: &brandsJSON, Result: &result, CreditsMonth: "2026-01", CreatedAt: at, CompletedAt: &done, TrackerID: &row.ID}
		if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
			b.Fatal(err)
		}
		for _, a := range answers {
			sa := store.VisibilityAnswer{ReportID: r.ID, WorkspaceID: ws.ID, Kind: visibility.KindPrompt, Engine: a.Engine, Item: a.Prompt[len("prompt "):],
				Question: a.Prompt, Text: a.Text, AskedAt: at, Sentiment: &sent, CreatedAt: at}
			if err := s.SaveVisibilityAnswer(ctx, &sa); err != nil {
				b.Fatal(err)
			}
		}
	}
	return svc, auth.Principal{WorkspaceID: ws.ID, Plan: "business"}, row.ID
}
