package analysis

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Negative cues: a phrase before or after a brand's name that makes its
// mention negative whatever the judge says.

// Negative is NegativeCue over the brand's sentences.
func (bc BrandCue) Negative() string {
	if bc.hits != nil {
		return bc.hits.negativeHits(int(bc.brand), bc.name)
	}
	if bc.fold {
		return negativeCueFold(bc.Sentences, bc.aliases, bc.domains, bc.name)
	}
	return negativeCue(bc.lowered, bc.needles, bc.name)
}

// BrandSentences are the sentences of text that name b (an alias on word
// boundaries, case-folded).
func BrandSentences(text string, b Brand) []string { return NewCueText(text).Brand(b).Sentences }

// needles are b's aliases and then its domains, in lower case: what
// aliasIn looks for, in that order.
func needles(b Brand) []string { return appendNeedles(nil, b) }

// appendNeedles appends b's needles to out.
func appendNeedles(out []string, b Brand) []string {
	for _, a := range b.Aliases {
		out = append(out, strings.ToLower(a))
	}
	for _, d := range b.Domains {
		out = append(out, strings.ToLower(d))
	}
	return out
}

// aliasIn returns where the first of needles found on word boundaries
// starts and ends in lowered.
func aliasIn(lowered string, needles []string) ([2]int, bool) {
	for _, a := range needles {
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

// wordBounded: no letter or digit right before start or right after end.
func wordBounded(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	word := func(r rune) bool { return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) }
	return !(start > 0 && word(before)) && !(end < len(text) && word(after))
}

// beforeWindow is how many bytes before a name negativeCue reads: more
// than the longest phrase of negativeBefore plus one skipped word.
const beforeWindow = 160

// negativeBeforeWords are the words of each phrase of negativeBefore.
var negativeBeforeWords = func() [][]string {
	out := make([][]string, len(negativeBefore))
	for i, p := range negativeBefore {
		out[i] = strings.Fields(p)
	}
	return out
}()

// words are the last words of a text, as strings.Fields splits it:
// n of them in all, the last len(last) kept (last[k%len(last)] is word
// k), enough for the longest phrase of negativeBefore and a skipped word.
type words struct {
	n    int
	last [4]string
}

// negativeLast are the last words of negativeBefore's phrases: a name
// after none of them needs no phrase before it compared.
var negativeLast = func() map[string]bool {
	last := map[string]bool{}
	for _, pw := range negativeBeforeWords {
		last[pw[len(pw)-1]] = true
	}
	return last
}()

// negativeAfterBy is negativeAfter by the phrases' first byte, each list
// in negativeAfter's order (the first phrase found is the one named): a
// name followed by a byte that starts none needs no phrase after it
// compared.
var negativeAfterBy = func() (out [256][]string) {
	for _, p := range negativeAfter {
		out[p[0]] = append(out[p[0]], p)
	}
	return out
}()

// endsPhrase says the last or the one before it (a skipped word) can end
// a phrase of negativeBefore.
func (w words) endsPhrase() bool {
	for skip := 0; skip <= 1 && skip < w.n; skip++ {
		if negativeLast[w.last[(w.n-1-skip)%len(w.last)]] {
			return true
		}
	}
	return false
}

func init() {
	for _, pw := range negativeBeforeWords {
		if len(pw)+1 > len(words{}.last) {
			panic("analysis: a negative phrase is longer than the words kept before a name")
		}
	}
}

// lastWords reads s's words without allocating; dropFirst leaves out the
// first word.
func lastWords(s string, dropFirst bool) words {
	var w words
	add := func(word string) {
		if dropFirst {
			dropFirst = false
			return
		}
		w.last[w.n%len(w.last)] = word
		w.n++
	}
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				add(s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		add(s[start:])
	}
	return w
}

// endsWith says words n-len(pw) up to n are pw (n ≤ w.n, and at most
// len(w.last)-1 words before the last).
func (w words) endsWith(n int, pw []string) bool {
	for k, p := range pw {
		if w.last[(n-len(pw)+k)%len(w.last)] != p {
			return false
		}
	}
	return true
}

// NegativeCue finds a negative phrase adjacent to a name of b in one of
// its sentences: a phrase of negativeBefore ending right before the name
// (up to one word between, "avoid using X"), or one of negativeAfter
// starting right after it.
func NegativeCue(sents []string, b Brand) string {
	lowered := make([]string, len(sents))
	for i, s := range sents {
		lowered[i] = strings.ToLower(s)
	}
	return negativeCue(lowered, needles(b), b.Name)
}

// negativeCue is NegativeCue over sentences already in lower case.
func negativeCue(lowered, needles []string, name string) string {
	for _, l := range lowered {
		for off := 0; off < len(l); {
			pos, ok := aliasIn(l[off:], needles)
			if !ok {
				break
			}
			start, end := off+pos[0], off+pos[1]
			// Only the last few words before the name matter: a bounded
			// window keeps this linear in the sentence's length (an
			// answer of 150,000 one-letter names must not go quadratic).
			from := max(0, start-beforeWindow)
			if before := lastWordsBack(l[from:start], from > 0); before.endsPhrase() { // the window may cut its first word
				for i, pw := range negativeBeforeWords {
					for skip := 0; skip <= 1; skip++ {
						if n := before.n - skip; n >= len(pw) && before.endsWith(n, pw) {
							return negativeBefore[i] + " " + name
						}
					}
				}
			}
			after := strings.TrimSpace(strings.TrimLeft(l[end:], "'’s,:"))
			if after != "" {
				for _, p := range negativeAfterBy[after[0]] {
					if strings.HasPrefix(after, p) {
						return name + " " + p
					}
				}
			}
			off = end
		}
	}
	return ""
}

// negativeLastList is negativeLast's words, for comparing without case.
var negativeLastList = func() []string {
	var out []string
	for _, pw := range negativeBeforeWords {
		if w := pw[len(pw)-1]; !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}()

// endsPhraseFold is endsPhrase with the words compared in lower case.
func (w words) endsPhraseFold() bool {
	for skip := 0; skip <= 1 && skip < w.n; skip++ {
		word := w.last[(w.n-1-skip)%len(w.last)]
		for _, l := range negativeLastList {
			if foldEqualASCII(word, l) {
				return true
			}
		}
	}
	return false
}

// endsWithFold is endsWith with the words compared in lower case.
func (w words) endsWithFold(n int, pw []string) bool {
	for k, p := range pw {
		if !foldEqualASCII(w.last[(n-len(pw)+k)%len(w.last)], p) {
			return false
		}
	}
	return true
}

// aliasInFold is aliasIn over a sentence as written for ASCII aliases and
// domains, compared case-insensitively.
func aliasInFold(s string, aliases, domains []string) ([2]int, bool) {
	var f folder
	for _, list := range [2][]string{aliases, domains} {
		for _, a := range list {
			f.reset(s, a)
			for {
				start := f.next()
				if start < 0 {
					break
				}
				if wordBoundedFold(s, start, start+len(a)) {
					return [2]int{start, start + len(a)}, true
				}
			}
		}
	}
	return [2]int{}, false
}

// hasPrefixFoldASCII is strings.HasPrefix(lower(s), p) for p in ASCII
// lower case, s in a text whose lower case keeps its offsets.
func hasPrefixFoldASCII(s, p string) bool {
	return len(s) >= len(p) && foldEqualASCII(s[:len(p)], p)
}

// negativeCueFold is negativeCue over sentences as written, for a brand
// whose aliases and domains are ASCII, in a text whose lower case keeps
// its offsets: every comparison is made in ASCII lower case, which is what
// the lowered text would give.
func negativeCueFold(sents, aliases, domains []string, name string) string {
	for _, l := range sents {
		for off := 0; off < len(l); {
			pos, ok := aliasInFold(l[off:], aliases, domains)
			if !ok {
				break
			}
			start, end := off+pos[0], off+pos[1]
			if cue := phraseFoldAt(l, start, end, name); cue != "" {
				return cue
			}
			off = end
		}
	}
	return ""
}

// phraseFoldAt is negativeCueFold's test of one name, at start..end of
// sentence l: a phrase of negativeBefore ending right before it, or one
// of negativeAfter starting right after it.
func phraseFoldAt(l string, start, end int, name string) string {
	from := max(0, start-beforeWindow)
	// Most names follow no word that ends a phrase: the last two words
	// tell, before all of them are read.
	if mayEndPhrase(l[from:start]) {
		if before := lastWordsBack(l[from:start], from > 0); before.endsPhraseFold() {
			for i, pw := range negativeBeforeWords {
				for skip := 0; skip <= 1; skip++ {
					if n := before.n - skip; n >= len(pw) && before.endsWithFold(n, pw) {
						return negativeBefore[i] + " " + name
					}
				}
			}
		}
	}
	// Spaces at the end would not change which phrase starts the rest.
	after := trimLeftSpace(trimPossessive(l[end:]))
	if after != "" {
		for _, p := range negativeAfterBy[lowerASCII(after[0])] {
			if hasPrefixFoldASCII(after, p) {
				return name + " " + p
			}
		}
	}
	return ""
}

// mayEndPhrase says one of the last two words of s (as strings.Fields
// splits it) is, in lower case, the last word of a phrase of
// negativeBefore: lastWordsBack(s, dropFirst).endsPhraseFold() can be
// true only then, since the words it keeps end s too.
func mayEndPhrase(s string) bool {
	i := len(s)
	for range 2 {
		end := skipBack(s, i, true)
		if i = skipBack(s, end, false); i == end {
			return false
		}
		if n := end - i; n < len(negativeLastByLen) {
			for _, l := range negativeLastByLen[n] {
				if foldEqualASCII(s[i:end], l) {
					return true
				}
			}
		}
	}
	return false
}

// negativeLastByLen is negativeLastList by the words' length in bytes.
var negativeLastByLen = func() (out [16][]string) {
	for _, w := range negativeLastList {
		out[len(w)] = append(out[len(w)], w)
	}
	return out
}()

// skipBack is where the run of spaces (space) or of other characters
// (!space) that ends at i of s starts.
func skipBack(s string, i int, space bool) int {
	for i > 0 {
		if c := s[i-1]; c < utf8.RuneSelf {
			if asciiSpace[c] != space {
				break
			}
			i--
			continue
		}
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsSpace(r) != space {
			break
		}
		i -= size
	}
	return i
}

// trimLeftSpace is strings.TrimLeftFunc(s, unicode.IsSpace).
func trimLeftSpace(s string) string {
	for len(s) > 0 {
		if c := s[0]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			s = s[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		if !unicode.IsSpace(r) {
			break
		}
		s = s[size:]
	}
	return s
}

// trimPossessive is strings.TrimLeft(s, "'’sS,:").
func trimPossessive(s string) string {
	for len(s) > 0 {
		switch s[0] {
		case '\'', 's', 'S', ',', ':':
			s = s[1:]
			continue
		}
		if !strings.HasPrefix(s, "’") {
			break
		}
		s = s[len("’"):]
	}
	return s
}

// lastWordsBack is lastWords(s, dropFirst) read from the end of s: only
// the last len(words{}.last) words are kept, so it stops after one more
// (which tells whether the first word, the one dropped, is among them).
// With that many words or more, n is len(words{}.last): every use of n
// (a phrase of at most len(last)-1 words, one skipped word) reads the
// same words and compares the same way as with the whole count.
// asciiSpace is unicode.IsSpace for the ASCII bytes.
var asciiSpace = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = unicode.IsSpace(rune(c))
	}
	return t
}()

func lastWordsBack(s string, dropFirst bool) words {
	const keep = len(words{}.last)
	var found [keep + 1]string // the last words, the last first
	k := 0
	i := len(s)
	for k < len(found) {
		for i > 0 {
			if c := s[i-1]; c < utf8.RuneSelf {
				if !asciiSpace[c] {
					break
				}
				i--
				continue
			}
			r, size := utf8.DecodeLastRuneInString(s[:i])
			if !unicode.IsSpace(r) {
				break
			}
			i -= size
		}
		if i == 0 {
			break
		}
		end := i
		for i > 0 {
			if c := s[i-1]; c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				i--
				continue
			}
			r, size := utf8.DecodeLastRuneInString(s[:i])
			if unicode.IsSpace(r) {
				break
			}
			i -= size
		}
		found[k] = s[i:end]
		k++
	}
	if dropFirst && k > 0 && k <= keep {
		k-- // every word was read: the earliest is the first, dropped
	}
	// With keep+1 words read, dropping the first leaves keep or more.
	var w words
	w.n = min(k, keep)
	for j := range w.n {
		w.last[j] = found[w.n-1-j]
	}
	return w
}
