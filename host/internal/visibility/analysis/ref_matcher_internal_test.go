package analysis

// The mention analysis as it was before it was made faster (the matcher,
// its trie and tokens, and Analyze), kept verbatim under ref names: the
// differential test holds the analysis to exactly what this code gives.

import (
	"sort"
	"strings"
	"unicode"

	"github.com/heraldhq/herald/host/internal/visibility/commonwords"
)

// refMatcher finds tracked brands in answers under docs/METRICS.md's mention
// rules. Build it once per report: it compiles every refAlias into one trie
// of folded characters, so reading an answer is one pass over its prose
// plus, at each word, a walk bounded by the longest refAlias.
type refMatcher struct {
	brands  []Brand
	domains [][]string // refRegistrable, per brand
	aliases []refAlias
	next    map[uint64]int32 // node<<32 | rune → child
	// root is the root's children by ASCII rune (0: none), the first
	// step of every walk, most of which end there.
	root  [128]int32
	term  map[int32][]int32
	nodes int32
}

type refAlias struct {
	brand     int
	text      string
	domain    bool
	ambiguous bool
	caps      []bool // which letters the brand writes in refCapitals
}

// newRefMatcher prepares the aliases and domains of brands.
func newRefMatcher(brands []Brand) *refMatcher {
	m := &refMatcher{brands: brands, next: map[uint64]int32{}, term: map[int32][]int32{}, nodes: 1}
	m.domains = make([][]string, len(brands))
	for i, b := range brands {
		for _, d := range b.Domains {
			m.domains[i] = append(m.domains[i], refRegistrable(d))
		}
		for _, a := range b.Aliases {
			m.add(i, a, false)
		}
		for _, d := range b.Domains {
			m.add(i, d, true)
		}
	}
	return m
}

func (m *refMatcher) add(brand int, text string, domain bool) {
	text = strings.TrimSpace(text)
	var key []rune
	words := 0
	sep := ""
	inWord := false
	for _, r := range text {
		if refIsWordRune(r) {
			if !inWord && words > 0 {
				for _, s := range strings.Map(func(r rune) rune {
					if r == ' ' || r == '-' {
						return -1
					}
					return refNormQuote(r)
				}, sep) {
					key = append(key, s)
				}
			}
			if !inWord {
				words++
			}
			inWord, sep = true, ""
			key = refFoldAppend(key, r)
			continue
		}
		inWord = false
		sep += string(r)
	}
	if len(key) == 0 {
		return
	}
	domain = domain || strings.Contains(text, ".") && refHostLike(text)
	a := refAlias{brand: brand, text: text, domain: domain}
	if !domain && words == 1 && (m.brands[brand].Ambiguous || commonwords.English(string(key))) {
		a.ambiguous = true
		a.caps = refCapitals(text, m.brands[brand].Name)
	}
	for _, x := range m.aliases {
		if x.brand == brand && strings.EqualFold(x.text, text) {
			return
		}
	}
	id := int32(len(m.aliases))
	m.aliases = append(m.aliases, a)
	node := int32(0)
	for _, r := range key {
		k := uint64(node)<<32 | uint64(uint32(r))
		child, ok := m.next[k]
		if !ok {
			child = m.nodes
			m.nodes++
			m.next[k] = child
			if node == 0 && r < 0x80 {
				m.root[r] = child
			}
		}
		node = child
	}
	m.term[node] = append(m.term[node], id)
}

// refCapitals is the brand's way of writing a one-word refAlias: the refAlias as
// given when it has refCapitals, else the brand's name when it is the same
// word, else the refAlias with a capital first letter ("linear" from
// linear.app → Linear).
func refCapitals(a, name string) []bool {
	src := a
	if strings.ToLower(a) == a {
		src = ""
		if strings.EqualFold(name, a) && strings.ToLower(name) != name {
			src = name
		}
	}
	var want []rune
	for _, r := range src {
		if refIsWordRune(r) {
			want = append(want, r)
		}
	}
	var caps []bool
	for _, r := range a {
		if !refIsWordRune(r) {
			continue
		}
		k := len(caps)
		if src == "" {
			caps = append(caps, k == 0)
		} else {
			caps = append(caps, k < len(want) && unicode.IsUpper(want[k]))
		}
	}
	return caps
}

func refNormQuote(r rune) rune {
	if r == '’' || r == '‘' {
		return '\''
	}
	return r
}

func (m *refMatcher) child(node int32, r rune) int32 {
	if node == 0 && r >= 0 && r < 0x80 {
		if c := m.root[r]; c > 0 {
			return c
		}
		return -1
	}
	c, ok := m.next[uint64(node)<<32|uint64(uint32(r))]
	if !ok {
		return -1
	}
	return c
}

// refOccurrence is an refAlias found in the prose.
type refOccurrence struct {
	brand int
	tok   int // first refToken
	// judge: a capitalised ambiguous refAlias as a sentence's first word,
	// which counts only on the judge's word.
	judge bool
}

// occurrences finds the brands in the prose, left to right, the longest
// refAlias first where aliases overlap ("Acme Cloud" over "Acme").
func (m *refMatcher) occurrences(t *refTokens) []refOccurrence {
	var out []refOccurrence
	type cand struct {
		refAlias int32
		last     int
	}
	var cands []cand
	n := len(t.list)
	for i := 0; i < n; {
		cands = cands[:0]
		node := int32(0)
	walk:
		for k := i; k < n; k++ {
			tok := t.list[k]
			for _, r := range t.folded[tok.fs:tok.fe] {
				if node = m.child(node, r); node < 0 {
					break walk
				}
			}
			for _, id := range m.term[node] {
				cands = append(cands, cand{id, k})
			}
			if k+1 >= n {
				break
			}
			g := t.gap(k)
			switch refGapKind(g) {
			case refGapSoft:
			case refGapHard:
				for _, r := range g {
					if node = m.child(node, refNormQuote(r)); node < 0 {
						break walk
					}
				}
			default:
				break walk
			}
		}
		found := false
		for c := len(cands) - 1; c >= 0 && !found; c-- {
			a := m.aliases[cands[c].refAlias]
			judge, ok := m.accept(t, a, i, cands[c].last)
			if ok {
				out = append(out, refOccurrence{brand: a.brand, tok: i, judge: judge})
				i = cands[c].last + 1
				found = true
			}
		}
		if !found {
			i++
		}
	}
	return out
}

// accept applies the boundary and ambiguity rules to refAlias a found on
// refTokens first..last; judge says the refOccurrence needs the judge.
func (m *refMatcher) accept(t *refTokens, a refAlias, first, last int) (judge, ok bool) {
	// Inside a dotted name: x.Acme or Acme.x is another name (a
	// subdomain of a domain refAlias is the domain's).
	if first > 0 {
		g := t.gap(first - 1)
		if !a.domain && (g == "." || g == "@") || a.domain && g == "-" {
			return false, false
		}
	}
	if last+1 < len(t.list) && t.gap(last) == "." {
		return false, false
	}
	if !a.ambiguous {
		return false, true
	}
	if first != last {
		return false, false // an ordinary word is not spelt in pieces
	}
	tok := t.list[first]
	k := 0
	for _, r := range t.text[tok.start:tok.end] {
		if k < len(a.caps) && a.caps[k] && !unicode.IsUpper(r) {
			return false, false // "linear roadmap", "the notion of done"
		}
		k++
	}
	if tok.initial && !t.label(first) {
		return true, true
	}
	return false, true
}

// Analyze reads one answer: the brands its prose mentions (with the
// stored judge verdicts) and their positions, and the brands its sources
// cite, by refRegistrable domain.
func (m *refMatcher) Analyze(a Answer) Analysis {
	out := Analysis{Brands: make([]BrandEvidence, len(m.brands))}
	for i, b := range m.brands {
		out.Brands[i] = BrandEvidence{Brand: b.Slug, Name: b.Name, Self: b.Self}
	}
	if a.Missing() {
		return out
	}
	prose, sources := refReadProse(a.Text)
	cited := map[string]bool{}
	for _, s := range sources {
		cited[s.Domain] = true
	}
	for _, c := range a.Citations {
		for _, s := range refCitationSources(c) {
			cited[s.Domain] = true
		}
	}
	for i, ds := range m.domains {
		for _, d := range ds {
			if cited[d] {
				out.Brands[i].Cited = true
			}
		}
	}
	verdicts := map[string]MentionVerdict{}
	for _, v := range a.Verdicts {
		verdicts[v.Brand+"\x00"+v.Sentence] = v
	}
	t := refTokenPool.Get().(*refTokens)
	defer refTokenPool.Put(t)
	t.reset(prose)
	first := make([]int, len(m.brands))
	for i := range first {
		first[i] = -1
	}
	asked := make([]int, len(m.brands))
	for _, o := range m.occurrences(t) {
		b := o.brand
		if first[b] >= 0 {
			continue
		}
		if !o.judge {
			first[b] = o.tok
			continue
		}
		sentence := t.sentenceOf(o.tok)
		if v, ok := verdicts[m.brands[b].Slug+"\x00"+sentence]; ok {
			out.Brands[b].Judged = append(out.Brands[b].Judged, v)
			if v.Names {
				first[b] = o.tok
			}
			continue
		}
		out.Brands[b].Unjudged++
		if asked[b] < maxJudged {
			asked[b]++
			out.Pending = append(out.Pending, JudgeRequest{Brand: m.brands[b].Slug, Name: m.brands[b].Name, Category: m.brands[b].Category, Sentence: sentence})
		}
	}
	var order []int
	for b, f := range first {
		if f >= 0 {
			order = append(order, b)
		}
	}
	sort.Slice(order, func(i, j int) bool { return first[order[i]] < first[order[j]] })
	for rank, b := range order {
		e := &out.Brands[b]
		e.Mentioned, e.Position, e.Weight = true, rank+1, Weight(rank+1)
		out.Mentions = append(out.Mentions, Mention{Brand: e.Brand, Name: e.Name, Self: e.Self, Position: e.Position, Weight: e.Weight, Cited: e.Cited})
	}
	return out
}

func refCitationSources(c Citation) []Source {
	return refAnswerSources(Answer{Citations: []Citation{c}})
}
