package seo

import (
	"strings"
	"testing"
)

// Boundaries the first mutation sweep found unguarded.
func TestMoreBoundaries(t *testing.T) {
	t.Parallel()
	// At 100 words the density rule applies, not the short-text count.
	if a := idOf(t, Input{Content: withKeyphrase("rakes", 3, 100), Keywords: []string{"rakes"}, Language: "en"}, "keyphrase-density"); a.Score != 9 {
		t.Errorf("100 words, three times: %d %q, want 9", a.Score, a.Text)
	}
	if got := recommendedCount(1, 3.5, 3000, true); got != 101 {
		t.Errorf("maximum count for 3,000 words: %d, want 101", got)
	}
	// A one-word anchor equal to a one-word keyphrase competes.
	if a := idOf(t, Input{Content: `<p>See <a href="/r">rakes</a>.</p>`, Keywords: []string{"rakes"}}, "competing-links"); a.Rating != Bad {
		t.Errorf("one-word competing anchor: %s, want bad", a.Rating)
	}
	// A one-word keyphrase opening the title.
	if a := idOf(t, Input{Content: "Rakes.", Title: "Rakes for autumn", Keywords: []string{"rakes"}}, "keyphrase-in-title"); a.Rating != Good {
		t.Errorf("one-word keyphrase at the title's start: %s, want good", a.Rating)
	}
	if a := idOf(t, Input{Content: `<p>x</p><img src="a.png" alt="a shed">`, Keywords: []string{"rakes"}}, "image-alt"); a.Rating != OK || !strings.Contains(a.Text, "none reflects") {
		t.Errorf("one alt without the keyphrase: %s %q", a.Rating, a.Text)
	}
	imgs := func(n, withKP int) string {
		var b strings.Builder
		b.WriteString("<p>x</p>")
		for i := 0; i < n; i++ {
			alt := "a shed"
			if i < withKP {
				alt = "garden rakes"
			}
			b.WriteString(`<img src="a.png" alt="` + alt + `">`)
		}
		return b.String()
	}
	// Too few and too many are both OK; the text says which.
	const few, many = "Only", "repeat the keyphrase"
	for _, c := range []struct {
		n, withKP  int
		want, text string
	}{
		{4, 1, Good, ""}, {5, 1, OK, few}, {5, 2, Good, ""}, {5, 4, Good, ""}, {5, 5, OK, many},
		{6, 1, OK, few}, {6, 2, Good, ""}, {6, 4, Good, ""}, {6, 5, OK, many},
		{10, 2, OK, few}, {10, 3, Good, ""}, {10, 7, Good, ""}, {10, 8, OK, many},
	} {
		if a := idOf(t, Input{Content: imgs(c.n, c.withKP), Keywords: []string{"garden rakes"}}, "image-alt"); a.Rating != c.want || !strings.Contains(a.Text, c.text) {
			t.Errorf("%d images, %d with the keyphrase: %s %q, want %s saying %q", c.n, c.withKP, a.Rating, a.Text, c.want, c.text)
		}
	}

	// The opening before the first subheading is judged on its own only
	// when it is the only long section.
	two := filler(320) + "\n\n## A\n\n" + filler(400) + "\n\n## B\n\n" + filler(20)
	if a := idOf(t, Input{Content: two}, "subheading-distribution"); a.Rating != Bad {
		t.Errorf("long opening and a longer section: %s %q, want bad", a.Rating, a.Text)
	}
	one := filler(320) + "\n\n## A\n\n" + filler(50)
	if a := idOf(t, Input{Content: one}, "subheading-distribution"); a.Rating != OK || !strings.Contains(a.Text, "before the first subheading") {
		t.Errorf("long opening only: %s %q, want ok about the opening", a.Rating, a.Text)
	}
	// Sentence starts: an opener is read with the word after it.
	if a := idOf(t, Input{Content: "This tool helps. That tool digs. These tool sets last."}, "consecutive-sentences"); a.Rating != Good {
		t.Errorf("different openers, same second word: %s, want good", a.Rating)
	}
	if a := idOf(t, Input{Content: "The rake helps. The spade helps. The hoe helps."}, "consecutive-sentences"); a.Rating != Good {
		t.Errorf("the + different words: %s, want good", a.Rating)
	}
	// No sentences: no long ones either.
	if r := mustScore(t, Input{Content: `<img src="a.png" alt="x">`}); r.Readability.LongSentencesPercent != 0 {
		t.Errorf("no sentences: %v%% long", r.Readability.LongSentencesPercent)
	}
	// A one-word text still has a reading ease.
	if r := mustScore(t, Input{Content: "Go.", Language: "en"}); r.Readability.FleschReadingEase == nil {
		t.Error("one-word text has no reading ease")
	}
}

// toHTML (what the Yoast differential hands over) renders Markdown and
// passes HTML through.
func TestToHTML(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"# Rakes\n\nGood *rakes*.", "<h1>Rakes</h1>\n<p>Good <em>rakes</em>.</p>\n"},
		{"<p>Good rakes.</p>", "<p>Good rakes.</p>"},
	} {
		if got, err := toHTML(c.in); err != nil || got != c.want {
			t.Errorf("toHTML(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
