package seo

import (
	"math"
	"strings"
	"testing"
)

// The SEO score is the points of every check over 9 for each check; with
// a keyphrase the function-word check is one more check that earns 0.
func TestSEOScoreCountsTheFunctionWordCheck(t *testing.T) {
	t.Parallel()
	nine := []Assessment{{Score: 9}, {Score: 9}}
	if got := seoScore(nine, true); got != 67 { // 18 of 27
		t.Errorf("two 9s with a keyphrase: %d, want 67", got)
	}
	if got := seoScore(nine, false); got != 100 {
		t.Errorf("two 9s without a keyphrase: %d, want 100", got)
	}
	// A keyphrase of function words: the check is there, with 0 points,
	// and is not counted twice.
	fw := []Assessment{{Score: 9}, {ID: "keyphrase-function-words", Score: 0}}
	if got := seoScore(fw, true); got != 50 {
		t.Errorf("9 and the function-word warning: %d, want 50", got)
	}
	if got := seoScore(nil, false); got != 0 {
		t.Errorf("no checks: %d, want 0", got)
	}
	if got := seoScore([]Assessment{{Score: -50}, {Score: 9}}, true); got != 0 {
		t.Errorf("below zero: %d, want 0", got)
	}

	// Through Score: the SEO score of a real text is its checks' points
	// over one more check than it lists.
	r := mustScore(t, Input{Content: withKeyphrase("garden rakes", 3, 320), Keywords: []string{"garden rakes"}, Title: "Garden rakes"})
	sum, n := 0, 0
	for _, a := range r.Assessments {
		if a.Category == CategorySEO {
			sum += a.Score
			n++
		}
	}
	want := int(math.Round(float64(sum) * 100 / float64(9*(n+1))))
	if r.SEO.Score != want || r.SEO.Rating != lightOf(want) {
		t.Errorf("SEO score %d %s, want %d (%d points over %d+1 checks)", r.SEO.Score, r.SEO.Rating, want, sum, n)
	}
}

// A keyphrase of function words gets the warning with 0 points, as
// Yoast's check: it lowers the score by being one more check.
func TestFunctionWordKeyphraseEarnsNothing(t *testing.T) {
	t.Parallel()
	a := idOf(t, Input{Content: filler(120), Keywords: []string{"the"}, Language: "en"}, "keyphrase-function-words")
	if a.Score != 0 || a.Rating != Bad {
		t.Errorf("function-word keyphrase: %s %d, want bad 0", a.Rating, a.Score)
	}
}

// The readability score is 90, 60 or 30 by the penalty points of the
// checks (ok 2, bad 3 in a language with every check; bad 4 and lower
// bands otherwise), and 0 for one check or none.
func TestReadabilityScoreByPenalty(t *testing.T) {
	t.Parallel()
	mk := func(ratings ...string) []Assessment {
		out := []Assessment{{Rating: Good}}
		for _, r := range ratings {
			out = append(out, Assessment{Rating: r})
		}
		return out
	}
	for _, c := range []struct {
		name   string
		checks []Assessment
		full   bool
		want   int
	}{
		{"full, all good", mk(Good), true, 90},
		{"full, two ok (4)", mk(OK, OK), true, 90},
		{"full, ok and bad (5)", mk(OK, Bad), true, 60},
		{"full, two bad (6)", mk(Bad, Bad), true, 60},
		{"full, bad and two ok (7)", mk(Bad, OK, OK), true, 30},
		{"partial, one ok (2)", mk(OK), false, 90},
		{"partial, one bad (4)", mk(Bad), false, 60},
		{"partial, two ok (4)", mk(OK, OK), false, 60},
		{"partial, bad and ok (6)", mk(Bad, OK), false, 30},
		{"one check", []Assessment{{Rating: Bad}}, true, 0},
		{"no checks", nil, true, 0},
	} {
		if got := readabilityScore(c.checks, c.full); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// Through Score: a readable English text scores 90 and is good; the
	// same text with no language detected (partial support) and one bad
	// check (every sentence starts "word") scores 60.
	en := mustScore(t, Input{Content: filler(120), Language: "en"})
	if en.Readability.Score != 90 || en.Readability.Rating != Good {
		t.Errorf("English: %d %s, want 90 good", en.Readability.Score, en.Readability.Rating)
	}
	unknown := mustScore(t, Input{Content: filler(120)})
	if unknown.Readability.Score != 60 || unknown.Readability.Rating != OK {
		t.Errorf("unknown language: %d %s, want 60 ok", unknown.Readability.Score, unknown.Readability.Rating)
	}
	if en.Score != int(math.Round(float64(en.SEO.Score+en.Readability.Score)/2)) {
		t.Errorf("score %d is not the mean of %d and %d", en.Score, en.SEO.Score, en.Readability.Score)
	}
}

func TestLightBands(t *testing.T) {
	t.Parallel()
	for score, want := range map[int]string{90: Good, 71: Good, 70: OK, 60: OK, 41: OK, 40: Bad, 30: Bad, 0: Bad} {
		if got := lightOf(score); got != want {
			t.Errorf("%d: %s, want %s", score, got, want)
		}
	}
}

// The keyphrase density divides by the words with a hyphenated word as
// its parts, as Yoast's does: 99 words with one "well-made" are 100 for
// the density, a long text where three uses of "rakes" are good, not a
// short one where they are too many.
func TestDensityCountsHyphenatedWordsAsParts(t *testing.T) {
	t.Parallel()
	content := strings.Replace(withKeyphrase("rakes", 3, 99), "word", "well-made", 1)
	r := mustScore(t, Input{Content: content, Keywords: []string{"rakes"}, Language: "en"})
	if r.Stats.Words != 99 {
		t.Fatalf("words %d, want 99", r.Stats.Words)
	}
	a := assessmentOf(t, r, "keyphrase-density")
	if a.Score != scoreGood || !strings.Contains(a.Text, "in 100 words") {
		t.Errorf("density: %d %q, want 9 in 100 words", a.Score, a.Text)
	}
	if r.SEO.Density != 3 {
		t.Errorf("density figure %v, want 3 (3 in 100)", r.SEO.Density)
	}
}
