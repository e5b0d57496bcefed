package visibility

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/site"
)

func TestItoaJoinNamesAndJoinQuoted(t *testing.T) {
	for i, want := range map[int]string{0: "0", 2: "2", 9: "9", 10: "10", 19: "19", 123: "123"} {
		if got := itoa(i); got != want {
			t.Errorf("itoa(%d) = %q, want %q", i, got, want)
		}
	}
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

// A competitor's domain needs a dot with letters after it and something
// before it.
func TestCompetitorDomainNeedsALabelBeforeTheDot(t *testing.T) {
	for in, want := range map[string]bool{"globex.com": true, ".com": false, "globex.": false, "Globex Corp": false, "https://globex.com/x": true} {
		if _, ok := CompetitorDomain(in); ok != want {
			t.Errorf("competitorDomain(%q) ok = %v, want %v", in, ok, want)
		}
	}
}

// Brands whose names differ but slug alike get _2, _3 in order, the
// brand's own slug included (a competitor sharing it was counted as the
// brand).
func TestBuildBrandsNumbersClashingSlugs(t *testing.T) {
	brands := BuildBrands(SelfBrand("Acme Co", "acme.com"), []CompetitorInput{{Name: "Acme-Co"}, {Name: "Acme_Co"}, {Name: "Acme.Co"}})
	var slugs []string
	for _, b := range brands {
		slugs = append(slugs, b.Slug)
	}
	if got := fmt.Sprint(slugs); got != "[acme_co acme_co_2 acme_co_3 acme_co_4]" {
		t.Errorf("slugs = %s", got)
	}
}

// The site's category: its first H1, else the title's tail, else the
// description.
func TestSiteCategoryIsTheH1ElseTheTitleTailElseTheDescription(t *testing.T) {
	for _, tc := range []struct {
		f    site.Facts
		want string
	}{
		{site.Facts{H1s: []string{"Widgets"}, Title: "Acme | Gadgets", Description: "Tools"}, "Widgets"},
		{site.Facts{Title: "Acme | Gadgets", Description: "Tools"}, "Gadgets"},
		{site.Facts{Title: "Acme", Description: "Tools"}, "Tools"},
	} {
		if got := siteCategory(tc.f); got != tc.want {
			t.Errorf("siteCategory(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// Sources: no brands, a self brand without a domain, and fewer mention
// lists than answers are read without a self domain or mentions; a
// source of an answer that names no brand is not a gap.
func TestScoreSourcesEdges(t *testing.T) {
	answers := []Answer{{Engine: "gpt", Prompt: "p", Text: "See g2.com/reviews for reviews."}}
	if got := ScoreSources(nil, answers, nil); got.SelfDomain != "" || got.Answered != 1 || len(got.Table) != 1 || len(got.Gaps) != 0 {
		t.Errorf("no brands: %+v", got)
	}
	brands := BuildBrands(SelfBrand("Zentrix", ""), []CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	if got := ScoreSources(brands, answers, nil); got.SelfDomain != "" || len(got.Gaps) != 0 {
		t.Errorf("self without a domain, no mentions: %+v", got)
	}
	if got := ScoreSources(brands, answers, [][]Mention{{}}); len(got.Gaps) != 0 {
		t.Errorf("an answer naming no brand made a gap: %+v", got.Gaps)
	}
}

// A brand named at the answer's first word keeps that position: a later
// occurrence does not move it behind a brand named in between.
func TestABrandAtTheFirstWordKeepsItsPosition(t *testing.T) {
	brands := BuildBrands(SelfBrand("Zentrix", "zentrix.co.uk"), []CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	ms := NewMatcher(brands).Mentions(Answer{Engine: "gpt", Text: "Zentrix beats Globex, and Zentrix is cheaper."})
	if len(ms) != 2 || ms[0].Brand != "zentrix" || ms[0].Position != 1 || ms[1].Brand != "globex" || ms[1].Position != 2 {
		t.Errorf("mentions = %+v", ms)
	}
}

// At most maxJudged occurrences of one brand wait for the judge; the
// others are counted unjudged.
func TestAtMostMaxJudgedOccurrencesAreAsked(t *testing.T) {
	brands := BuildBrands(SelfBrand("Acme", "acme.com"), []CompetitorInput{{Name: "Monday", Domain: "monday.com"}})
	text := "Monday is fine. Monday is good. Monday works well. Monday again here. Monday rocks today."
	a := NewMatcher(brands).Analyze(Answer{Engine: "gpt", Text: text})
	if len(a.Pending) != maxJudged || a.Brands[1].Unjudged != 5 {
		t.Errorf("pending %d (want %d), unjudged %d (want 5): %+v", len(a.Pending), maxJudged, a.Brands[1].Unjudged, a.Pending)
	}
}

// Extend without sentiments (none judged) leaves sentiment out; with a
// Computed whose mentions are not the answers' it scores them again; with
// no answer there is no source interpretation.
func TestExtendWithoutSentimentsOrMentions(t *testing.T) {
	brands, engines, answers := trackingFixture()
	c, want := Compute(brands, engines, answers, nil, nil), Compute(brands, engines, answers, nil, nil)
	Extend(&want, brands, engines, answers, make([]map[string]Sentiment, len(answers)))
	c.Mentions = nil
	Extend(&c, brands, engines, answers, nil)
	if show(c.Geo.Brands) != show(want.Geo.Brands) {
		t.Errorf("without mentions or sentiments:\n%s\nwant\n%s", show(c.Geo.Brands), show(want.Geo.Brands))
	}
	missing := []Answer{{Engine: "gpt", Prompt: "p", Error: "the engine failed"}}
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
	brands := BuildBrands(SelfBrand("Zentrix", "zentrix.co.uk"), []CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
	a := Answer{Engine: "gpt", Prompt: "p", Text: "Globex is the pick."}
	for _, d := range []string{"echo.com", "bravo.com", "delta.com", "alpha.com", "charlie.com"} {
		a.Citations = append(a.Citations, Citation{URL: "https://" + d + "/x"})
	}
	answers := []Answer{a}
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
