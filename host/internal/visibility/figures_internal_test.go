package visibility

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// The tracking figures of docs/METRICS.md, to the decimal, on scripted
// answers: Zentrix (zentrix.co.uk) against Globex (globex.com).
func trackingFixture() ([]Brand, []string, []Answer) {
	brands := BuildBrands(SelfBrand("Zentrix", "zentrix.co.uk"), []CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	answers := []Answer{
		{Engine: "gpt", Prompt: "p1", Text: "Zentrix and Globex are both good. See https://blog.zentrix.co.uk/post and g2.com/zentrix."},
		{Engine: "gpt", Prompt: "p2", Text: "Globex leads; Zentrix follows.",
			Citations: []Citation{{URL: "https://www.g2.com/globex"}, {URL: "https://g2.com/x"}}},
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
	pos, neg := Sentiment{Label: SentimentPositive, Score: 80}, Sentiment{Label: SentimentNegative, Score: 20}
	sentiments := []map[string]Sentiment{
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
	brands := BuildBrands(SelfBrand("Zentrix", "zentrix.com"), []CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	var answers []Answer
	// site<i>.com is retrieved by i answers naming Globex only.
	for i := 1; i <= 12; i++ {
		for j := 0; j < i; j++ {
			answers = append(answers, Answer{Engine: "gpt", Prompt: fmt.Sprintf("q%d-%d", i, j), Text: fmt.Sprintf("Globex. https://site%02d.com/", i)})
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

// sentimentJudge answers positive 80 for every brand, whatever the text:
// the cues must still make "avoid X" and "X has had outages" negative.
type sentimentJudge struct{ asked []sdk.TextRequest }

func (j *sentimentJudge) Models() []string { return []string{"judge"} }

func (j *sentimentJudge) GenerateText(_ context.Context, _ string, req sdk.TextRequest) (sdk.TextResponse, error) {
	j.asked = append(j.asked, req)
	var out []map[string]any
	for _, slug := range []string{"zentrix", "globex"} {
		if strings.Contains(req.Prompt, `Brand "`+slug+`"`) {
			out = append(out, map[string]any{"brand": slug, "label": "positive", "score": 80})
		}
	}
	b, _ := json.Marshal(map[string]any{"brands": out})
	return sdk.TextResponse{Text: string(b)}, nil
}

func TestSentimentAvoidAndOutagesAreNegative(t *testing.T) {
	brands, _, _ := trackingFixture()
	judge := &sentimentJudge{}
	s := &Service{models: judge, log: hclog.NewNullLogger()}
	for _, tc := range []struct {
		text  string
		want  map[string]string
		label string
	}{
		{"Avoid Globex. Zentrix is the safer choice.", map[string]string{"globex": "negative:20", "zentrix": "positive:80"}, "avoid X"},
		{"Globex has had outages this year, while Zentrix has not.", map[string]string{"globex": "negative:20", "zentrix": "positive:80"}, "X has had outages"},
		{"I would avoid using Globex for this.", map[string]string{"globex": "negative:20"}, "avoid using X"},
		{"Globex and Zentrix are both solid picks.", map[string]string{"globex": "positive:80", "zentrix": "positive:80"}, "no cue"},
	} {
		got := s.judgeSentiment(context.Background(), "judge", brands, Answer{Engine: "gpt", Prompt: "q", Text: tc.text})
		for slug, want := range tc.want {
			if g := got[slug]; fmt.Sprintf("%s:%d", g.Label, g.Score) != want {
				t.Errorf("%s: %q → %s = %+v, want %s", tc.label, tc.text, slug, g, want)
			}
		}
	}
	// Structured output was asked for.
	if _, ok := judge.asked[0].Options["response_format"]; !ok {
		t.Errorf("the sentiment judge was not asked for a JSON schema response_format")
	}
	// The judge's score is kept inside its label's band.
	if b := Band(SentimentNeutral, 95); b.Score != 69 {
		t.Errorf("neutral 95 → %d, want 69", b.Score)
	}
}

func TestTrafficJoinCarriesTheLastRunForward(t *testing.T) {
	const d0 = int64(20000) // epoch day of the window's first day
	run := func(day int64, vis map[string]float64) trendRun {
		engines := map[string]BrandEngineFigures{}
		for e, v := range vis {
			engines[e] = BrandEngineFigures{Visibility: v}
		}
		return trendRun{report: store.VisibilityReport{CreatedAt: day*86400000 + 3600000},
			computed: Computed{Geo: Geo{Brands: []BrandFigures{{BrandScore: BrandScore{Slug: "zentrix", Self: true}, Engines: engines}}}}}
	}
	runs := []trendRun{
		run(d0-3, map[string]float64{"gpt-4o": 10}), // before the window: carried in
		run(d0+1, map[string]float64{"gpt-4o": 50, "claude-sonnet": 20, "mystery": 99}),
		run(d0+4, map[string]float64{"gpt-4o": 70}),
	}
	visits := map[int64]map[string]int64{d0 + 1: {"chatgpt": 5}, d0 + 4: {"chatgpt": 7, "perplexity": 9}, d0 + 2: {"claude": 3}}
	s := &Service{}
	j := joinTraffic("site", "zentrix.com", s.engineSource, runs, visits, d0, 10)
	if _, ok := j.Totals["mystery"]; ok {
		t.Errorf("an engine with no AI traffic source is joined: %s", show(j.Totals))
	}
	var gpt, claude []string
	for _, d := range j.Days {
		g, c := d.Engines["gpt-4o"], d.Engines["claude-sonnet"]
		gpt = append(gpt, fmt.Sprintf("%s/%v/%d", show(g.Visibility), g.Carried, g.Visits))
		claude = append(claude, fmt.Sprintf("%s/%d", show(c.Visibility), c.Visits))
	}
	if got := strings.Join(gpt, " "); got != "10/true/0 50/false/5 50/true/0 50/true/0 70/false/7 70/true/0 70/true/0 70/true/0 70/true/0 70/true/0" {
		t.Errorf("gpt-4o (chatgpt) days = %s", got)
	}
	if got := strings.Join(claude, " "); got != "null/0 20/0 20/3 20/0 20/0 20/0 20/0 20/0 20/0 20/0" {
		t.Errorf("claude-sonnet (claude) days = %s", got)
	}
	g := j.Change["gpt-4o"]
	// First 7 days: (10 + 3×50 + 3×70) / 7 = 52.857; last 7: (50 + 6×70)
	// / 7 = 67.143; change 14.3. Visits 12 → 7: −5.
	if g.Source != "chatgpt" || show(g.VisibilityFirst7) != "52.9" || show(g.VisibilityLast7) != "67.1" || show(g.VisibilityChange) != "14.3" ||
		g.VisitsFirst7 != 12 || g.VisitsLast7 != 7 || g.VisitsChange != -5 {
		t.Errorf("gpt-4o change = %s", show(g))
	}
	if tot := j.Totals["gpt-4o"]; tot.Visits != 12 || show(tot.MeanVisibility) != "58" {
		t.Errorf("gpt-4o totals = %s, want 12 visits, mean 58", show(tot))
	}
	if c := j.Change["claude-sonnet"]; c.Source != "claude" || show(c.VisibilityChange) != "0" || c.VisitsChange != -3 {
		t.Errorf("claude-sonnet change = %s", show(c))
	}
}
