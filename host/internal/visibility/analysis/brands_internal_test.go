package analysis

import (
	"fmt"
	"testing"
)

func TestItoa(t *testing.T) {
	for i, want := range map[int]string{0: "0", 2: "2", 9: "9", 10: "10", 19: "19", 123: "123"} {
		if got := itoa(i); got != want {
			t.Errorf("itoa(%d) = %q, want %q", i, got, want)
		}
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

// Position weights: 0 when not mentioned, then 1, 0.75, 0.5, 0.25.
func TestWeightByPosition(t *testing.T) {
	for pos, want := range map[int]float64{-1: 0, 0: 0, 1: 1, 2: 0.75, 3: 0.5, 4: 0.25, 9: 0.25} {
		if got := Weight(pos); got != want {
			t.Errorf("Weight(%d) = %v, want %v", pos, got, want)
		}
	}
}
