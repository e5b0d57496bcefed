package seo

import (
	"strings"
	"testing"
)

// Boundaries of every threshold users see, each side of the line: a
// changed constant or comparison shows up as a changed rating or score.

func idOf(t *testing.T, in Input, id string) Assessment {
	t.Helper()
	return assessmentOf(t, mustScore(t, in), id)
}

// repeatWord is n words of "word" with a sentence end every ten words,
// the keyphrase sentence "kp." placed count times at the start.
func withKeyphrase(kp string, count, total int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < count; i++ {
		b.WriteString(kp + ". ")
		n += len(strings.Fields(kp))
	}
	b.WriteString(filler(total - n))
	return b.String()
}

func TestTextLengthBoundaries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		words, score int
		rating       string
	}{
		{300, 9, Good}, {299, 6, OK}, {250, 6, OK}, {249, 3, Bad}, {200, 3, Bad}, {199, -10, Bad}, {100, -10, Bad}, {99, -20, Bad},
	} {
		a := idOf(t, Input{Content: filler(c.words)}, "text-length")
		if a.Score != c.score || a.Rating != c.rating {
			t.Errorf("%d words: %s %d, want %s %d", c.words, a.Rating, a.Score, c.rating, c.score)
		}
	}
}

func TestTitleWidthBoundaries(t *testing.T) {
	t.Parallel()
	doc, _ := parse("Rakes help.")
	for _, c := range []struct {
		px           int
		rating, text string
	}{
		{600, Good, "fits"}, {601, Bad, "cut"}, {400, Good, "short"}, {401, Good, "fits"},
	} {
		a := analyze(doc, "Some title", "en")
		a.titleWidth = c.px
		var got Assessment
		for _, x := range a.seoAssessments(a.keyphrase("rakes")) {
			if x.ID == "title-length" {
				got = x
			}
		}
		if got.Rating != c.rating || !strings.Contains(got.Text, c.text) {
			t.Errorf("%d px: %s %q, want %s mentioning %q", c.px, got.Rating, got.Text, c.rating, c.text)
		}
	}
	if a := idOf(t, Input{Content: "Rakes help.", Keywords: []string{"rakes"}}, "keyphrase-in-title"); a.Score != 2 || a.Rating != Bad {
		t.Errorf("no title: %s %d, want bad 2", a.Rating, a.Score)
	}
	if a := idOf(t, Input{Content: "Rakes help."}, "title-length"); a.Score != 1 {
		t.Errorf("no title width: %d, want 1", a.Score)
	}
}

func TestKeyphraseDensityBoundaries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		kp, lang     string
		count, words int
		score        int
	}{
		// 1,000 words, one content word (factor 1.033).
		{"under the minimum", "rakes", "", 4, 1000, 4},
		{"at the minimum", "rakes", "", 5, 1000, 9},
		{"at the word-forms maximum 3.5", "rakes", "", 33, 1000, 9},
		{"over the word-forms maximum", "rakes", "", 34, 1000, -10},
		{"at the maximum 3 without word forms", "rakes", "de", 29, 1000, 9},
		{"over the maximum without word forms", "rakes", "de", 30, 1000, -10},
		{"at 4", "rakes", "", 38, 1000, -10},
		{"over 4: stuffing", "rakes", "", 39, 1000, -50},
		{"once is too few", "rakes", "", 1, 150, 4},
		{"none", "rakes", "", 0, 150, 4},
		// A four-word keyphrase twice in 100 words weighs 4.1, yet two is
		// the minimum there: good.
		{"twice where two is the minimum", "big steel garden rakes", "", 2, 100, 9},
		// Under 100 words: a count.
		{"50 words, once", "rakes", "", 1, 50, 9},
		{"50 words, twice", "rakes", "", 2, 50, -10},
		{"50 words, three times", "rakes", "", 3, 50, -50},
		{"60 words, twice", "rakes", "", 2, 60, 9},
		{"60 words, three times", "rakes", "", 3, 60, -10},
		{"60 words, four times", "rakes", "", 4, 60, -50},
		{"99 words, none", "rakes", "", 0, 99, 4},
		// Weighted densities that land exactly on a limit in floating point.
		{"exactly 0.5 weighted is not too few", "steel garden rakes", "", 2, 680, 9},
		{"exactly 3 weighted without word forms", "steel garden rakes", "de", 3, 170, 9},
		{"exactly 4 weighted is over, not stuffing", "garden rakes", "", 6, 205, -10},
	} {
		lang := c.lang
		if lang == "" {
			lang = "en"
		}
		a := idOf(t, Input{Content: withKeyphrase(c.kp, c.count, c.words), Keywords: []string{c.kp}, Language: lang}, "keyphrase-density")
		if a.Score != c.score {
			t.Errorf("%s (%d in %d words): %d %q, want %d", c.name, c.count, c.words, a.Score, a.Text, c.score)
		}
	}
	if got := recommendedCount(1, 0.5, 1000, false); got != 5 {
		t.Errorf("minimum count for 1,000 words: %d, want 5", got)
	}
	if got := recommendedCount(1, 3.5, 1000, true); got != 33 {
		t.Errorf("maximum count for 1,000 words: %d, want 33", got)
	}
	if got := recommendedCount(1, 0.5, 100, false); got != 2 {
		t.Errorf("minimum count for 100 words: %d, want 2 (never less)", got)
	}
}

func TestKeyphraseLengthBoundaries(t *testing.T) {
	t.Parallel()
	for kp, want := range map[string]string{
		"one two three four": Good, "one two three four five": OK,
		"alpha beta gamma delta epsilon zeta eta theta": OK, "alpha beta gamma delta epsilon zeta eta theta iota": Bad,
		"rakes for the garden": Good,
	} {
		if a := idOf(t, Input{Content: "Rakes help.", Keywords: []string{kp}}, "keyphrase-length"); a.Rating != want {
			t.Errorf("%q: %s, want %s", kp, a.Rating, want)
		}
	}
}

func TestSubheadingBoundaries(t *testing.T) {
	t.Parallel()
	if a := idOf(t, Input{Content: filler(299), Keywords: []string{"rakes"}}, "keyphrase-in-subheadings"); a.Rating != Good {
		t.Errorf("299 words without subheadings: %s, want good", a.Rating)
	}
	if a := idOf(t, Input{Content: filler(300), Keywords: []string{"rakes"}}, "keyphrase-in-subheadings"); a.Rating != Bad || a.Score != 2 {
		t.Errorf("300 words without subheadings: %s %d, want bad 2", a.Rating, a.Score)
	}
	// More than half of the content words reflect a multi-word keyphrase.
	two := "## Steel tools\n\nx\n\n## Care\n\nx"
	if a := idOf(t, Input{Content: two, Keywords: []string{"steel rakes"}}, "keyphrase-in-subheadings"); a.Rating != Bad {
		t.Errorf("half the words: %s, want bad", a.Rating)
	}
	three := "## Steel garden tools\n\nx\n\n## Care\n\nx"
	if a := idOf(t, Input{Content: three, Keywords: []string{"steel garden rakes"}}, "keyphrase-in-subheadings"); a.Rating != Good {
		t.Errorf("two of three words: %s, want good", a.Rating)
	}
	// Distribution: the text before the first subheading.
	for _, c := range []struct {
		words  int
		rating string
	}{{300, Good}, {301, OK}, {350, OK}, {351, Bad}} {
		text := filler(c.words) + "\n\n## Next\n\n" + filler(50)
		if a := idOf(t, Input{Content: text}, "subheading-distribution"); a.Rating != c.rating {
			t.Errorf("%d words before the first subheading: %s, want %s", c.words, a.Rating, c.rating)
		}
	}
	if a := idOf(t, Input{Content: filler(300)}, "subheading-distribution"); a.Rating != Good {
		t.Errorf("300 words in all: %s, want good", a.Rating)
	}
	if a := idOf(t, Input{Content: filler(301)}, "subheading-distribution"); a.Rating != Bad || a.Score != 2 {
		t.Errorf("301 words, no subheading: %s %d, want bad 2", a.Rating, a.Score)
	}
	for _, c := range []struct {
		words  int
		rating string
	}{{300, Good}, {301, OK}, {350, OK}, {351, Bad}} {
		text := "## First\n\n" + filler(c.words) + "\n\n## Next\n\n" + filler(50)
		if a := idOf(t, Input{Content: text}, "subheading-distribution"); a.Rating != c.rating {
			t.Errorf("section of %d words: %s, want %s", c.words, a.Rating, c.rating)
		}
	}
}

func TestMatchingBoundaries(t *testing.T) {
	t.Parallel()
	kp := []string{"steel garden rakes"}
	if a := idOf(t, Input{Content: "Rakes.", Title: "Garden rakes", Keywords: kp}, "keyphrase-in-title"); a.Rating != Bad {
		t.Errorf("title with two of three words: %s, want bad", a.Rating)
	}
	if a := idOf(t, Input{Content: "Rakes.", Title: "Rakes of garden steel", Keywords: kp}, "keyphrase-in-title"); a.Rating != OK {
		t.Errorf("title with all words out of order: %s, want ok", a.Rating)
	}
	links := `<p>See <a href="/a">garden rakes</a> and <a href="/b">steel garden rakes</a>.</p>`
	if a := idOf(t, Input{Content: links, Keywords: kp}, "competing-links"); a.Rating != Bad || !strings.HasPrefix(a.Text, "1 link") {
		t.Errorf("one competing link: %s %q", a.Rating, a.Text)
	}
	partial := `<p>See <a href="/a">garden rakes</a>.</p>`
	if a := idOf(t, Input{Content: partial, Keywords: kp}, "competing-links"); a.Rating != Good || a.Score != 8 {
		t.Errorf("partial anchor: %s %d, want good 8", a.Rating, a.Score)
	}
	intro := "Steel is strong. Garden rakes last.\n\nMore."
	if a := idOf(t, Input{Content: intro, Keywords: kp}, "keyphrase-in-introduction"); a.Rating != OK {
		t.Errorf("words across the first paragraph: %s, want ok", a.Rating)
	}
	some := `<p><a href="https://a.example/">a</a> <a href="https://b.example/" rel="nofollow">b</a> <a href="/c">c</a> <a href="/d" rel="nofollow">d</a></p>`
	r := mustScore(t, Input{Content: some})
	if a := assessmentOf(t, r, "outbound-links"); a.Score != 8 || a.Rating != Good {
		t.Errorf("some nofollow outbound: %s %d, want good 8", a.Rating, a.Score)
	}
	if a := assessmentOf(t, r, "internal-links"); a.Score != 8 || a.Rating != Good {
		t.Errorf("some nofollow internal: %s %d, want good 8", a.Rating, a.Score)
	}
	// Alt text reflects a keyphrase with at least half its content words.
	half := `<p>x</p><img src="a.png" alt="steel tools">`
	if a := idOf(t, Input{Content: half, Keywords: []string{"steel rakes"}}, "image-alt"); a.Rating != Good {
		t.Errorf("alt with half the words: %s, want good", a.Rating)
	}
	if a := idOf(t, Input{Content: half, Keywords: kp}, "image-alt"); a.Rating != OK {
		t.Errorf("alt with a third of the words: %s, want ok", a.Rating)
	}
	noAlt := `<p>x</p><img src="a.png">`
	if a := idOf(t, Input{Content: noAlt, Keywords: kp}, "image-alt"); a.Rating != OK || !strings.Contains(a.Text, "No image has alt text") {
		t.Errorf("no alt at all: %s %q", a.Rating, a.Text)
	}
}
