package seo

import (
	"strings"
	"testing"
)

// sentencesText is n sentences, the first k of them "special" (given),
// the rest "Rakes help them." (three words).
func sentencesText(n, k int, special string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i < k {
			b.WriteString(special + " ")
		} else {
			b.WriteString("Rakes help them. ")
		}
		if i%5 == 4 {
			b.WriteString("\n\n") // paragraphs stay short
		}
	}
	return b.String()
}

func TestFleschBands(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		f    float64
		want string
	}{{60, Good}, {59.9, OK}, {50, OK}, {49.9, Bad}} {
		if a := fleschAssessment("Flesch reading ease", c.f); a.Rating != c.want || a.Category != CategoryInsight {
			t.Errorf("%v: %s %s, want %s insight", c.f, a.Rating, a.Category, c.want)
		}
	}
	// Clamped to 0–100.
	easy := mustScore(t, Input{Content: "Go. Do it. Be on time.", Language: "en"})
	if f := *easy.Readability.FleschReadingEase; f != 100 {
		t.Errorf("very easy text: %v, want 100", f)
	}
	hard := mustScore(t, Input{Content: strings.Repeat("internationalisation ", 40) + ".", Language: "en"})
	if f := *hard.Readability.FleschReadingEase; f != 0 {
		t.Errorf("very hard text: %v, want 0", f)
	}
}

func TestSentenceLengthBoundaries(t *testing.T) {
	t.Parallel()
	long := "Rakes " + strings.Repeat("and ", 19) + "hoes." // 21 words
	twenty := "Rakes " + strings.Repeat("and ", 18) + "hoes."
	if r := mustScore(t, Input{Content: twenty}); r.Readability.LongSentencesPercent != 0 {
		t.Errorf("20 words counted long")
	}
	if r := mustScore(t, Input{Content: long}); r.Readability.LongSentencesPercent != 100 {
		t.Errorf("21 words not counted long")
	}
	for _, c := range []struct {
		long int
		want string
	}{{25, Good}, {26, OK}, {30, OK}, {31, Bad}} {
		if a := idOf(t, Input{Content: sentencesText(100, c.long, long)}, "sentence-length"); a.Rating != c.want {
			t.Errorf("%d%% long: %s, want %s", c.long, a.Rating, c.want)
		}
	}
}

func TestParagraphBoundaries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		words int
		want  string
	}{{150, Good}, {151, OK}, {200, OK}, {201, Bad}} {
		if a := idOf(t, Input{Content: filler(c.words)}, "paragraph-length"); a.Rating != c.want {
			t.Errorf("%d-word paragraph: %s, want %s", c.words, a.Rating, c.want)
		}
	}
}

func TestPassiveBoundaries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		passive int
		want    string
	}{{10, Good}, {11, OK}, {15, OK}, {16, Bad}} {
		if a := idOf(t, Input{Content: sentencesText(100, c.passive, "Rakes were made.")}, "passive-voice"); a.Rating != c.want {
			t.Errorf("%d%% passive: %s, want %s", c.passive, a.Rating, c.want)
		}
	}
}

func TestTransitionBoundaries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		trans int
		want  string
	}{{30, Good}, {29, OK}, {20, OK}, {19, Bad}} {
		if a := idOf(t, Input{Content: sentencesText(100, c.trans, "However rakes help."), Language: "en"}, "transition-words"); a.Rating != c.want {
			t.Errorf("%d%% transitions: %s, want %s", c.trans, a.Rating, c.want)
		}
	}
	// Under 200 words none are needed.
	if a := idOf(t, Input{Content: filler(199), Language: "en"}, "transition-words"); a.Rating != Good {
		t.Errorf("199 words without transitions: %s, want good", a.Rating)
	}
	if a := idOf(t, Input{Content: filler(200), Language: "en"}, "transition-words"); a.Rating != Bad {
		t.Errorf("200 words without transitions: %s, want bad", a.Rating)
	}
}

func TestTextPresenceBoundary(t *testing.T) {
	t.Parallel()
	has := func(content string) bool {
		for _, a := range mustScore(t, Input{Content: content}).Assessments {
			if a.ID == "text-presence" {
				return true
			}
		}
		return false
	}
	if s := strings.Repeat("a", 49); !has(s) {
		t.Error("49 characters not flagged")
	}
	if s := strings.Repeat("a", 50); has(s) {
		t.Error("50 characters flagged")
	}
}

func TestReadabilityLight(t *testing.T) {
	t.Parallel()
	mk := func(ratings ...string) []Assessment {
		out := []Assessment{{Rating: Good}} // at least two checks
		for _, r := range ratings {
			out = append(out, Assessment{Rating: r})
		}
		return out
	}
	for _, c := range []struct {
		name   string
		checks []Assessment
		full   bool
		want   string
	}{
		{"full, two ok (4)", mk(OK, OK), true, Good},
		{"full, ok and bad (5)", mk(OK, Bad), true, OK},
		{"full, two bad (6)", mk(Bad, Bad), true, OK},
		{"full, bad and two ok (7)", mk(Bad, OK, OK), true, Bad},
		{"partial, one ok (2)", mk(OK), false, Good},
		{"partial, two ok (4)", mk(OK, OK), false, OK},
		{"partial, one bad (4)", mk(Bad), false, OK},
		{"partial, bad and ok (6)", mk(Bad, OK), false, Bad},
		{"one check only", []Assessment{{Rating: Good}}, true, Bad},
	} {
		if got := lightOf(readabilityScore(c.checks, c.full)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// The same text with one bad check (every sentence starts "word"):
	// 3 points in English (every check: full bands) is good; 4 points
	// without a supported language (partial bands) is ok.
	if r := mustScore(t, Input{Content: filler(120), Language: "en"}); r.Readability.Rating != Good {
		t.Errorf("English: %s, want good", r.Readability.Rating)
	}
	if r := mustScore(t, Input{Content: filler(120)}); r.Readability.Language != "unknown" || r.Readability.Rating != OK {
		t.Errorf("unknown language: %s %s, want ok", r.Readability.Language, r.Readability.Rating)
	}
}

func TestSEOLight(t *testing.T) {
	t.Parallel()
	for score, want := range map[int]string{71: Good, 70: OK, 41: OK, 40: Bad, 0: Bad} {
		if got := lightOf(score); got != want {
			t.Errorf("SEO %d: %s, want %s", score, got, want)
		}
	}
	for score, want := range map[int]string{8: Good, 7: OK, 5: OK, 4: Bad, -50: Bad} {
		if got := ratingOf(score); got != want {
			t.Errorf("score %d: %s, want %s", score, got, want)
		}
	}
	if got := seoScore([]Assessment{{Score: -50}, {Score: 9}}, false); got != 0 {
		t.Errorf("negative sum: %d, want 0", got)
	}
	if got := seoScore([]Assessment{{Score: 9}, {Score: 6}, {Score: 3}}, false); got != 67 {
		t.Errorf("9+6+3 of 27: %d, want 67", got)
	}
}
