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
	// Structured output was asked for.
	if _, ok := judge.asked[0].Options["response_format"]; !ok {
		t.Errorf("the sentiment judge was not asked for a JSON schema response_format")
	}
	// The judge's score is kept inside its label's band.
	if b := analysis.Band(analysis.SentimentNeutral, 95); b.Score != 69 {
		t.Errorf("neutral 95 → %d, want 69", b.Score)
	}
}
