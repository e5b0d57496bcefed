package seo

import (
	"reflect"
	"testing"
)

// The outline is what content improvement checks an edit against:
// headings, link targets, word count, numbers and names must be exact.
func TestOutlinePinned(t *testing.T) {
	t.Parallel()
	const text = "# Plan for 2024\n\nWe met Anna and Zeta in Berlin. Yes, I think 0 and 99 fit — see [the guide](/guide) and [none]().\n\n## Next\n\nThen “Oslo” won."
	o, err := OutlineOf(text)
	if err != nil {
		t.Fatal(err)
	}
	want := Outline{
		Headings: []string{"Plan for 2024", "Next"},
		Links:    []string{"/guide"}, // a link without a target is left out
		Words:    26,
		Numbers:  []string{"2024", "0", "99"},
		Names:    []string{"anna", "zeta", "berlin", "oslo"}, // lower-case, "I" and sentence starts left out
	}
	got := o
	got.Vocabulary = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outline %+v,\nwant %+v", got, want)
	}
	for _, w := range []string{"plan", "anna", "oslo", "guide", "i"} {
		if !o.Vocabulary[w] {
			t.Errorf("vocabulary lacks %q", w)
		}
	}
	if len(o.Vocabulary) != 24 {
		t.Errorf("vocabulary has %d words, want 24", len(o.Vocabulary))
	}

	plain, err := PlainText(text)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Plan for 2024\n\nWe met Anna and Zeta in Berlin. Yes, I think 0 and 99 fit — see the guide and none.\n\nNext\n\nThen “Oslo” won."; plain != want {
		t.Errorf("plain text %q,\nwant %q", plain, want)
	}
}

// Inline code is prose inside a quoted block (a blockquote or pre keeps
// its text) and left out elsewhere.
func TestInlineCodeKeptOnlyInsideQuotes(t *testing.T) {
	t.Parallel()
	plain, err := PlainText("<blockquote><p>Run <code>make</code> now.</p></blockquote><p>Then <code>ls</code> here.</p>")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Run make now.\n\nThen here."; plain != want {
		t.Errorf("plain text %q, want %q", plain, want)
	}
}
