package visibility

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/sdk"
)

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
	brands := analysis.BuildBrands(analysis.SelfBrand("Zentrix", "zentrix.co.uk"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
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
		got := s.judgeSentiment(context.Background(), "judge", brands, analysis.NewCueIndex(brands), analysis.Answer{Engine: "gpt", Prompt: "q", Text: tc.text})
		for slug, want := range tc.want {
			if g := got[slug]; fmt.Sprintf("%s:%d", g.Label, g.Score) != want {
				t.Errorf("%s: %q → %s = %+v, want %s", tc.label, tc.text, slug, g, want)
			}
		}
	}
	// Without a judge model the cues alone decide: a negative phrase
	// makes its brand negative, every other brand is left out, and the
	// prompt's sentences are never gathered (nothing is asked).
	asked := len(judge.asked)
	for _, tc := range []struct {
		text string
		want map[string]string
	}{
		{"Avoid Globex. Zentrix is the safer choice.", map[string]string{"globex": "negative:20 avoid Globex"}},
		{"Zentrix's outages were long; GLOBEX IS DOWN again.", map[string]string{"globex": "negative:20 Globex is down", "zentrix": "negative:20 Zentrix outage"}},
		{"Globex and Zentrix are both solid picks.", map[string]string{}},
	} {
		got := s.judgeSentiment(context.Background(), "", brands, analysis.NewCueIndex(brands), analysis.Answer{Engine: "gpt", Prompt: "q", Text: tc.text})
		if len(got) != len(tc.want) {
			t.Errorf("no judge: %q → %+v, want %v", tc.text, got, tc.want)
		}
		for slug, want := range tc.want {
			if g := got[slug]; fmt.Sprintf("%s:%d %s", g.Label, g.Score, g.Cue) != want {
				t.Errorf("no judge: %q → %s = %+v, want %s", tc.text, slug, g, want)
			}
		}
	}
	if len(judge.asked) != asked {
		t.Errorf("no judge model, yet the judge was asked %d times", len(judge.asked)-asked)
	}
	// Structured output was asked for.
	if _, ok := judge.asked[0].Options["response_format"]; !ok {
		t.Errorf("the sentiment judge was not asked for a JSON schema response_format")
	}
	// The judge's score is kept inside its label's band.
	if b := analysis.Band(analysis.SentimentNeutral, 95); b.Score != 69 {
		t.Errorf("neutral 95 → %d, want 69", b.Score)
	}
}
