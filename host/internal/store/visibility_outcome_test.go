package store_test

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestNoAnswerOutcomeIsStored: an answer the engine did not give (a search
// without an AI Overview) keeps its outcome through a save, a replace, the
// list and the cache, on every store.
func TestNoAnswerOutcomeIsStored(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := &store.VisibilityReport{WorkspaceID: "acme", WebsiteURL: "https://acme.com/", Input: `{}`, Engines: `["google-ai-overview"]`, CreditsMonth: "2026-12", CreditsReserved: 2, CreatedAt: 1000}
		if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
			t.Fatal(err)
		}
		for _, a := range []store.VisibilityAnswer{
			{ReportID: r.ID, WorkspaceID: "acme", Kind: "prompt", Engine: "google-ai-overview", Item: "0", Question: "crm for factories", Outcome: store.AnswerNoAnswer, AskedAt: 2000},
			{ReportID: r.ID, WorkspaceID: "acme", Kind: "prompt", Engine: "google-ai-overview", Item: "1", Question: "best crm", Text: "Acme.", AskedAt: 2000},
		} {
			if err := s.SaveVisibilityAnswer(ctx, &a); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.ListVisibilityAnswers(ctx, "acme", r.ID, "prompt")
		if err != nil || len(got) != 2 {
			t.Fatalf("list = %v, %v", got, err)
		}
		for _, a := range got {
			if want := map[string]string{"0": store.AnswerNoAnswer, "1": ""}[a.Item]; a.Outcome != want {
				t.Errorf("item %s: outcome %q, want %q", a.Item, a.Outcome, want)
			}
		}
		c, err := s.CachedVisibilityAnswer(ctx, "acme", "next", "prompt", "google-ai-overview", "crm for factories", 0, 0)
		if err != nil || c.Outcome != store.AnswerNoAnswer || c.Text != "" {
			t.Errorf("from the cache: %+v, %v", c, err)
		}
		// Asked again with an overview shown: the replace clears the outcome.
		again := store.VisibilityAnswer{ReportID: r.ID, WorkspaceID: "acme", Kind: "prompt", Engine: "google-ai-overview", Item: "0", Question: "crm for factories", Text: "Acme.", AskedAt: 3000}
		if err := s.SaveVisibilityAnswer(ctx, &again); err != nil {
			t.Fatal(err)
		}
		got, _ = s.ListVisibilityAnswers(ctx, "acme", r.ID, "prompt")
		for _, a := range got {
			if a.Outcome != "" {
				t.Errorf("item %s: outcome %q after the replace", a.Item, a.Outcome)
			}
		}
	})
}
