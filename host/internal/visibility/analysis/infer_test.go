package analysis_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// A competitor given by name only gets the registrable domain among the
// report's sources whose first label is one of its names, so its
// citations count; a domain the user gave always wins.
func TestNameOnlyCompetitorsGetAnInferredDomain(t *testing.T) {
	t.Parallel()
	self := analysis.SelfBrand("Sonos", "sonos.com")
	brands := analysis.BuildBrands(self, analysis.ParseCompetitors([]string{"Bose", "Sony", "Apple (apple.co.uk)", "Jabra"}))
	answers := []analysis.Answer{
		{Engine: "gpt", Prompt: "p", Text: "Bose and Sony lead noise cancelling.", Citations: []analysis.Citation{{URL: "https://www.bose.com/headphones"}, {URL: "https://electronics.sony.com/audio"}}},
		{Engine: "gpt", Prompt: "p", Text: "Apple's AirPods Max are pricey; see https://www.apple.com/airpods-max/ and sony.co.jp/headphones."},
		{Engine: "gpt", Prompt: "p", Text: "Sonos Ace is new.", Citations: []analysis.Citation{{URL: "https://sony.com/x"}}},
		{Engine: "gpt", Prompt: "p", Text: "jabra.com makes solid office headsets."},
	}
	got := analysis.InferDomains(brands, answers)
	inferred := map[string]string{}
	for _, b := range got {
		inferred[b.Slug] = b.InferredDomain
	}
	// Sony: sony.com in two answers beats sony.co.jp in one. Apple: the
	// user's apple.co.uk stays; apple.com is not taken.
	if want := map[string]string{"sonos": "", "bose": "bose.com", "sony": "sony.com", "apple": "", "jabra": "jabra.com"}; !sameMap(inferred, want) {
		t.Fatalf("inferred = %v, want %v", inferred, want)
	}
	if brands[1].InferredDomain != "" || len(brands[1].Domains) != 0 {
		t.Fatal("InferDomains changed its input")
	}

	ms := scoring.ScoreMentions(brands, []string{"gpt"}, answers)
	cited := map[string]bool{}
	evidence := ms.AllEvidence()
	for _, be := range evidence[0] {
		cited[be.Brand] = be.Cited
	}
	if !cited["bose"] || !cited["sony"] {
		t.Errorf("the name-only competitors' citations do not count: %v", cited)
	}
	for _, be := range evidence[1] {
		if be.Brand == "apple" && be.Cited {
			t.Error("apple.com counted for the Apple whose domain the user gave as apple.co.uk")
		}
	}
	// jabra.com, written in prose, is a mention of Jabra and no citation.
	for _, be := range evidence[3] {
		if be.Brand == "jabra" && (!be.Mentioned || be.Cited) {
			t.Errorf("jabra in %q: mentioned %v cited %v", answers[3].Text, be.Mentioned, be.Cited)
		}
	}
	c := scoring.Compute(brands, []string{"gpt"}, answers, nil, nil)
	js, _ := json.Marshal(c.Geo.Brands)
	if !strings.Contains(string(js), `"slug":"bose"`) || !strings.Contains(string(js), `"inferredDomain":"bose.com"`) || strings.Count(string(js), `"inferredDomain"`) != 3 {
		t.Errorf("the report does not show the inferred domains: %s", js)
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
