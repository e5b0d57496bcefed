package seo

import (
	"reflect"
	"testing"
)

// Keyword extraction (RAKE): candidates are runs of up to three content
// words of three or more letters; repeated phrases rank first, then the
// higher score (degree/frequency summed over the words), then the more
// frequent, then the alphabetically first.
func TestKeywordExtractionPinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"three words is a phrase, four is not", "Green garden rakes. Big green garden rakes break.",
			[]string{"green garden rakes"}},
		{"a double space does not split a phrase", "Green  garden rakes.", []string{"green garden rakes"}},
		{"three-letter words count", "Garden hoe.", []string{"garden hoe"}},
		{"inner hyphens join, leading ones do not", "Smart e-mail. -rakes", []string{"smart e-mail", "rakes"}},
		{"the more frequent first on equal scores", "Spades. Spades. Spades. Rakes. Rakes.", []string{"spades", "rakes"}},
		{"repeated first, then the score: degree divided by frequency", "Sharp steel rakes. Rakes. Rakes. Sharp steel spades. Spades.",
			[]string{"rakes", "sharp steel spades", "sharp steel rakes", "spades"}},
	} {
		d, err := parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := extractKeywords(d, 5); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestTitleWidthCharactersPinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		want int
	}{
		{"~~~~~~~~~~", 117},          // 584/1000 em each at 20 px
		{"\t\t\t\t\t\t\t\t\t\t", 56}, // a tab is as wide as a space
		{"\n\n\n\n\n\n\n\n\n\n", 56}, // so is a newline
		{"éééééééééé", 111},          // other characters are 556/1000 em
		{"iiiii", 22}, {"WWWWW", 94},
	} {
		if got := titleWidth(c.s); got != c.want {
			t.Errorf("titleWidth(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestEuropeanPassivePinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang, s string
		want    bool
	}{
		{"de", "er wird geübt", true},     // a five-letter participle
		{"de", "wir werden beten", false}, // prefix be + three letters is no participle
		{"de", "wir werden erben", false},
		{"de", "es wird verkauft", true},
		{"nl", "het wordt geld", false}, // ge + two letters is no participle
		{"nl", "het wordt gemaakt", true},
		{"es", "el plan fue", false},      // the sentence may end on the auxiliary
		{"es", "el niño fue amado", true}, // a five-letter regular participle
		{"es", "el plan fue claramente escrito", true},
		{"es", "el plan fue claramente rapidamente escrito", true}, // up to three words after the auxiliary
		{"es", "el plan fue muy claramente rapidamente escrito", false},
	} {
		if got := languages[c.lang].passive(words(c.s)); got != c.want {
			t.Errorf("%s passive(%q) = %v, want %v", c.lang, c.s, got, c.want)
		}
	}
}
