package seo

import (
	"reflect"
	"strings"
	"testing"
)

// Word splitting, sentence splitting and syllable counts are what every
// figure users see is built on; these pin them on small fixtures.
func TestWordAndSentenceSplittingPinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want []string
	}{
		{"don't stop", []string{"don't", "stop"}}, // an apostrophe in the text's first word is inner
		{"Re-use e-mail", []string{"re-use", "e-mail"}},
		{"ǅ", []string{"ǆ"}}, // a title-case letter (not upper case) is lowered too
		{"Straße ÉTÉ", []string{"straße", "été"}},
	} {
		if got := words(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("words(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Go. 1! Next one.", []string{"Go.", "1!", "Next one."}}, // a two-rune sentence right after a split
		{`He said "Stop." Then he left.`, []string{`He said "Stop."`, "Then he left."}},
		{"Wait?! Yes.", []string{"Wait?!", "Yes."}},
		{"See J. Smith here. Then go.", []string{"See J. Smith here.", "Then go."}}, // an initial is not an end
		{"Ask Dr. Who. It works.", []string{"Ask Dr. Who.", "It works."}},
		{"Pi is 3.14 today. Yes.", []string{"Pi is 3.14 today.", "Yes."}},
		{"it ends. then lower case.", []string{"it ends. then lower case."}},
	} {
		if got := sentences(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("sentences(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestSyllableCountsPinned(t *testing.T) {
	t.Parallel()
	en := map[string]int{"a": 1, "rhythm": 1, "the": 1, "garden": 2, "tomato": 3, "beautiful": 3, "seeing": 2,
		"dying": 2, "staying": 2, "shed": 1, "yes": 1, "ale": 1,
		// -ing and -ying add a syllable only after at least one more letter.
		"ying": 1, "oing": 1}
	for w, n := range en {
		if got := syllables(w); got != n {
			t.Errorf("en syllables(%q) = %d, want %d", w, got, n)
		}
	}
	for _, c := range []struct {
		lang, word string
		want       int
	}{
		{"de", "haben", 2}, {"de", "arbeit", 2}, {"de", "eule", 2}, {"de", "zzz", 1},
		{"nl", "redactiekalender", 6}, {"es", "calendario", 4}, {"it", "squadra", 2},
		// French drops a final e or es after another vowel group ...
		{"fr", "table", 1}, {"fr", "elle", 1}, {"fr", "tables", 1}, {"fr", "calendrier", 3},
		// ... but a word of one vowel group keeps it.
		{"fr", "le", 1}, {"fr", "les", 1},
	} {
		if got := languages[c.lang].syllables(c.word); got != c.want {
			t.Errorf("%s syllables(%q) = %d, want %d", c.lang, c.word, got, c.want)
		}
	}
}

// Language detection reads at most detectWords words and needs at least
// minDetectShare of them to be one language's function words; a tie goes
// to the language first in Languages().
func TestLanguageDetectionThresholdsPinned(t *testing.T) {
	t.Parallel()
	rep := func(w string, n int) []string { return strings.Fields(strings.Repeat(w+" ", n)) }
	code := func(l *language) string {
		if l == nil {
			return ""
		}
		return l.code
	}
	for _, c := range []struct {
		name   string
		blocks [][]string
		want   string
	}{
		{"exactly 10% English", [][]string{append(rep("zzz", 9), "the")}, "en"},
		{"just under 10%", [][]string{append(rep("zzz", 10), "the")}, ""},
		{"5 in 100", [][]string{append(rep("zzz", 95), rep("the", 5)...)}, ""},
		{"a block after the first 1,000 words is not read", [][]string{rep("zzz", 1000), rep("the", 300)}, ""},
		{"the block crossing 1,000 words is read whole", [][]string{rep("zzz", 999), rep("the", 300)}, "en"},
		{"tie: German before English", [][]string{{"die", "the"}}, "de"},
		{"no words", nil, ""},
	} {
		if got := code(detectLanguage(c.blocks)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
