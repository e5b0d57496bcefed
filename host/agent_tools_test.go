package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

func TestTheAgentReadsAReportsScoresInputsAndAdvice(t *testing.T) {
	t.Parallel()
	meaning, high := "strong", 80.0
	v := &visibility.View{
		CreatedAt: time.UnixMilli(1_700_000_000_000),
		Input: visibility.Input{WebsiteURL: "https://acme.test", Prompts: []string{"best crm"},
			Competitors: []analysis.CompetitorInput{analysis.ParseCompetitor("Globex (globex.test)"), {Name: "Initech"}}},
		Engines: []string{"gpt-4o"},
		Computed: &scoring.Computed{
			Scores: scoring.Scores{
				AIVisibility:        scoring.AIVisibilityScore{Score: 61, Interpretation: &meaning, Providers: map[string]*float64{"gpt-4o": &high}},
				EntityUnderstanding: scoring.EntityUnderstandingScore{Score: 70, Interpretation: "clear"},
				ShareOfVoice:        scoring.ShareOfVoiceScore{Score: 25, Interpretation: "low"},
			},
			Recommendations: []scoring.Recommendation{{ID: "r1", Priority: "high", Title: "Add an about page", Detail: "d", Evidence: []string{"e"}}},
		},
	}
	s := visibilitySnapshot(v)
	if s.Score != 61 || s.ShareOfVoice != 25 || s.Understanding != 70 || s.CreatedAt != 1_700_000_000_000 {
		t.Fatalf("headline %+v", s)
	}
	raw, err := json.Marshal(s.Detail)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"websiteurl":"https://acme.test"`, `"competitors":["Globex (globex.test)","Initech"]`, `"prompts":["best crm"]`,
		`"engines":["gpt-4o"]`, `"aiVisibility":{"score":61,"interpretation":"strong","providers":{"gpt-4o":80}}`,
		`"shareOfVoice":{"score":25,"interpretation":"low"}`, `"recommendations":[{"id":"r1","priority":"high","title":"Add an about page","detail":"d","evidence":["e"]}]`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("%s lacks %s", raw, want)
		}
	}
}
