package scoring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// The tracking figures of docs/METRICS.md, to the decimal, on scripted
// answers: Zentrix (zentrix.co.uk) against Globex (globex.com).
func trackingFixture() ([]analysis.Brand, []string, []analysis.Answer) {
	brands := analysis.BuildBrands(analysis.SelfBrand("Zentrix", "zentrix.co.uk"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	answers := []analysis.Answer{
		{Engine: "gpt", Prompt: "p1", Text: "Zentrix and Globex are both good. See https://blog.zentrix.co.uk/post and g2.com/zentrix."},
		{Engine: "gpt", Prompt: "p2", Text: "Globex leads; Zentrix follows.",
			Citations: []analysis.Citation{{URL: "https://www.g2.com/globex"}, {URL: "https://g2.com/x"}}},
		{Engine: "claude", Prompt: "p1", Text: "Avoid Globex. See capterra.com/globex for reviews."},
		{Engine: "claude", Prompt: "p2", Text: "Globex has had outages; read trustradius.com/reviews and capterra.com/x first."},
		{Engine: "claude", Prompt: "p3", Error: "the engine failed"},
	}
	return brands, []string{"gpt", "claude"}, answers
}

func fptr(f float64) *float64 { return &f }

func show(v any) string {
	if p, ok := v.(*float64); ok {
		if p == nil {
			return "null"
		}
		return fmt.Sprint(*p)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestTrackingFiguresToTheDecimal(t *testing.T) {
	brands, engines, answers := trackingFixture()
	c := Compute(brands, engines, answers, nil, nil)
	// The judge said positive 80 everywhere except Globex in the claude
	// answers, which the cues made negative (20).
	pos, neg := analysis.Sentiment{Label: analysis.SentimentPositive, Score: 80}, analysis.Sentiment{Label: analysis.SentimentNegative, Score: 20}
	sentiments := []map[string]analysis.Sentiment{
		{"zentrix": pos, "globex": pos}, {"zentrix": pos, "globex": pos}, {"globex": neg}, {"globex": neg}, nil,
	}
	Extend(&c, brands, engines, answers, sentiments)
	zentrix, globex := c.Geo.Brands[0], c.Geo.Brands[1]
	for _, tc := range []struct {
		name string
		got  *float64
		want *float64
	}{
		// avgPosition: Zentrix pos 1 (p1 gpt) and 2 (p2 gpt) → 1.5; Globex
		// 2, 1, 1, 1 → 1.25 → 1.3.
		{"avgPosition(Zentrix)", zentrix.AvgPosition, fptr(1.5)},
		{"avgPosition(Globex)", globex.AvgPosition, fptr(1.3)},
		{"avgPosition(Zentrix) on claude (not mentioned)", zentrix.Engines["claude"].AvgPosition, nil},
		{"avgPosition(Globex) on gpt", globex.Engines["gpt"].AvgPosition, fptr(1.5)},
		{"avgPosition(Globex) on claude", globex.Engines["claude"].AvgPosition, fptr(1)},
		// sentiment: Globex (80 + 80 + 20 + 20) / 4 = 50; per engine gpt
		// 80, claude 20; Zentrix 80.
		{"sentiment(Globex)", globex.Sentiment, fptr(50)},
		{"sentiment(Globex) on claude", globex.Engines["claude"].Sentiment, fptr(20)},
		{"sentiment(Globex) on gpt", globex.Engines["gpt"].Sentiment, fptr(80)},
		{"sentiment(Zentrix)", zentrix.Sentiment, fptr(80)},
		{"sentiment(Zentrix) on claude (no mention)", zentrix.Engines["claude"].Sentiment, nil},
	} {
		if show(tc.got) != show(tc.want) {
			t.Errorf("%s = %s, want %s", tc.name, show(tc.got), show(tc.want))
		}
	}
	// Per engine share of voice: claude answers name Globex twice and
	// Zentrix never → 100; gpt 2 of 4 → 50.
	if g := globex.Engines["claude"]; g.ShareOfVoice != 100 || g.MentionRate != 100 || g.Visibility != 100 {
		t.Errorf("Globex on claude = %+v", g)
	}
	if g := globex.Engines["gpt"]; g.ShareOfVoice != 50 || g.Visibility != 87.5 {
		t.Errorf("Globex on gpt = %+v (visibility (0.75 + 1) / 2 = 87.5)", g)
	}
	// Sources over the 4 answers (the missing one is left out): the
	// registrable domain by the public-suffix list (blog.zentrix.co.uk →
	// zentrix.co.uk, not co.uk); g2.com in 2 answers with 1 and 2 URLs →
	// retrieved 50, citations 1.5.
	want := `[{"domain":"capterra.com","kind":"other","retrieved":50,"citations":1,"answers":2},` +
		`{"domain":"g2.com","kind":"other","retrieved":50,"citations":1.5,"answers":2},` +
		`{"domain":"trustradius.com","kind":"other","retrieved":25,"citations":1,"answers":1},` +
		`{"domain":"zentrix.co.uk","kind":"self","brand":"zentrix","retrieved":25,"citations":1,"answers":1}]`
	if got := show(c.Sources); got != want {
		t.Errorf("sources =\n%s\nwant\n%s", got, want)
	}
	if sv := c.Scores.SourceVisibility; sv == nil || sv.Score != 25 || sv.Domain != "zentrix.co.uk" {
		t.Errorf("sourceVisibility = %s, want 25 on zentrix.co.uk", show(sv))
	}
	// Gaps: other domains in answers naming Globex and not Zentrix (both
	// claude answers): capterra.com (2) before trustradius.com (1); g2.com
	// is not a gap (its answers name Zentrix).
	wantGaps := `[{"domain":"capterra.com","answers":2,"competitors":["Globex"],"prompts":["\"p1\" (claude)","\"p2\" (claude)"]},` +
		`{"domain":"trustradius.com","answers":1,"competitors":["Globex"],"prompts":["\"p2\" (claude)"]}]`
	if got := show(c.SourceGaps); got != wantGaps {
		t.Errorf("sourceGaps =\n%s\nwant\n%s", got, wantGaps)
	}
	found := false
	for _, r := range c.Recommendations {
		if r.ID == "source-gaps" {
			found = strings.Contains(r.Evidence[0], "engines that mention Globex cite capterra.com")
		}
	}
	if !found {
		t.Errorf("no source-gaps recommendation citing capterra.com: %s", show(c.Recommendations))
	}
}

func TestSourceGapsAreTheTopTen(t *testing.T) {
	brands := analysis.BuildBrands(analysis.SelfBrand("Zentrix", "zentrix.com"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	var answers []analysis.Answer
	// site<i>.com is retrieved by i answers naming Globex only.
	for i := 1; i <= 12; i++ {
		for j := 0; j < i; j++ {
			answers = append(answers, analysis.Answer{Engine: "gpt", Prompt: fmt.Sprintf("q%d-%d", i, j), Text: fmt.Sprintf("Globex. https://site%02d.com/", i)})
		}
	}
	src := ScoreSources(brands, answers, ScoreMentions(brands, []string{"gpt"}, answers).Mentions)
	if len(src.Gaps) != 10 || src.Gaps[0].Domain != "site12.com" || src.Gaps[0].Answers != 12 || src.Gaps[9].Domain != "site03.com" {
		t.Fatalf("gaps = %s", show(src.Gaps))
	}
}

func TestChangeIsTheDifferenceWithThePreviousRun(t *testing.T) {
	c := Computed{Scores: Scores{AIVisibility: AIVisibilityScore{Score: 58.3}, ShareOfVoice: ShareOfVoiceScore{Score: 33.3},
		EntityUnderstanding: EntityUnderstandingScore{Score: 60}, SourceVisibility: &SourceVisibilityScore{Score: 25}}}
	ApplyChange(&c, nil, nil)
	if c.Scores.AIVisibility.Change != nil || c.Scores.SourceVisibility.Change != nil {
		t.Fatalf("the first run has a change: %s", show(c.Scores))
	}
	prev := Computed{Scores: Scores{AIVisibility: AIVisibilityScore{Score: 41.7}, ShareOfVoice: ShareOfVoiceScore{Score: 50},
		EntityUnderstanding: EntityUnderstandingScore{Score: 60}, SourceVisibility: &SourceVisibilityScore{Score: 37.5}}}
	ApplyChange(&c, &prev, nil)
	got := []string{show(c.Scores.AIVisibility.Change.Value), show(c.Scores.ShareOfVoice.Change.Value), show(c.Scores.EntityUnderstanding.Change.Value), show(c.Scores.SourceVisibility.Change.Value)}
	if strings.Join(got, " ") != "16.6 -16.7 0 -12.5" {
		t.Fatalf("changes = %v, want 16.6 -16.7 0 -12.5", got)
	}
}

// No competitor recommendation without an answer that names or cites a
// competitor and not the brand: an answer naming only the brand, or no
// brand, gives none.
func TestNoCompetitorRecommendationWithoutACompetitor(t *testing.T) {
	brands := analysis.BuildBrands(analysis.SelfBrand("Zentrix", "zentrix.co.uk"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	answers := []analysis.Answer{{Engine: "gpt", Prompt: "p1", Text: "Zentrix is good."}, {Engine: "gpt", Prompt: "p2", Text: "Nothing to say here."}}
	c := Compute(brands, []string{"gpt"}, answers, nil, nil)
	for _, r := range c.Recommendations {
		if strings.HasPrefix(r.ID, "competitor-") {
			t.Errorf("recommendation %s: %q %v", r.ID, r.Title, r.Evidence)
		}
	}
}
