package analysis

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSentimentBandsAScoreWithoutALabel: 0–39 negative, 40–69 neutral,
// 70–100 positive (docs/METRICS.md "Sentiment"), clamped to 0–100.
func TestSentimentBandsAScoreWithoutALabel(t *testing.T) {
	cases := []struct {
		label string
		score int
		want  Sentiment
	}{
		{"", -5, Sentiment{Label: SentimentNegative, Score: 0}},
		{"", 39, Sentiment{Label: SentimentNegative, Score: 39}},
		{"", 40, Sentiment{Label: SentimentNeutral, Score: 40}},
		{"", 69, Sentiment{Label: SentimentNeutral, Score: 69}},
		{"", 70, Sentiment{Label: SentimentPositive, Score: 70}},
		{"mixed", 150, Sentiment{Label: SentimentPositive, Score: 100}},
		{SentimentNegative, 80, Sentiment{Label: SentimentNegative, Score: 39}},
		{SentimentNeutral, 10, Sentiment{Label: SentimentNeutral, Score: 40}},
		{SentimentPositive, 10, Sentiment{Label: SentimentPositive, Score: 70}},
	}
	for _, c := range cases {
		if got := Band(c.label, c.score); got != c.want {
			t.Errorf("band(%q, %d) = %+v, want %+v", c.label, c.score, got, c.want)
		}
	}
}

func TestSentencesSplitAtEndPunctuationAndNewlines(t *testing.T) {
	cases := map[string][]string{
		"One. Two! Three?\nFour": {"One.", "Two!", "Three?", "Four"},
		"v2.0 is out. Fine":      {"v2.0 is out.", "Fine"},
		"Only one.  ":            {"Only one."},
		"  ":                     nil,
		// Trimmed of every space, as strings.TrimSpace trims.
		"One.\t\u00a0Two. \u2003\r\n\vThree\u2003\t": {"One.", "Two.", "Three"},
	}
	for text, want := range cases {
		if got := sentences(text); !reflect.DeepEqual(got, want) {
			t.Errorf("sentences(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestNegativeCueNeedsTheNameOnWordBoundariesAndAdjacentPhrase pins the
// negative cues: a phrase right before the name (one word may sit
// between), or right after it, the name on word boundaries.
func TestNegativeCueNeedsTheNameOnWordBoundariesAndAdjacentPhrase(t *testing.T) {
	b := Brand{Name: "Tasklane", Aliases: []string{"Tasklane"}}
	sp := strings.Repeat(" ", 155)
	cases := []struct {
		sentence, want string
	}{
		{"Avoid Tasklane.", "avoid Tasklane"},
		{"Avoid buying Tasklane.", "avoid Tasklane"},
		{"Avoid buying old Tasklane.", ""},
		{"Tasklane has had outages.", "Tasklane has had outages"},
		{"Avoid Tasklanes.", ""},
		{"Tasklanes is down.", ""},
		{"Avoid myTasklane.", ""},
		{"Mytasklane is down.", ""},
		// a cue cut by the 160-byte window is no cue: "xavoid" is no "avoid"
		{"xavoid" + sp + "Tasklane rocks.", ""},
		{"x" + sp + "     Tasklane rocks.", ""},
		{"x" + sp + "     Tasklane is down.", "Tasklane is down"},
	}
	for _, c := range cases {
		if got := NegativeCue([]string{c.sentence}, b); got != c.want {
			t.Errorf("negativeCue(%.40q) = %q, want %q", c.sentence, got, c.want)
		}
	}
}

func TestDecodeSentimentReadsTheStoredMap(t *testing.T) {
	raw := `{"Tasklane":{"label":"positive","score":80}}`
	want := map[string]Sentiment{"Tasklane": {Label: SentimentPositive, Score: 80}}
	if got := DecodeSentiment(&raw); !reflect.DeepEqual(got, want) {
		t.Errorf("decodeSentiment = %+v, want %+v", got, want)
	}
	bad := `{`
	if got := DecodeSentiment(&bad); got != nil {
		t.Errorf("decodeSentiment(bad) = %+v, want nil", got)
	}
	if got := DecodeSentiment(nil); got != nil {
		t.Errorf("decodeSentiment(nil) = %+v, want nil", got)
	}
}

// A CueText hands out the sentences of every brand from one buffer: each
// brand's list must stay its own after the other brands are read, and
// after a caller appends to one of them.
func TestBrandSentencesStayTheirOwn(t *testing.T) {
	brands := BuildBrands(SelfBrand("Acme", "acme.com"), []CompetitorInput{{Name: "Globex", Domain: "globex.com"}, {Name: "Initech"}, {Name: "Hooli"}})
	text := "Acme is fine. Globex is fine. Initech and Acme. Hooli too.\nGlobex again. Initech is down. Acme, Globex, Initech, Hooli."
	ct, ict := NewCueText(text), NewCueIndex(brands).Text(text)
	var got, igot [][]string
	for i, b := range brands {
		got = append(got, ct.Brand(b).Sentences)
		igot = append(igot, ict.BrandAt(i).Sentences)
	}
	for i := range got {
		got[i] = append(got[i], "appended")
		igot[i] = append(igot[i], "appended")
	}
	for i, b := range brands {
		want := append(refBrandSentences(text, b), "appended")
		if !slices.Equal(got[i], want) {
			t.Fatalf("sentences of %s: %q, want %q", b.Name, got[i], want)
		}
		if !slices.Equal(igot[i], want) {
			t.Fatalf("sentences of %s, indexed: %q, want %q", b.Name, igot[i], want)
		}
	}
}

// lastWordsBack reads only the end of the window before a name; every
// decision negativeCue takes from it must be the one lastWords (every
// word of the window) gives.
func TestLastWordsBackDecidesAsLastWords(t *testing.T) {
	pieces := []string{" ", "  ", "\u00a0", "\u2028", "\t", "\n", "avoid", "using", "do", "not", "use", "stay", "away", "from", "x", "é", "\xe2\x80", "\x85", "Avoid", "with", "OF", "about"}
	r := rand.New(rand.NewPCG(46, 9))
	for range 20000 {
		s := joinPieces(r, pieces, 12)
		for _, drop := range []bool{false, true} {
			a, b := lastWords(s, drop), lastWordsBack(s, drop)
			if a.endsPhraseFold() && !mayEndPhrase(s) {
				t.Fatalf("%q (drop %v): mayEndPhrase says no phrase can end it, but %+v ends one", s, drop, a)
			}
			if a.endsPhrase() != b.endsPhrase() || a.endsPhraseFold() != b.endsPhraseFold() {
				t.Fatalf("%q (drop %v): endsPhrase differs: %+v, back %+v", s, drop, a, b)
			}
			for _, pw := range negativeBeforeWords {
				for skip := 0; skip <= 1; skip++ {
					na, nb := a.n-skip, b.n-skip
					if (na >= len(pw) && a.endsWith(na, pw)) != (nb >= len(pw) && b.endsWith(nb, pw)) ||
						(na >= len(pw) && a.endsWithFold(na, pw)) != (nb >= len(pw) && b.endsWithFold(nb, pw)) {
						t.Fatalf("%q (drop %v): %q skip %d differs: %+v, back %+v", s, drop, pw, skip, a, b)
					}
				}
			}
		}
	}
}

// trimPossessive is the TrimLeft it stands for.
func TestTrimPossessiveIsTrimLeft(t *testing.T) {
	pieces := []string{"'", "’", "s", "S", ",", ":", " ", "x", "\xe2\x80", "‘", "is down"}
	r := rand.New(rand.NewPCG(46, 10))
	for range 20000 {
		s := joinPieces(r, pieces, 8)
		if got, want := trimPossessive(s), strings.TrimLeft(s, "'’sS,:"); got != want {
			t.Fatalf("trimPossessive(%q) = %q, want %q", s, got, want)
		}
	}
}

// joinPieces is fewer than n of pieces chosen at random, joined: the
// fuzzed inputs of the tests that hold a fast path to a plain one.
func joinPieces(r *rand.Rand, pieces []string, n int) string {
	var sb strings.Builder
	for range r.IntN(n) {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return sb.String()
}
