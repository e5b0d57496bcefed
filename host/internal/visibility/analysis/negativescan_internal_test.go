package analysis

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// mayHoldNegative says text may hold a negative cue for some brand: false
// only when negativeSpots finds no spot and no character lowering into
// ASCII.
func mayHoldNegative(text string) bool {
	spots, anywhere := negativeSpots(text, nil)
	return anywhere || len(spots) > 0
}

// mayHoldNegative may say yes too often, never no too often: over texts
// built from the phrases' words in every case and spacing, after names,
// possessives, s's, colons and characters whose lower case is ASCII,
// whenever the reference finds a cue for some brand the scan must have
// said the text may hold one. It must also say no to most texts that hold
// the words apart, or the scan would save nothing.
func TestMayHoldNegativeMissesNoCue(t *testing.T) {
	brands := []Brand{
		{Name: "Acme", Slug: "acme", Aliases: []string{"Acme"}, Domains: []string{"acme.com"}},
		{Name: "Zoë", Slug: "zoe", Aliases: []string{"Zoë", "Zoe"}},
		{Name: ".NET Shop", Slug: "net", Aliases: []string{".NET Shop", "!zed"}},
	}
	pieces := []string{"Acme", "ACME", "acme.com", "Zoë", "zoe", ".NET Shop", "!zed",
		"avoid", "AVOID", "Avoid", "using", "stay", "away", "from", "steer", "clear", "of", "do", "not", "don't", "use",
		"recommend", "would", "wouldn't", "beware", "problems", "issues", "İssues", "\u0130SSUES", "with", "complaints", "about",
		"has", "had", "outages", "outage", "OUTAGE", "is", "unreliable", "been", "was", "breached", "a", "breach", "data",
		"down", "went", "scam", "overpriced", "poor", "support", "criticized", "criticised", "recommended", "should", "be", "avoided",
		" ", " ", " ", "  ", "\t", "\u00a0", "\u2003", ", ", ". ", "\n", "'s", "’s", "'", "’", "s", "S", "ss", ",", ":", "x", "7", "é", "\xff", "(", "-",
	}
	r := rand.New(rand.NewPCG(46, 14))
	cues, calmTexts := 0, 0
	spaces := []string{" ", "  ", "\t", "\u00a0", "\u2003", " \u00a0"}
	names := []string{"Acme", "ACME", "acme.com", "Zoë", "zoe", ".NET Shop", "!zed"}
	after := []string{"", "'s", "’s", "'S", ",", ":", "'ss", ", ", " ", "  ", "\u00a0", ":s"}
	// phrase is a phrase of either list, its words in a random case with
	// random spaces between.
	phrase := func(list []string) string {
		words := strings.Fields(list[r.IntN(len(list))])
		for k, w := range words {
			switch r.IntN(4) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				w = strings.ToUpper(w[:1]) + w[1:]
			case 2:
				w = strings.Replace(w, "i", "\u0130", 1)
			}
			words[k] = w
		}
		var sb strings.Builder
		for k, w := range words {
			if k > 0 {
				sb.WriteString(spaces[r.IntN(len(spaces))])
			}
			sb.WriteString(w)
		}
		return sb.String()
	}
	for n := range 60000 {
		text := joinPieces(r, pieces, 14)
		switch n % 3 {
		case 1:
			text += phrase(negativeBefore) + spaces[r.IntN(len(spaces))] + joinPieces(r, []string{"", "using ", "x "}, 2) + names[r.IntN(len(names))] + joinPieces(r, pieces, 4)
		case 2:
			text += names[r.IntN(len(names))] + after[r.IntN(len(after))] + phrase(negativeAfter) + joinPieces(r, pieces, 4)
		}
		may := mayHoldNegative(text)
		if !may {
			calmTexts++
		}
		for _, b := range brands {
			cue := refNegativeCue(refBrandSentences(text, b), b)
			if cue == "" {
				continue
			}
			cues++
			if !may {
				t.Fatalf("mayHoldNegative(%q) = false, but %s has the cue %q", text, b.Name, cue)
			}
		}
	}
	t.Logf("%d cues, %d texts said to hold none", cues, calmTexts)
	if cues < 2000 || calmTexts < 10000 {
		t.Fatalf("%d cues, %d texts said to hold none: the fuzzed texts say too little", cues, calmTexts)
	}
	// Texts with the words but no phrase: the scan says no.
	for _, text := range []string{
		"Acme is a CRM with a clean API. Teams use it to avoiding nothing; it has had good reviews.",
		"Zoë has support for out ages... no: out age, dow n, breach-less, unre liable, avoidance.",
		"", "Acme", "is", "do not", "stay away", "steer clear",
	} {
		if mayHoldNegative(text) {
			t.Errorf("mayHoldNegative(%q) = true: no phrase is there", text)
		}
	}
	for _, text := range []string{
		"Avoid Acme.", "acme'soutages", "ACME:  IS\u00a0DOWN", "İssues with Acme", "do\tnot  use Acme", "x(would  not recommend Zoe",
	} {
		if !mayHoldNegative(text) {
			t.Errorf("mayHoldNegative(%q) = false: a phrase is there", text)
		}
	}
}

// intoASCII is every character outside ASCII whose lower case is ASCII:
// the scan's lists must hold what unicode.ToLower says over all of them.
func TestIntoASCIIListsEveryCharacterLoweredIntoASCII(t *testing.T) {
	n := 0
	for r := rune(0x80); r <= 0x10ffff; r++ {
		if want := strings.ToLower(string(r)); len(want) == 1 && want[0] < 0x80 {
			n++
			if !lowersIntoASCII(r) {
				t.Errorf("%U lowers to %q: not listed", r, want)
			}
		}
	}
	if n != len(intoASCII) {
		t.Errorf("%d characters lower into ASCII, %d listed", n, len(intoASCII))
	}
}

// A sentence of 40,000 negative phrases is read once for a brand's cue,
// not once per phrase (that would be quadratic: minutes, not a moment).
func TestNegativeAtReadsEachPhrasedSentenceOnce(t *testing.T) {
	t.Parallel()
	brands := []Brand{{Name: "G", Slug: "g", Aliases: []string{"g"}}}
	text := strings.Repeat("avoid x, ", 40000) + "and then g is fine"
	c := NewCueIndex(brands).Text(text)
	if cue := c.NegativeAt(0); cue != "" {
		t.Fatalf("cue %q: no phrase is next to g", cue)
	}
	if len(c.spots) != 40000 || len(c.phrased) != 1 {
		t.Fatalf("%d spots in %d sentences, want 40000 in 1", len(c.spots), len(c.phrased))
	}
	if cue := NewCueIndex(brands).Text(text + ". Avoid g.").NegativeAt(0); cue != "avoid G" {
		t.Fatalf("cue %q, want avoid G", cue)
	}
}
