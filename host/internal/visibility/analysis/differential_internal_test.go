package analysis

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/site"
)

// diffSet is one brand set and the answers the differential test reads
// with it.
type diffSet struct {
	name    string
	brands  []Brand
	answers []Answer
}

// diffCorpus is the labelled corpus per brand set, and a set of brands
// written to hit the rules' corners (Unicode, spaced and dotted names,
// ordinary words).
func diffCorpus(t *testing.T) []diffSet {
	raw, err := os.ReadFile("testdata/mentions_corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		BrandSets map[string]struct {
			Self struct {
				Name, Domain, Category string
			} `json:"self"`
			Competitors []CompetitorInput `json:"competitors"`
		} `json:"brandSets"`
		Answers []struct {
			Set       string           `json:"set"`
			Engine    string           `json:"engine"`
			Text      string           `json:"text"`
			Citations []string         `json:"citations"`
			Verdicts  []MentionVerdict `json:"verdicts"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	var sets []diffSet
	for name, bs := range c.BrandSets {
		self := SelfBrand(bs.Self.Name, bs.Self.Domain)
		self.Category = bs.Self.Category
		s := diffSet{name: name, brands: BuildBrands(self, bs.Competitors)}
		for _, a := range c.Answers {
			if a.Set != name {
				continue
			}
			ans := Answer{Engine: a.Engine, Prompt: "p", Text: a.Text, Verdicts: a.Verdicts}
			for _, u := range a.Citations {
				ans.Citations = append(ans.Citations, Citation{URL: u})
			}
			s.answers = append(s.answers, ans)
		}
		sets = append(sets, s)
	}
	slices.SortFunc(sets, func(a, b diffSet) int { return strings.Compare(a.name, b.name) })
	self := SelfBrand("Acme Cloud", "acme.com").WithAliases([]string{"ACME", "Hub Spot"})
	sets = append(sets, diffSet{name: "corners", brands: BuildBrands(self, []CompetitorInput{
		{Name: "Straße Tools", Domain: "strasse.de"}, {Name: "İnitech"}, {Name: "Zoë"}, {Name: "AT&T", Domain: "att.com"},
		{Name: "Linear", Domain: "linear.app"}, {Name: "Close"}, {Name: "Kit", Domain: "kit.com", Aliases: []string{"ConvertKit"}},
		{Name: "O’Brien Labs"}, {Name: "Mail-Chimp"}, {Name: "monday.com"}, {Name: "Pixel", Ambiguous: true}, {Name: "Ünïcode Ltd."},
	})})
	return sets
}

// Pieces the fuzzed answers are made of: words, names in many spellings,
// punctuation that starts sentences or marks names, URLs, sources lists,
// Unicode whose folding or lower case is not one to one, broken UTF-8.
var fuzzPieces = []string{
	" ", " ", " ", "  ", "\n", "\n\n", ". ", "! ", "? ", ", ", ": ", "; ", " – ", " — ", "-", "\u00a0", "’s", "'s", "...",
	"**", "`", "[", "](", "| ", " |", "_", "* ", "- ", "1. ", "e.g. ", "vs. ", "i.e.", "(", ")", "\"", "@", ".", "&",
	"the", "best", "tool", "for", "teams", "is", "and", "or", "a", "notion", "of", "done", "linear", "roadmap", "Nothing",
	"close", "Close", "Monday", "monday", "Kit", "kit", "Pixel", "pixel", "Apple", "Google", "Sources", "References:",
	"avoid", "avoid using", "stay away from", "do not recommend", "has had outages", "is unreliable", "was breached",
	"https://acme.com/pricing", "http://www.acme.com", "HTTPS://Example.ORG/a_(b)", "www.foo.co.uk", "tasklane.io/pricing",
	"notion.so", "linear.app", "hubspot.com", "user@hubspot.com", "blog.acme.com", "acme.com.", "Node.js", "v2.0", "e.g",
	"\nSources:\n", "\n## References\n", "\n**Citations**\n", "\n[1] https://monday.com/x\n", "\n[2]: notion.so\n", "[3]",
	"Zoë", "Zoe", "ZOË", "ß", "SS", "İ", "ı", "ǅ", "ﬁ", "Ünïcode", "\xff", "\xe2\x80", "Ⅻ", "٣", "日本",
	// Capitals around a name and letters that fold to ASCII only in
	// Unicode's case folding (ſ is s, K is k), for the comparisons made
	// without lowering the text.
	"'S", "’S ", "S, ", "AVOID ", "Do Not Use ", " Has Had Outages", " IS DOWN", "ſ", "\u212a", "Acmeſ", "ſtay away from ",
}

// fuzzAnswer writes an answer of pieces and of the brands' own aliases and
// domains in random spellings.
func fuzzAnswer(r *rand.Rand, brands []Brand) Answer {
	var names []string
	for _, b := range brands {
		names = append(names, b.Name)
		names = append(names, b.Aliases...)
		names = append(names, b.Domains...)
	}
	var sb strings.Builder
	for range 5 + r.IntN(60) {
		if r.IntN(3) > 0 {
			sb.WriteString(fuzzPieces[r.IntN(len(fuzzPieces))])
			continue
		}
		n := names[r.IntN(len(names))]
		switch r.IntN(8) {
		case 0:
			n = strings.ToUpper(n)
		case 1:
			n = strings.ToLower(n)
		case 2:
			if len(n) > 2 {
				k := 1 + r.IntN(len(n)-1)
				n = n[:k] + []string{" ", "-", "\u00a0", "  ", "."}[r.IntN(5)] + n[k:]
			}
		case 3:
			n = strings.ReplaceAll(n, "e", "ë")
		case 4:
			n = "https://" + strings.ToLower(strings.ReplaceAll(n, " ", "")) + ".com/" + n
		}
		sb.WriteString(n)
	}
	a := Answer{Engine: []string{"gpt", "claude", "gemini", "perplexity"}[r.IntN(4)], Prompt: "p", Text: sb.String()}
	for range r.IntN(3) {
		a.Citations = append(a.Citations, Citation{URL: []string{"https://www.acme.com/x", "notion.so/a", " https://Blog.Linear.App/y ", "::bad", "https://kit.com", "http://127.0.0.1:8080/p", "https://strasse.de"}[r.IntN(7)]})
	}
	switch r.IntN(20) {
	case 0:
		a.Error = "engine failed"
	case 1:
		a.NoAnswer, a.Text = true, ""
	}
	return a
}

// withVerdicts gives some of the occurrences the reference sends to the
// judge a verdict, either way, so the stored-verdict path is compared too.
func withVerdicts(r *rand.Rand, m *refMatcher, a Answer) Answer {
	for _, p := range m.Analyze(a).Pending {
		if r.IntN(3) > 0 {
			a.Verdicts = append(a.Verdicts, MentionVerdict{Brand: p.Brand, Sentence: p.Sentence, Names: r.IntN(2) == 0})
		}
		if r.IntN(4) == 0 { // a later verdict on the same sentence overrides an earlier one
			a.Verdicts = append(a.Verdicts, MentionVerdict{Brand: p.Brand, Sentence: p.Sentence, Names: r.IntN(2) == 0, Model: "second"})
		}
	}
	return a
}

// TestAnalysisGivesWhatTheReferenceGives runs the analysis and the code it
// replaced (ref_*_internal_test.go) over the labelled corpus and 20,000
// fuzzed answers and requires the same output: inferred domains, prose
// and sources, every brand's evidence, the mentions in order, the
// occurrences left to the judge, and the cue pass's sentences and cue.
func TestAnalysisGivesWhatTheReferenceGives(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 3))
	sets := diffCorpus(t)
	fuzzed := 20000
	if testing.Short() {
		fuzzed = 2000
	}
	for i := range fuzzed {
		s := &sets[i%len(sets)]
		s.answers = append(s.answers, fuzzAnswer(r, s.brands))
	}
	compared, mentioned, pending, cues := 0, 0, 0, 0
	for _, s := range sets {
		brands := InferDomains(s.brands, s.answers)
		if want := refInferDomains(s.brands, s.answers); !reflect.DeepEqual(brands, want) {
			t.Fatalf("%s: inferred brands\n%+v, want\n%+v", s.name, brands, want)
		}
		// The same with each answer read once for both (ScoreMentions).
		scannedBrands, scanned := InferDomainsScanned(s.brands, s.answers)
		if !reflect.DeepEqual(scannedBrands, brands) {
			t.Fatalf("%s: inferred brands, scanned\n%+v, want\n%+v", s.name, scannedBrands, brands)
		}
		ref, m := newRefMatcher(brands), NewMatcher(brands)
		ix := NewCueIndex(brands)
		var ict CueText // reused from answer to answer (Reset)
		for ai, a := range s.answers {
			a = withVerdicts(r, ref, a)
			want, got := ref.Analyze(a), m.Analyze(a)
			if !reflect.DeepEqual(got.Brands, want.Brands) || !reflect.DeepEqual(got.Mentions, want.Mentions) || !reflect.DeepEqual(got.Pending, want.Pending) {
				t.Fatalf("%s: answer %q\ngot  %+v\n     %+v\n     %+v\nwant %+v\n     %+v\n     %+v", s.name, a.Text, got.Brands, got.Mentions, got.Pending, want.Brands, want.Mentions, want.Pending)
			}
			if got := m.AnalyzeScannedIn(nil, a, scanned, ai); !reflect.DeepEqual(got.Brands, want.Brands) || !reflect.DeepEqual(got.Mentions, want.Mentions) || !reflect.DeepEqual(got.Pending, want.Pending) {
				t.Fatalf("%s: answer %q, scanned\ngot  %+v\n     %+v\n     %+v\nwant %+v\n     %+v\n     %+v", s.name, a.Text, got.Brands, got.Mentions, got.Pending, want.Brands, want.Mentions, want.Pending)
			}
			// A report sums the mentions from the facts: each mention's
			// brand has a fact holding its position, and no other fact
			// has one.
			positioned := 0
			for _, f := range got.Facts {
				if f.Position > 0 {
					positioned++
				}
			}
			for _, mt := range got.Mentions {
				bi := BrandIndex(m.brands, mt.Brand)
				if !slices.ContainsFunc(got.Facts, func(f Fact) bool { return int(f.Brand) == bi && int(f.Position) == mt.Position }) {
					t.Fatalf("%s: answer %q: mention %+v has no fact with its position: %+v", s.name, a.Text, mt, got.Facts)
				}
			}
			if positioned != len(got.Mentions) {
				t.Fatalf("%s: answer %q: %d facts with a position, %d mentions", s.name, a.Text, positioned, len(got.Mentions))
			}
			prose, sources := readProse(a.Text)
			wantProse, wantSources := refReadProse(a.Text)
			if prose != wantProse || !reflect.DeepEqual(sources, wantSources) {
				t.Fatalf("%s: prose of %q\ngot  %q %v\nwant %q %v", s.name, a.Text, prose, sources, wantProse, wantSources)
			}
			if got, want := AnswerSources(a), refAnswerSources(a); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: sources of %q: %v, want %v", s.name, a.Text, got, want)
			}
			ct := NewCueText(a.Text)
			ix.Reset(&ict, a.Text)
			for bi, b := range brands {
				wantSents := refBrandSentences(a.Text, b)
				bc := ct.Brand(b)
				if !slices.Equal(bc.Sentences, wantSents) || (bc.Sentences == nil) != (wantSents == nil) {
					t.Fatalf("%s: sentences of %s in %q: %q, want %q", s.name, b.Name, a.Text, bc.Sentences, wantSents)
				}
				// The same from the index's one pass over the answer.
				ibc := ict.BrandAt(bi)
				if !slices.Equal(ibc.Sentences, wantSents) || (ibc.Sentences == nil) != (wantSents == nil) {
					t.Fatalf("%s: sentences of %s in %q, indexed: %q, want %q", s.name, b.Name, a.Text, ibc.Sentences, wantSents)
				}
				if cue, want := ibc.Negative(), refNegativeCue(wantSents, b); cue != want {
					t.Fatalf("%s: cue of %s in %q, indexed: %q, want %q", s.name, b.Name, a.Text, cue, want)
				}
				if cue, want := ix.Text(a.Text).NegativeAt(bi), refNegativeCue(wantSents, b); cue != want {
					t.Fatalf("%s: NegativeAt of %s in %q: %q, want %q", s.name, b.Name, a.Text, cue, want)
				}
				if cue, want := bc.Negative(), refNegativeCue(wantSents, b); cue != want {
					t.Fatalf("%s: cue of %s in %q: %q, want %q", s.name, b.Name, a.Text, cue, want)
				} else if cue != "" {
					cues++
				}
			}
			compared++
			mentioned += len(want.Mentions)
			pending += len(want.Pending)
			for _, be := range want.Brands {
				if len(be.Judged) > 0 {
					pending++
				}
			}
		}
	}
	// The comparison must have seen the rules at work, not empty answers.
	if 2*mentioned < compared || pending < fuzzed/200 || cues < fuzzed/200 {
		t.Fatalf("%d answers, %d mentions, %d judge occurrences, %d cues: the fuzzed set says too little", compared, mentioned, pending, cues)
	}
	t.Logf("%d answers compared: %d mentions, %d judge occurrences and verdicts, %d negative cues", compared, mentioned, pending, cues)
}

// registrable and registrableFrom take short cuts past
// site.RegistrableDomain; they must give what it gives.
func TestRegistrableGivesWhatTheSiteGives(t *testing.T) {
	for _, h := range []string{"acme.com", "www.acme.com", "WWW.Acme.COM", "blog.acme.co.uk", "co.uk", "a..b.com", ".acme.com",
		"acme.com.", "x.blogspot.com", "city.kawasaki.jp", "a.b.kawasaki.jp", "127.0.0.1", "[::1]", "acme.com:8080", "localhost",
		"1.2.3.4.com", "xn--bcher-kva.de", "a-b.io", "-acme.com", "acme-.com", "s3.amazonaws.com", "bucket.s3.amazonaws.com", "git.io"} {
		want := site.RegistrableDomain(h)
		if got := registrable(h); got != want {
			t.Errorf("registrable(%q) = %q, want %q", h, got, want)
		}
		if suffix, ok := hostSuffix(h); ok {
			l := strings.ToLower(h)
			if got := registrableFrom(l, suffix); got != site.RegistrableDomain(l) {
				t.Errorf("registrableFrom(%q, %q) = %q, want %q", l, suffix, got, site.RegistrableDomain(l))
			}
		}
	}
}
