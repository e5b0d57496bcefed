package analysis

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The cue pass as it was before it split and folded each answer once:
// brandSentences and negativeCue re-split the text, lowered every sentence
// and every alias, and joined the words before each name per phrase. The
// faster pass must give exactly what this one gives.
func refBrandSentences(text string, b Brand) []string {
	var out []string
	for _, s := range sentences(text) {
		if _, ok := refAliasAt(strings.ToLower(s), b); ok {
			out = append(out, s)
		}
	}
	return out
}

func refAliasAt(lowered string, b Brand) ([2]int, bool) {
	for _, a := range append(append([]string{}, b.Aliases...), b.Domains...) {
		a = strings.ToLower(a)
		for off := 0; off < len(lowered); {
			i := strings.Index(lowered[off:], a)
			if i < 0 {
				break
			}
			start, end := off+i, off+i+len(a)
			if wordBounded(lowered, start, end) {
				return [2]int{start, end}, true
			}
			off = start + 1
		}
	}
	return [2]int{}, false
}

func refNegativeCue(sents []string, b Brand) string {
	for _, s := range sents {
		l := strings.ToLower(s)
		for off := 0; off < len(l); {
			pos, ok := refAliasAt(l[off:], b)
			if !ok {
				break
			}
			start, end := off+pos[0], off+pos[1]
			from := max(0, start-beforeWindow)
			before := strings.Fields(l[from:start])
			if from > 0 && len(before) > 0 {
				before = before[1:]
			}
			after := strings.TrimSpace(strings.TrimLeft(l[end:], "'’s,:"))
			for _, p := range negativeBefore {
				pw := strings.Fields(p)
				for skip := 0; skip <= 1; skip++ {
					if n := len(before) - skip; n >= len(pw) && strings.Join(before[n-len(pw):n], " ") == p {
						return p + " " + b.Name
					}
				}
			}
			for _, p := range negativeAfter {
				if strings.HasPrefix(after, p) {
					return b.Name + " " + p
				}
			}
			off = end
		}
	}
	return ""
}

// TestCuePassGivesWhatTheReferenceGives compares, for every brand of every
// answer of the labelled corpus (and for answers written to hit the cues,
// with Unicode whose lower case changes length), the sentences and the
// negative cue of the pass with the reference's.
func TestCuePassGivesWhatTheReferenceGives(t *testing.T) {
	raw, err := os.ReadFile("testdata/mentions_corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		BrandSets map[string]struct {
			Self struct {
				Name, Domain string
			} `json:"self"`
			Competitors []CompetitorInput `json:"competitors"`
		} `json:"brandSets"`
		Answers []struct {
			Set  string `json:"set"`
			Text string `json:"text"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		brands []Brand
		text   string
	}
	var all []answer
	for _, a := range c.Answers {
		bs := c.BrandSets[a.Set]
		all = append(all, answer{BuildBrands(SelfBrand(bs.Self.Name, bs.Self.Domain), bs.Competitors), a.Text})
	}
	extra := BuildBrands(SelfBrand("Acme", "acme.com"), []CompetitorInput{{Name: "Globex Corp"}, {Name: "İnitech"}, {Name: "Straße Tools", Domain: "strasse.de"}, {Name: "Yahoo! Mail"}})
	for _, text := range []string{
		"Avoid Acme. Acme has had outages! Steer clear of Globex Corp, and do not use İnitech.\nStraße Tools is unreliable; ACME.COM was breached.",
		"I would not recommend using Acme? Problems with the Globex Corp API. complaints about straße tools, İNITECH is a scam.",
		strings.Repeat("word ", 60) + "avoid using Acme and beware of Globex Corp's support; " + strings.Repeat("x ", 100) + "issues with Acme.",
		"",
		// A name that crosses a sentence's end names no sentence.
		"Try Yahoo! Mail today. Avoid yahoo! mail, or Yahoo!Mail.",
	} {
		all = append(all, answer{extra, text})
	}
	// Brands with needles outside ASCII beside ASCII ones: over an ASCII
	// text the index reads the ASCII ones only; over any other text, and
	// for a needle that lowers into ASCII (the Kelvin sign), every needle.
	mixed := []Brand{{Name: "Zoë", Slug: "zoe", Aliases: []string{"Zoë", "Zoe", "ZOË Studio"}, Domains: []string{"zoe.io"}},
		{Name: "Kelvin", Slug: "kelvin", Aliases: []string{"\u212aelvin", "Kel"}}, {Name: "Acme", Slug: "acme", Aliases: []string{"Acme"}}}
	for _, text := range []string{
		"Avoid Zoe. Zoe has had outages! Steer clear of zoe.io and kelvin; kel is down.",
		"Avoid Zoë. ZOË STUDIO has had outages! Zoe is unreliable; Acme is fine.",
		"Kelvin is down. Do not use \u212aelvin, avoid Kel.",
		"Problems with Zoe and Acme. zoë was breached.",
		"Avoid kelvin today.",
	} {
		all = append(all, answer{mixed, text})
	}
	// A needle starting with a non-word byte can start where the last
	// name ended ("acme" then "!zed"): bounded in the rest of the
	// sentence, not in the text.
	bang := []Brand{{Name: "Acme", Slug: "acme", Aliases: []string{"Acme", "!zed"}}, {Name: "Zed", Slug: "zed", Aliases: []string{"zed"}}}
	for _, text := range []string{"Use acme!zed is down.", "Avoid zed!zed, acme!ZED has had outages"} {
		all = append(all, answer{bang, text})
	}
	checked, cues := 0, 0
	for _, a := range all {
		ct, ict := NewCueText(a.text), NewCueIndex(a.brands).Text(a.text)
		for bi, b := range a.brands {
			want := refBrandSentences(a.text, b)
			got := ct.Brand(b)
			if !slices.Equal(got.Sentences, want) || (got.Sentences == nil) != (want == nil) {
				t.Fatalf("sentences of %s in %.60q: %q, want %q", b.Name, a.text, got.Sentences, want)
			}
			if igot := ict.BrandAt(bi); !slices.Equal(igot.Sentences, want) || (igot.Sentences == nil) != (want == nil) {
				t.Fatalf("sentences of %s in %.60q, indexed: %q, want %q", b.Name, a.text, igot.Sentences, want)
			} else if cue := igot.Negative(); cue != refNegativeCue(want, b) {
				t.Fatalf("cue of %s in %.60q, indexed: %q, want %q", b.Name, a.text, cue, refNegativeCue(want, b))
			}
			if BrandSentences(a.text, b) == nil && want != nil {
				t.Fatalf("BrandSentences of %s: nil, want %q", b.Name, want)
			}
			wantCue := refNegativeCue(want, b)
			if cue := got.Negative(); cue != wantCue {
				t.Fatalf("cue of %s in %.60q: %q, want %q", b.Name, a.text, cue, wantCue)
			}
			if cue := NegativeCue(want, b); cue != wantCue {
				t.Fatalf("NegativeCue of %s: %q, want %q", b.Name, cue, wantCue)
			}
			checked++
			if wantCue != "" {
				cues++
			}
		}
	}
	if cues < 8 {
		t.Fatalf("only %d of %d brand-answers had a cue: the comparison would say little", cues, checked)
	}
	t.Logf("%d brand-answers compared, %d with a negative cue", checked, cues)
}

// The cue index over fuzzed answers, every brand of it against the
// reference: brands whose names are ASCII, mixed (ASCII and not: the
// index compares their other needles in lower case character by
// character, over any text whose lower case keeps its offsets), or that
// the index cannot read (a name starting outside ASCII, the Kelvin sign);
// answers in ASCII, with typographic punctuation and letters outside
// ASCII, with characters whose lower case changes length, and broken
// UTF-8.
func TestCueIndexGivesWhatTheReferenceGivesOnFuzzedAnswers(t *testing.T) {
	brands := []Brand{
		{Name: "Zoë Analytics", Slug: "zoe", Aliases: []string{"Zoë Analytics", "Zoë", "Zoe", "ZOË Studio"}, Domains: []string{"zoe-analytics.com"}},
		{Name: "Café Noir", Slug: "cafe", Aliases: []string{"Café Noir", "CAFÉ"}},
		{Name: "Señor", Slug: "senor", Aliases: []string{"Señor", "Senor"}},
		{Name: "Ünïcode", Slug: "unicode", Aliases: []string{"Ünïcode", "Unicode"}},
		{Name: "Kelvin", Slug: "kelvin", Aliases: []string{"\u212aelvin", "Kel"}},
		{Name: "Acme", Slug: "acme", Aliases: []string{"Acme"}, Domains: []string{"acme.com"}},
	}
	pieces := []string{
		"Zoë", "ZOË", "zoë", "Zoe", "ZOE", "zoe", "Zoë Analytics", "zoë analytics", "ZOË STUDIO", "zoe-analytics.com", "Zoëx", "xZoë",
		"Café Noir", "CAFÉ NOIR", "café", "Cafe", "Señor", "SEÑOR", "senor", "Ünïcode", "ünïcode", "UNICODE", "\u212aelvin", "kelvin", "Kel",
		"Acme", "ACME", "acme.com",
		"avoid ", "Avoid ", "do not use ", "issues with ", "beware of ", " is down", " has had outages", " is unreliable", " was breached",
		" outages", " outage", " had outages", " has had a breach", " has outages",
		" ", " ", " ", ", ", ". ", "! ", "? ", "\n", " – ", "—", "’s", "'s", ":", "é", "Ë", "ß", "İ", "\u212a", "x", "7", "\xff", "\u00a0",
	}
	x := NewCueIndex(brands)
	if !x.mixed[0] || !x.mixed[1] || !x.mixed[2] || x.partial[3] && x.mixed[3] || x.partial[4] {
		t.Fatalf("mixed %v, partial %v: the brands do not test what they are meant to", x.mixed, x.partial)
	}
	r := rand.New(rand.NewPCG(46, 12))
	var c, first CueText // first: NegativeAt before any BrandAt
	indexed, cues, calm := 0, 0, 0
	for range 20000 {
		text := joinPieces(r, pieces, 16)
		x.Reset(&c, text)
		x.Reset(&first, text)
		if first.calm {
			calm++
		}
		for bi, b := range brands {
			want := refBrandSentences(text, b)
			wantCue := refNegativeCue(want, b)
			if cue := first.NegativeAt(bi); cue != wantCue {
				t.Fatalf("NegativeAt of %s in %q: %q, want %q", b.Name, text, cue, wantCue)
			}
			got := c.BrandAt(bi)
			if !slices.Equal(got.Sentences, want) {
				t.Fatalf("sentences of %s in %q: %q, want %q", b.Name, text, got.Sentences, want)
			}
			if cue := got.Negative(); cue != wantCue {
				t.Fatalf("cue of %s in %q: %q, want %q", b.Name, text, cue, wantCue)
			}
			if cue := c.NegativeAt(bi); cue != wantCue {
				t.Fatalf("NegativeAt of %s in %q after BrandAt: %q, want %q", b.Name, text, cue, wantCue)
			}
			if got.hits != nil && !c.ascii && x.mixed[bi] && len(want) > 0 {
				indexed++
			}
			if wantCue != "" {
				cues++
			}
		}
	}
	// The comparison says something only if mixed brands were read from
	// the index over texts outside ASCII, and cues were found.
	if indexed < 1000 || cues < 1000 || calm < 100 {
		t.Fatalf("%d mixed brand-answers read from the index outside ASCII, %d cues, %d texts without a phrase", indexed, cues, calm)
	}
}

// cueSpans, which also tells whether the text is ASCII, must split as
// sentenceSpans does.
func TestCueSpansSplitAsSentenceSpans(t *testing.T) {
	pieces := []string{"a", "Acme", " ", "  ", "\n", ".", "!", "?", ". ", ".\n", "e.g.", "\t", "\u00a0", "\x85", "é", "\xe2\x80", "...", "?!", "x.com", "12345678"}
	r := rand.New(rand.NewPCG(46, 11))
	for range 30000 {
		s := joinPieces(r, pieces, 24)
		got, ascii := cueSpans(s, nil)
		if want := sentenceSpans(s, nil); !slices.Equal(got, want) {
			t.Fatalf("cueSpans(%q) = %v, sentenceSpans %v", s, got, want)
		}
		wantASCII := true
		for i := 0; i < len(s); i++ {
			wantASCII = wantASCII && s[i] < 0x80
		}
		if ascii != wantASCII {
			t.Fatalf("cueSpans(%q) says ASCII %v", s, ascii)
		}
	}
}

// lowerKeepsLength skips the look-up for U+2000 to U+206F on the word
// that lower case leaves them as they are, and isWordRune on the word
// that none is a letter or digit (nor the no-break space).
func TestGeneralPunctuationHasNoLowerCase(t *testing.T) {
	for r := rune(0x2000); r <= 0x206f; r++ {
		if unicode.ToLower(r) != r {
			t.Fatalf("unicode.ToLower(%U) = %U: lowerKeepsLength must look it up", r, unicode.ToLower(r))
		}
	}
	for r := rune(0x80); r <= 0x10ffff; r++ {
		if want := unicode.IsLetter(r) || unicode.IsDigit(r); isWordRune(r) != want {
			t.Fatalf("isWordRune(%U) = %v, want %v", r, !want, want)
		}
	}
}
