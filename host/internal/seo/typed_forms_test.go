package seo

import (
	"os"
	"testing"
)

func ratingOfID(r Result, id string) (string, int) {
	for _, a := range r.Assessments {
		if a.ID == id {
			return a.Rating, a.Score
		}
	}
	return "", 0
}

// With the forms typed, the keyphrase matches only as typed (no plural,
// no inflection, in the text, the title, the introduction and alt texts);
// by default every word form matches.
func TestTypedFormsMatchOnlyTheFormsTyped(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/corpus/19-pricing-saas.html")
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Content: string(b), Keywords: []string{"SaaS pricing page"}}
	forms, err := Score(in)
	if err != nil {
		t.Fatal(err)
	}
	in.TypedForms = true
	typed, err := Score(in)
	if err != nil {
		t.Fatal(err)
	}
	if forms.SEO.KeyphraseCount != 2 || typed.SEO.KeyphraseCount != 1 {
		t.Errorf("keyphrase count: word forms %d, typed forms %d; want 2 (\"pricing pages\" counts) and 1", forms.SEO.KeyphraseCount, typed.SEO.KeyphraseCount)
	}
	// The title "… SaaS pricing pages …" has every word only as a form.
	if r, _ := ratingOfID(forms, "keyphrase-in-title"); r != OK {
		t.Errorf("word forms: keyphrase-in-title %s, want ok", r)
	}
	if r, _ := ratingOfID(typed, "keyphrase-in-title"); r != Bad {
		t.Errorf("typed forms: keyphrase-in-title %s, want bad", r)
	}
	if typed.SEO.Score >= forms.SEO.Score {
		t.Errorf("SEO score: typed forms %d, word forms %d; want the typed one lower", typed.SEO.Score, forms.SEO.Score)
	}

	// A simple plural is a form too: "tools" is not "tool" when typed.
	text := "Pick the right tools. A good tool lasts for years."
	for _, c := range []struct {
		typed bool
		want  int
	}{{false, 2}, {true, 1}} {
		r, err := Score(Input{Content: text, Keywords: []string{"tool"}, TypedForms: c.typed})
		if err != nil {
			t.Fatal(err)
		}
		if r.SEO.KeyphraseCount != c.want {
			t.Errorf("typed forms %v: \"tool\" found %d times, want %d", c.typed, r.SEO.KeyphraseCount, c.want)
		}
	}
}

// The density's upper limit is Yoast's for word forms (3.5% weighted)
// when word forms are matched, and free Yoast's 3% when only the forms
// typed are: 3 uses of a three-word keyphrase in 148 words weigh 3.45%.
func TestTypedFormsDensityLimit(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/corpus/20-nofollow-links.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		typed bool
		score int
	}{{false, scoreGood}, {true, scoreOverMax}} {
		r, err := Score(Input{Content: string(b), Keywords: []string{"choosing a bike lock"}, TypedForms: c.typed})
		if err != nil {
			t.Fatal(err)
		}
		if r.SEO.KeyphraseCount != 3 {
			t.Errorf("typed forms %v: keyphrase count %d, want 3", c.typed, r.SEO.KeyphraseCount)
		}
		if _, s := ratingOfID(r, "keyphrase-density"); s != c.score {
			t.Errorf("typed forms %v: keyphrase-density scores %d, want %d", c.typed, s, c.score)
		}
	}
}
