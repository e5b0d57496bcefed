package visibility

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/config"
)

// A tracker prompt takes up to MaxTags tags of up to MaxTagChars
// characters each.
func TestTrackerTagLimitsAllowExactlyTheLimit(t *testing.T) {
	plan := config.Plan{PromptsPerReport: 5}
	tags := func(n, chars int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strings.Repeat("é", chars)
		}
		return out
	}
	for _, tc := range []struct {
		tags []string
		err  string
	}{
		{tags(MaxTags, MaxTagChars), ""},
		{tags(MaxTags+1, 1), "invalid_argument: prompts[0].tags: 11 tags given; the limit is 10"},
		{tags(1, MaxTagChars+1), "invalid_argument: prompts[0].tags[0] is longer than 50 characters"},
	} {
		setup := TrackerSetup{WebsiteURL: "https://example.com", Prompts: []TrackerPrompt{{Text: "best widget supplier", Tags: tc.tags}}}
		_, err := setup.validate(plan, "pro")
		if got := errText(err); got != tc.err {
			t.Errorf("%d tags of %d characters: error %q, want %q", len(tc.tags), len([]rune(tc.tags[0])), got, tc.err)
		}
	}
}

// A cadence the plan does not offer names the plan's cadences, or none.
func TestValidateCadenceNamesThePlansCadences(t *testing.T) {
	if err := validateCadence(CadenceDaily, config.Plan{}, "free"); !strings.Contains(errText(err), "(cadences: none)") {
		t.Errorf("no cadences: %v", err)
	}
	if err := validateCadence(CadenceDaily, config.Plan{TrackerCadences: []string{CadenceWeekly}}, "pro"); !strings.Contains(errText(err), "(cadences: weekly)") {
		t.Errorf("weekly only: %v", err)
	}
	if err := validateCadence(CadenceWeekly, config.Plan{TrackerCadences: []string{CadenceWeekly}}, "pro"); err != nil {
		t.Errorf("weekly on a weekly plan: %v", err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Position weights: 0 when not mentioned, then 1, 0.75, 0.5, 0.25.
func TestWeightByPosition(t *testing.T) {
	for pos, want := range map[int]float64{-1: 0, 0: 0, 1: 1, 2: 0.75, 3: 0.5, 4: 0.25, 9: 0.25} {
		if got := Weight(pos); got != want {
			t.Errorf("Weight(%d) = %v, want %v", pos, got, want)
		}
	}
}

// No competitor recommendation without an answer that names or cites a
// competitor and not the brand: an answer naming only the brand, or no
// brand, gives none.
func TestNoCompetitorRecommendationWithoutACompetitor(t *testing.T) {
	brands := BuildBrands(SelfBrand("Zentrix", "zentrix.co.uk"), []CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	answers := []Answer{{Engine: "gpt", Prompt: "p1", Text: "Zentrix is good."}, {Engine: "gpt", Prompt: "p2", Text: "Nothing to say here."}}
	c := Compute(brands, []string{"gpt"}, answers, nil, nil)
	for _, r := range c.Recommendations {
		if strings.HasPrefix(r.ID, "competitor-") {
			t.Errorf("recommendation %s: %q %v", r.ID, r.Title, r.Evidence)
		}
	}
}
