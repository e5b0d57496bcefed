package seo

import (
	"math"
	"strings"
	"testing"
)

func hasAssessment(r Result, id string) bool {
	for _, a := range r.Assessments {
		if a.ID == id {
			return true
		}
	}
	return false
}

// Stats count what users see in the summary: headings, sentences and
// paragraphs with words in them, and the body after a blockquote.
func TestStatsPinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, content string
		want          Stats
	}{
		{"headings are counted, paragraphs are not", "# Main\n\nRakes help.\n\n## Sub\n\nSpades dig.",
			Stats{Words: 6, Sentences: 4, Paragraphs: 2, Headings: 2}},
		{"a heading without words is no sentence", "<h2>—</h2><p>Rakes help.</p>",
			Stats{Words: 2, Sentences: 1, Paragraphs: 1, Headings: 1}},
		{"a paragraph without words is no paragraph", "<p>—</p><p>Rakes help.</p>",
			Stats{Words: 2, Sentences: 1, Paragraphs: 1}},
		{"a sentence without words is no sentence", "<p>Rakes help. “—.” Next one.</p>",
			Stats{Words: 4, Sentences: 2, Paragraphs: 1}},
		{"text after a blockquote counts again", "<blockquote><p>Quoted words here.</p></blockquote><p>Rakes help a lot.</p>",
			Stats{Words: 4, Sentences: 1, Paragraphs: 1}},
		// Three closing tags make the text HTML, so "#" is no heading; two
		// leave it Markdown.
		{"three closing tags: HTML", "# Main\n\nSome <em>a</em> <em>b</em> <em>c</em> words.",
			Stats{Words: 6, Sentences: 1, Paragraphs: 1}},
		{"two closing tags: Markdown", "# Main\n\nSome <em>a</em> <em>b</em> c words.",
			Stats{Words: 6, Sentences: 2, Paragraphs: 1, Headings: 1}},
	} {
		if got := mustScore(t, Input{Content: c.content}).Stats; got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestReadabilityFiguresWithoutSentences(t *testing.T) {
	t.Parallel()
	r := mustScore(t, Input{Content: `<img src="a.png" alt="x">`, Language: "en"})
	if v := r.Readability.AverageSentenceLength; v != 0 || math.IsNaN(v) {
		t.Errorf("no sentences: average length %v, want 0", v)
	}
	if r.Readability.FleschReadingEase != nil {
		t.Errorf("no sentences: reading ease %v, want none", *r.Readability.FleschReadingEase)
	}
	// With a keyphrase but no words, the keyphrase-in-text checks are not run.
	r = mustScore(t, Input{Content: `<img src="a.png" alt="rakes">`, Keywords: []string{"rakes"}})
	for _, id := range []string{"keyphrase-density", "keyphrase-in-introduction", "keyphrase-in-subheadings", "competing-links"} {
		if hasAssessment(r, id) {
			t.Errorf("no words: %s assessed", id)
		}
	}
}

// The title falls back to the first H1, not to the first heading.
func TestTitleFallsBackToTheFirstH1(t *testing.T) {
	t.Parallel()
	a := idOf(t, Input{Content: "## Spades\n\n# Rakes\n\nRakes help.", Keywords: []string{"rakes"}}, "keyphrase-in-title")
	if a.Rating != Good {
		t.Errorf("title from the H1: %s %q, want good", a.Rating, a.Text)
	}
	if a := idOf(t, Input{Content: "# Rakes\n\n# Spades\n\nRakes help."}, "single-h1"); !strings.Contains(a.Text, "2 H1") {
		t.Errorf("two H1s: %q, want the count 2", a.Text)
	}
}

// Sentence starts: a run of three at the very end counts as well.
func TestRepeatedStartsAtTheEnd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want string
	}{
		{"Spades dig. Rakes help. Rakes rake. Rakes last.", Bad},
		{"Rakes help. Rakes rake. Rakes last. Spades dig.", Bad},
		{"Spades dig. Rakes help. Rakes rake.", Good},
	} {
		a := idOf(t, Input{Content: c.text}, "consecutive-sentences")
		if a.Rating != c.want {
			t.Errorf("%q: %s, want %s", c.text, a.Rating, c.want)
		}
		if c.want == Bad && !strings.HasPrefix(a.Text, "1 time more than 2 sentences") {
			t.Errorf("%q: %q, want one run counted", c.text, a.Text)
		}
	}
	two := "Rakes help. Rakes rake. Rakes last. Spades dig. Spades cut. Spades last."
	if a := idOf(t, Input{Content: two}, "consecutive-sentences"); !strings.HasPrefix(a.Text, "2 times more than 2") {
		t.Errorf("two runs: %q", a.Text)
	}
	r := mustScore(t, Input{Content: `<img src="a.png" alt="x">`})
	if !hasAssessment(r, "consecutive-sentences") {
		t.Error("no sentences: no consecutive-sentences check")
	}
}

// A section of exactly sectionGood words is not too long, so a long
// opening is still judged on its own.
func TestSectionOfExactlyTheLimitIsNotLong(t *testing.T) {
	t.Parallel()
	text := filler(320) + "\n\n## A\n\n" + filler(sectionGood) + "\n\n## B\n\n" + filler(20)
	if a := idOf(t, Input{Content: text}, "subheading-distribution"); a.Rating != OK || !strings.Contains(a.Text, "before the first subheading") {
		t.Errorf("long opening and a %d-word section: %s %q, want ok about the opening", sectionGood, a.Rating, a.Text)
	}
}

func TestEnglishPassivePinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"the shed was built", true},
		{"the shed was not built", true},
		{"the shed was not really built", true},          // two adverbs may sit between
		{"the shed was not really quickly built", false}, // three may not
		{"it is not", false},                             // the sentence may end after the adverb
		{"it is", false},                                 // or right after the auxiliary
		{"he is aged forty", false},                      // a four-letter -ed word is no participle
		{"the shed was painted", true},
		{"the shed was tired", false},
	} {
		if got := isPassive(strings.Fields(c.s)); got != c.want {
			t.Errorf("isPassive(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

func TestKeyphraseWordMatchingPinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"rake", "rake", true}, {"rake", "rakes", true}, {"rakes", "rake", true},
		{"box", "boxes", true}, {"boxes", "box", true},
		{"rake", "raked", false}, {"rake", "rakers", false}, {"rake", "brake", false},
	} {
		if got := sameWord(c.a, c.b); got != c.want {
			t.Errorf("sameWord(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestKeyphraseInSubheadingsAndTitlePinned(t *testing.T) {
	t.Parallel()
	body := func(heads ...string) string {
		var b strings.Builder
		b.WriteString("Garden rakes help.\n\n")
		for _, h := range heads {
			b.WriteString("## " + h + "\n\nSome words here.\n\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		kp    string
		heads []string
		want  string
	}{
		{"rakes", []string{"Rakes"}, Good},
		{"rakes", []string{"Spades"}, Bad},
		{"garden rakes", []string{"Garden rakes"}, Good},
		{"garden rakes", []string{"Garden tools"}, Bad}, // half the words is not more than half
	} {
		if a := idOf(t, Input{Content: body(c.heads...), Keywords: []string{c.kp}}, "keyphrase-in-subheadings"); a.Rating != c.want {
			t.Errorf("%q in %q: %s %q, want %s", c.kp, c.heads, a.Rating, a.Text, c.want)
		}
	}
	for _, c := range []struct {
		title, kp, want string
	}{
		{"The rake guide", "the rake", Good}, // a keyphrase opening with a function word
		{"The", "rakes", Bad},                // a title of function words only
		{"The rakes", "rakes", Good},
	} {
		if a := idOf(t, Input{Content: "Rakes help.", Title: c.title, Keywords: []string{c.kp}}, "keyphrase-in-title"); a.Rating != c.want {
			t.Errorf("%q in title %q: %s %q, want %s", c.kp, c.title, a.Rating, a.Text, c.want)
		}
	}
}

// An exact (quoted) keyphrase counts back-to-back occurrences.
func TestExactKeyphraseCountsAdjacentOccurrences(t *testing.T) {
	t.Parallel()
	r := mustScore(t, Input{Content: "Garden rakes garden rakes help.", Keywords: []string{`"garden rakes"`}})
	if len(r.Keywords) != 1 || r.Keywords[0].Count != 2 {
		t.Errorf("keywords %+v, want a count of 2", r.Keywords)
	}
}

// A keyphrase without words is no keyphrase, not one of function words
// only.
func TestKeyphraseWithoutWords(t *testing.T) {
	t.Parallel()
	r := mustScore(t, Input{Content: "Rakes help.", Keywords: []string{"!!!"}})
	if hasAssessment(r, "keyphrase-function-words") {
		t.Error(`keyphrase "!!!" judged as function words only`)
	}
	if a := assessmentOf(t, r, "keyphrase-length"); a.Rating != Bad || !strings.Contains(a.Text, "No focus keyphrase") {
		t.Errorf(`keyphrase "!!!": %s %q, want bad, no keyphrase`, a.Rating, a.Text)
	}
	if a := idOf(t, Input{Content: "The the.", Keywords: []string{"the"}}, "keyphrase-function-words"); a.Rating != Bad {
		t.Errorf(`keyphrase "the": %s, want bad`, a.Rating)
	}
}
