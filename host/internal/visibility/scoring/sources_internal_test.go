package scoring

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

func TestJoinNamesAndJoinQuoted(t *testing.T) {
	for in, want := range map[string]string{"": "competitors", "A": "A", "A,B": "A and B", "A,B,C": "A, B and C"} {
		var names []string
		if in != "" {
			names = strings.Split(in, ",")
		}
		if got := joinNames(names); got != want {
			t.Errorf("joinNames(%q) = %q, want %q", names, got, want)
		}
	}
	five := []string{"1", "2", "3", "4", "5"}
	if got := joinQuoted(five); got != "1; 2; 3; 4; 5" {
		t.Errorf("joinQuoted(five) = %q, want all five", got)
	}
	if got := joinQuoted(append(five, "6")); got != "1; 2; 3; 4; 5; …" {
		t.Errorf("joinQuoted(six) = %q, want five and …", got)
	}
}

// Sources: no brands, a self brand without a domain, and fewer mention
// lists than answers are read without a self domain or mentions; a
// source of an answer that names no brand is not a gap.
func TestScoreSourcesEdges(t *testing.T) {
	answers := []analysis.Answer{{Engine: "gpt", Prompt: "p", Text: "See g2.com/reviews for reviews."}}
	if got := ScoreSources(nil, answers, nil); got.SelfDomain != "" || got.Answered != 1 || len(got.Table) != 1 || len(got.Gaps) != 0 {
		t.Errorf("no brands: %+v", got)
	}
	brands := analysis.BuildBrands(analysis.SelfBrand("Zentrix", ""), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	if got := ScoreSources(brands, answers, nil); got.SelfDomain != "" || len(got.Gaps) != 0 {
		t.Errorf("self without a domain, no mentions: %+v", got)
	}
	if got := ScoreSources(brands, answers, [][]analysis.Mention{{}}); len(got.Gaps) != 0 {
		t.Errorf("an answer naming no brand made a gap: %+v", got.Gaps)
	}
}

// Extend without sentiments (none judged) leaves sentiment out; with a
// Computed whose mentions are not the answers' it scores them again; with
// no answer there is no source interpretation.
func TestExtendWithoutSentimentsOrMentions(t *testing.T) {
	brands, engines, answers := trackingFixture()
	c, want := Compute(brands, engines, answers, nil, nil), Compute(brands, engines, answers, nil, nil)
	Extend(&want, brands, engines, answers, make([]map[string]analysis.Sentiment, len(answers)))
	c.Mentions = nil
	Extend(&c, brands, engines, answers, nil)
	if show(c.Geo.Brands) != show(want.Geo.Brands) {
		t.Errorf("without mentions or sentiments:\n%s\nwant\n%s", show(c.Geo.Brands), show(want.Geo.Brands))
	}
	missing := []analysis.Answer{{Engine: "gpt", Prompt: "p", Error: "the engine failed"}}
	e := Compute(brands, engines, missing, nil, nil)
	Extend(&e, brands, engines, missing, nil)
	if e.Scores.SourceVisibility == nil || e.Scores.SourceVisibility.Interpretation != nil {
		t.Errorf("no answer: source visibility %+v, want no interpretation", e.Scores.SourceVisibility)
	}
}

// The source-gap recommendation (medium) joins the others by priority,
// keeping the order of equal priorities.
func TestTheGapRecommendationIsSortedInByPriority(t *testing.T) {
	brands, engines, answers := trackingFixture()
	c := Compute(brands, engines, answers, nil, nil)
	c.Recommendations = []Recommendation{{ID: "low", Priority: "low"}, {ID: "m1", Priority: "medium"}, {ID: "m2", Priority: "medium"}, {ID: "high", Priority: "high"}}
	Extend(&c, brands, engines, answers, nil)
	var ids []string
	for _, r := range c.Recommendations {
		ids = append(ids, r.ID)
	}
	if got := fmt.Sprint(ids); got != "[high m1 m2 source-gaps low]" {
		t.Errorf("recommendations = %s", got)
	}
}

// Sources and gaps with as many answers are listed by domain.
func TestSourcesAndGapsTiedOnAnswersAreByDomain(t *testing.T) {
	brands := analysis.BuildBrands(analysis.SelfBrand("Zentrix", "zentrix.co.uk"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	a := analysis.Answer{Engine: "gpt", Prompt: "p", Text: "Globex is the pick."}
	for _, d := range []string{"echo.com", "bravo.com", "delta.com", "alpha.com", "charlie.com"} {
		a.Citations = append(a.Citations, analysis.Citation{URL: "https://" + d + "/x"})
	}
	answers := []analysis.Answer{a}
	src := ScoreSources(brands, answers, ScoreMentions(brands, []string{"gpt"}, answers).Mentions)
	var table, gaps []string
	for _, r := range src.Table {
		table = append(table, r.Domain)
	}
	for _, g := range src.Gaps {
		gaps = append(gaps, g.Domain)
	}
	const want = "[alpha.com bravo.com charlie.com delta.com echo.com]"
	if fmt.Sprint(table) != want || fmt.Sprint(gaps) != want {
		t.Errorf("table %v, gaps %v, want both %s", table, gaps, want)
	}
}
