package analysis

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/visibility/commonwords"
)

// ScoringVersion is the version of the mention rules reports are computed
// with: 1 (aliases anywhere, URLs included), 2 (prose without URLs and
// sources lists, ambiguous names, the judge), 3 (a bare domain in prose is
// a mention and not a source; competitors given by name only get a domain
// inferred from the sources; history's self is visibility(self)).
const ScoringVersion = 3

// maxJudged is how many sentence-initial occurrences of one brand in one
// answer go to the judge before the brand's first sure mention; later
// ones do not count.
const maxJudged = 3

// Matcher finds tracked brands in answers under docs/METRICS.md's mention
// rules. Build it once per report: it compiles every alias into one trie
// of folded characters, so reading an answer is one pass over its prose
// plus, at each word the trie's first two steps allow, a walk bounded by
// the longest alias.
type Matcher struct {
	brands  []Brand
	domains [][]string // registrable, per brand
	aliases []alias
	next    map[uint64]int32 // node<<32 | rune → child
	// ascii holds the ASCII steps of the trie as a table, one row per
	// node and one column per character some alias has (column[r]; column
	// 0 is every other character): ascii[node*cols+column[r]] is the
	// child, 0 for none. Every step of a walk over English text is one
	// load; other runes are looked up in next.
	ascii  []int32
	column [128]uint8
	cols   int
	// first says the trie's first step takes an ASCII letter or digit
	// (either case); lead has bit a|b<<8 for two such bytes a, b (each
	// |0x20: ASCII lower case for a letter, a digit as it is) when its
	// first two steps take them: most words start no alias, and these
	// tell from the word's first bytes.
	first [256]bool
	lead  [1 << 16 / 64]uint64
	term  [][]int32 // node → the aliases ending there
	nodes int32
}

type alias struct {
	brand     int
	text      string
	domain    bool
	ambiguous bool
	caps      []bool // which letters the brand writes in capitals
}

// NewMatcher prepares the aliases and domains of brands.
func NewMatcher(brands []Brand) *Matcher {
	m := &Matcher{brands: brands, next: map[uint64]int32{}, term: [][]int32{nil}, nodes: 1}
	m.domains = make([][]string, len(brands))
	for i, b := range brands {
		for _, d := range b.Domains {
			m.domains[i] = append(m.domains[i], registrable(d))
		}
		for _, a := range b.Aliases {
			m.add(i, a, false)
		}
		for _, d := range b.Domains {
			m.add(i, d, true)
		}
	}
	m.table()
	return m
}

// table builds the ASCII steps of the trie from next.
func (m *Matcher) table() {
	m.cols = 1
	for k := range m.next {
		if r := rune(uint32(k)); r < 0x80 && m.column[r] == 0 {
			m.column[r] = uint8(m.cols)
			m.cols++
		}
	}
	m.ascii = make([]int32, int(m.nodes)*m.cols)
	for k, child := range m.next {
		if r := rune(uint32(k)); r < 0x80 {
			m.ascii[int(k>>32)*m.cols+int(m.column[r])] = child
		}
	}
	for a := range utf8.RuneSelf {
		node := m.ascii[m.column[lowerASCII(byte(a))]]
		if !asciiWord[a] || node == 0 {
			continue
		}
		m.first[a] = true
		for b := range utf8.RuneSelf {
			if asciiWord[b] && m.ascii[int(node)*m.cols+int(m.column[lowerASCII(byte(b))])] != 0 {
				k := uint32(a|0x20) | uint32(b|0x20)<<8
				m.lead[k/64] |= 1 << (k % 64)
			}
		}
	}
}

func (m *Matcher) add(brand int, text string, domain bool) {
	text = strings.TrimSpace(text)
	var key []rune
	words := 0
	sep := ""
	inWord := false
	for _, r := range text {
		if isWordRune(r) {
			if !inWord && words > 0 {
				for _, s := range strings.Map(func(r rune) rune {
					if r == ' ' || r == '-' {
						return -1
					}
					return normQuote(r)
				}, sep) {
					key = append(key, s)
				}
			}
			if !inWord {
				words++
			}
			inWord, sep = true, ""
			key = foldAppend(key, r)
			continue
		}
		inWord = false
		sep += string(r)
	}
	if len(key) == 0 {
		return
	}
	domain = domain || strings.Contains(text, ".") && hostLike(text)
	a := alias{brand: brand, text: text, domain: domain}
	if !domain && words == 1 && (m.brands[brand].Ambiguous || commonwords.English(string(key))) {
		a.ambiguous = true
		a.caps = capitals(text, m.brands[brand].Name)
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
			m.term = append(m.term, nil)
		}
		node = child
	}
	m.term[node] = append(m.term[node], id)
}

// capitals is the brand's way of writing a one-word alias: the alias as
// given when it has capitals, else the brand's name when it is the same
// word, else the alias with a capital first letter ("linear" from
// linear.app → Linear).
func capitals(a, name string) []bool {
	src := a
	if strings.ToLower(a) == a {
		src = ""
		if strings.EqualFold(name, a) && strings.ToLower(name) != name {
			src = name
		}
	}
	var want []rune
	for _, r := range src {
		if isWordRune(r) {
			want = append(want, r)
		}
	}
	var caps []bool
	for _, r := range a {
		if !isWordRune(r) {
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

func normQuote(r rune) rune {
	if r == '’' || r == '‘' {
		return '\''
	}
	return r
}

func (m *Matcher) child(node int32, r rune) int32 {
	if r >= 0 && r < 0x80 {
		if c := m.ascii[int(node)*m.cols+int(m.column[r])]; c > 0 {
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

// walkWord walks from node through the folded runes of word (a token's
// letters and digits); -1 when no alias goes that way.
func (m *Matcher) walkWord(node int32, word string) int32 {
	for i := 0; i < len(word); {
		if c := word[i]; c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if node = m.ascii[int(node)*m.cols+int(m.column[c])]; node == 0 {
				return -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(word[i:])
		for _, f := range foldRune(r) {
			if node = m.child(node, f); node < 0 {
				return -1
			}
		}
		i += size
	}
	return node
}

// occurrence is an alias found in the prose.
type occurrence struct {
	brand      int
	start, end int32 // its first word's bytes
	// judge: a capitalised ambiguous alias as a sentence's first word,
	// which counts only on the judge's word.
	judge bool
}

// cand is an alias the walk found, ending at token last of the walk.
type cand struct {
	alias int32
	last  int
}

// occurrences finds the brands in the prose, left to right, the longest
// alias first where aliases overlap ("Acme Cloud" over "Acme"). It reads
// the prose a word at a time and walks the trie only from the words its
// first two steps allow.
func (m *Matcher) occurrences(t *tokens, sc *scratch) []occurrence {
	out, cands := sc.occurrences[:0], sc.cands[:0]
	defer func() { sc.occurrences, sc.cands = out, cands }()
	text := t.text
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if !wordByte[c] {
				// Spaces and punctuation, in a loop of their own.
				for i++; i < len(text) && asciiGap[text[i]]; i++ {
				}
				continue
			}
			// Most words start no alias: the trie's first two steps tell
			// (first, lead), read with the word's end from its first
			// eight bytes.
			if i+8 <= len(text) {
				w := word8(text, i)
				nw := notWord8(w) // byte 0, a letter or digit, has no bit
				var may bool
				if nw&0x8000 == 0 { // a second letter or digit in ASCII
					k := uint32(w)&0xffff | 0x2020
					may = m.lead[k/64]&(1<<(k%64)) != 0
				} else {
					may = m.first[c]
				}
				if !may {
					j := i + 8
					if nw != 0 {
						j = i + bits.TrailingZeros64(nw)>>3
					} else {
						j = asciiWordEndFrom(text, j)
					}
					if j < len(text) && text[j] >= utf8.RuneSelf {
						j = t.wordEnd(j) // a letter outside ASCII goes on with the word
					} else if j+1 < len(text) && text[j] == ' ' && wordByte[text[j+1]] {
						j++ // one space and the next word: no turn of the gap loop
					}
					i = j
					continue
				}
			} else if !m.first[c] || i+1 < len(text) && wordByte[text[i+1]] && !m.leadsWith(c, text[i+1]) {
				i = t.wordEnd(i)
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		// A word the trie may start with (a letter outside ASCII takes
		// the walk): walk it and the words after it.
		t.list = append(t.list[:0], token{int32(i), int32(t.wordEnd(i))})
		cands = cands[:0]
		node := int32(0)
	walk:
		for k := 0; ; k++ {
			tok := t.list[k]
			if node = m.walkWord(node, text[tok.start:tok.end]); node < 0 {
				break walk
			}
			for _, id := range m.term[node] {
				cands = append(cands, cand{id, k})
			}
			// A name goes on only over a gap of three bytes or fewer.
			next := t.nextWord(int(tok.end), 3)
			if next < 0 {
				break
			}
			g := text[tok.end:next]
			switch gapKind(g) {
			case gapSoft:
			case gapHard:
				for _, r := range g {
					if node = m.child(node, normQuote(r)); node < 0 {
						break walk
					}
				}
			default:
				break walk
			}
			t.list = append(t.list, token{int32(next), int32(t.wordEnd(next))})
		}
		found := false
		for c := len(cands) - 1; c >= 0 && !found; c-- {
			a := m.aliases[cands[c].alias]
			judge, ok := m.accept(t, a, cands[c].last)
			if ok {
				out = append(out, occurrence{brand: a.brand, start: t.list[0].start, end: t.list[0].end, judge: judge})
				i = int(t.list[cands[c].last].end)
				found = true
			}
		}
		if !found {
			i = int(t.list[0].end)
		}
	}
	return out
}

// leadsWith says the trie's first two steps take the ASCII letters or
// digits a and b.
func (m *Matcher) leadsWith(a, b byte) bool {
	k := uint32(a|0x20) | uint32(b|0x20)<<8
	return m.lead[k/64]&(1<<(k%64)) != 0
}

// accept applies the boundary and ambiguity rules to alias a found on
// the walk's tokens 0..last; judge says the occurrence needs the judge.
func (m *Matcher) accept(t *tokens, a alias, last int) (judge, ok bool) {
	// Inside a dotted name: x.Acme or Acme.x is another name (a
	// subdomain of a domain alias is the domain's). The gap before is
	// one of these bytes only if a word ends right before it.
	text, start := t.text, int(t.list[0].start)
	if start >= 2 {
		if g := text[start-1]; (!a.domain && (g == '.' || g == '@') || a.domain && g == '-') && t.wordRuneBefore(start-1) {
			return false, false
		}
	}
	if end := int(t.list[last].end); end < len(text) && text[end] == '.' && t.wordRuneAt(end+1) {
		return false, false
	}
	if !a.ambiguous {
		return false, true
	}
	if last != 0 {
		return false, false // an ordinary word is not spelt in pieces
	}
	tok := t.list[0]
	k := 0
	for _, r := range t.text[tok.start:tok.end] {
		if k < len(a.caps) && a.caps[k] && !unicode.IsUpper(r) {
			return false, false // "linear roadmap", "the notion of done"
		}
		k++
	}
	if t.initial(start) && !t.label(0) {
		return true, true
	}
	return false, true
}
