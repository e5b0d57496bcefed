package scoring_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// TestNoAnswerIsNeitherAZeroNorAFailure: a Google search without an AI
// Overview is counted apart (noAnswer), left out of the means as a missing
// answer is, and does not set the engine's error.
func TestNoAnswerIsNeitherAZeroNorAFailure(t *testing.T) {
	t.Parallel()
	brands := analysis.BuildBrands(analysis.SelfBrand("Acme", "acme.com"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	answers := []analysis.Answer{
		{Engine: "google-ai-overview", Prompt: "best crm", Text: "The best CRM is Acme."},
		{Engine: "google-ai-overview", Prompt: "cheap crm", NoAnswer: true},
		{Engine: "gpt", Prompt: "best crm", Text: "Try Acme."},
		{Engine: "gpt", Prompt: "cheap crm", Error: "gpt: unavailable"},
	}
	ms := scoring.ScoreMentions(brands, []string{"google-ai-overview", "gpt"}, answers)
	if v := ms.Providers["google-ai-overview"]; v == nil || *v != 100 {
		t.Errorf("google-ai-overview visibility %v, want 100 over its one answer (the search without an overview is no zero)", v)
	}
	if ms.Visibility != 100 {
		t.Errorf("visibility %v, want 100", ms.Visibility)
	}
	want := map[string]scoring.EngineStatus{
		"google-ai-overview": {Engine: "google-ai-overview", Planned: 2, Answered: 1, NoAnswer: 1},
		"gpt":                {Engine: "gpt", Planned: 2, Answered: 1, Missing: 1},
	}
	for _, e := range ms.Engines {
		w := want[e.Engine]
		if e.Planned != w.Planned || e.Answered != w.Answered || e.Missing != w.Missing || e.NoAnswer != w.NoAnswer || (e.Error != nil) != (w.Missing > 0) {
			t.Errorf("%s: %+v, want %+v", e.Engine, e, w)
		}
	}
}
