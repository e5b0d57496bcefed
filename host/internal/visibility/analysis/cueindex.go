package analysis

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CueIndex: every brand's ASCII cue needles found in one pass per answer.

// CueIndex finds the ASCII aliases and domains of every brand of a report
// (of brands whose needles are all ASCII and not empty, and, for ASCII
// answers, of brands whose other needles no ASCII text holds) in one pass
// over an answer, instead of one search of the answer per needle of each
// brand the answer names. Its rule is the cue pass's own (plain lower
// case on word boundaries, URLs included), not the mention pass's (prose
// without URLs, folded diacritics, names spelt in pieces), so it is not
// driven by the mention pass's occurrences: neither rule's finds hold the
// other's. Build it once per brand list; it is safe for concurrent use.
type CueIndex struct {
	brands []Brand
	// folded says brand i is read from the index (asciiNeedles); partial
	// says it is read from the index in an ASCII text (asciiInAnswers:
	// no ASCII text holds its needles outside ASCII), and mixed, a partial
	// brand, in any text (its needles outside ASCII are in the index too,
	// compared in lower case character by character: mixedNeedles).
	folded, partial, mixed []bool
	// first lists, per first byte (either case), the needles starting
	// so; starts says the list is not empty.
	first   [256][]int32
	starts  [256]bool
	needles []cueNeedle
	// pairs has bit a<<8|b for the first two bytes a, b of each needle of
	// two bytes or more, in lower case; single says a needle of one byte
	// starts with byte a (either case). Most words that start like a
	// needle differ from every needle at the second byte: one bit tells.
	pairs  [1 << 16 / 64]uint64
	single [256]bool
	// own is brand i's needles, needles[own[i][0]:own[i][1]], in the
	// order aliasInFold tries them; wordFirst says each starts with a
	// letter or digit (so no name can start where the last one ended).
	own       [][2]int32
	wordFirst []bool
}

type cueNeedle struct {
	text  string // lower case
	brand int32
	// unicode: text is not ASCII (a mixed brand's), compared by
	// lowerEqual and only in a text that is not ASCII either.
	unicode bool
}

// cueHit is a needle of brand found on word boundaries inside sentence
// span of a CueText.
type cueHit struct {
	brand, span, start, needle int32
}

// NewCueIndex prepares the needles of brands.
func NewCueIndex(brands []Brand) *CueIndex {
	x := &CueIndex{brands: brands, folded: make([]bool, len(brands)), own: make([][2]int32, len(brands)), wordFirst: make([]bool, len(brands))}
	x.partial, x.mixed = make([]bool, len(brands)), make([]bool, len(brands))
	for bi, b := range brands {
		switch {
		case asciiNeedles(b):
			x.folded[bi] = true
		case asciiInAnswers(b):
			x.partial[bi], x.mixed[bi] = true, mixedNeedles(b)
		default:
			continue
		}
		x.wordFirst[bi] = true
		x.own[bi][0] = int32(len(x.needles))
		var mine []string
		for _, list := range [2][]string{b.Aliases, b.Domains} {
			for _, nd := range list {
				if !isASCII(nd) && !x.mixed[bi] {
					continue // found in no ASCII text (asciiInAnswers)
				}
				l := strings.ToLower(nd)
				if slices.Contains(mine, l) {
					continue // the same needle in another case finds nothing new
				}
				mine = append(mine, l)
				x.wordFirst[bi] = x.wordFirst[bi] && asciiWord[l[0]]
				id := int32(len(x.needles))
				x.first[l[0]] = append(x.first[l[0]], id)
				x.starts[l[0]] = true
				if u := asciiUpper(l[0]); u != l[0] {
					x.first[u] = append(x.first[u], id)
					x.starts[u] = true
				}
				x.needles = append(x.needles, cueNeedle{text: l, brand: int32(bi), unicode: !isASCII(l)})
				if len(l) == 1 {
					x.single[l[0]], x.single[asciiUpper(l[0])] = true, true
				} else {
					p := pairKey(l[0], l[1])
					x.pairs[p/64] |= 1 << (p % 64)
				}
			}
		}
		x.own[bi][1] = int32(len(x.needles))
		if x.partial[bi] && !x.wordFirst[bi] {
			x.partial[bi], x.mixed[bi] = false, false // its cue would search the aliases as written
		}
	}
	return x
}

// asciiInAnswers says b's needles that are not ASCII lower to characters
// outside ASCII (so no ASCII text holds them, in any case), and none is
// empty: over an ASCII text, b's ASCII needles alone find what all of
// them find.
func asciiInAnswers(b Brand) bool {
	for _, list := range [2][]string{b.Aliases, b.Domains} {
		for _, s := range list {
			if s == "" {
				return false
			}
			if !isASCII(s) && isASCII(strings.ToLower(s)) {
				return false // "\u212aelvin" lowers to "kelvin"
			}
		}
	}
	return true
}

// mixedNeedles says every needle of b outside ASCII starts, in lower
// case, with an ASCII letter or digit and another ASCII byte, so the
// index finds it by its first byte and its pair (a character outside
// ASCII has other bytes in another case: "Ü" and "ü").
func mixedNeedles(b Brand) bool {
	for _, list := range [2][]string{b.Aliases, b.Domains} {
		for _, s := range list {
			if l := strings.ToLower(s); !isASCII(l) && (l[0] >= utf8.RuneSelf || !asciiWord[l[0]] || l[1] >= utf8.RuneSelf) {
				return false
			}
		}
	}
	return true
}

// lowerEqual says the lower case of s, a piece of a text whose lower case
// keeps every character's length, is low: what comparing the lowered text
// gives, without lowering it.
func lowerEqual(s, low string) bool {
	if len(s) != len(low) {
		return false
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if lowerASCII(c) != low[i] {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false // s ends inside a character
		}
		l := unicode.ToLower(r)
		if r2, size2 := utf8.DecodeRuneInString(low[i:]); r2 != l || size2 != size {
			return false
		}
		i += size
	}
	return true
}

// asciiRun is where the run of ASCII bytes at i of s ends, read eight
// bytes at a time.
func asciiRun(s string, i int) int {
	for ; i+8 <= len(s) && word8(s, i)&0x8080808080808080 == 0; i += 8 {
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// word8 is bytes i to i+8 of s as one little-endian word (the compiler
// makes it one load).
func word8(s string, i int) uint64 {
	b := s[i : i+8] // one bounds check: the indexes below are known to hold
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// isASCII says every byte of s is below 0x80.
func isASCII(s string) bool { return asciiRun(s, 0) == len(s) }

// pairKey is the pairs bit of two bytes, in ASCII lower case.
func pairKey(a, b byte) uint32 { return uint32(lowerASCII(a))<<8 | uint32(lowerASCII(b)) }

// asciiUpper is c in upper case when it is an ASCII letter.
func asciiUpper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// Text splits text for the cue pass, as NewCueText, and finds every
// indexed needle in it (when its lower case keeps its offsets).
func (x *CueIndex) Text(text string) *CueText {
	c := new(CueText)
	x.Reset(c, text)
	return c
}

// Reset makes c what x.Text(text) gives, reusing c's buffers, so a pass
// over many answers needs no CueText of its own per answer. The
// BrandCues c gave before are no longer valid (their sentence lists
// share c's buffer). It reads the text once for the negative phrases
// (negativeSpots); the sentences are split and the needles found
// when first asked for (BrandAt), and never for NegativeAt over a text
// that holds no phrase.
func (x *CueIndex) Reset(c *CueText, text string) {
	// Every field but the buffers (small, sents, hitBuf: each use writes
	// before it reads), set one by one: zeroing the whole CueText is a
	// tenth of this pass over a short answer.
	c.text, c.spans, c.lc, c.used = text, c.spans[:0], nil, 0
	c.sameLength, c.ascii = false, false
	c.index, c.hits = x, c.hits[:0]
	c.unread, c.phrased, c.phrasedMade = true, c.phrased[:0], false
	c.spots, c.anywhere = negativeSpots(text, c.spots[:0])
	c.calm = len(c.spots) == 0 && !c.anywhere
}

// read splits c's text and finds every indexed needle in it (when its
// lower case keeps its offsets): what Reset leaves for when it is needed.
func (c *CueText) read() {
	x, text, spans, hits := c.index, c.text, c.spans, c.hits
	c.unread, c.spans, c.hits = false, nil, nil
	c.split(text, spans)
	if !c.sameLength {
		return
	}
	if cap(hits) <= len(c.hitBuf) {
		hits = c.hitBuf[:0]
	}
	c.hits = hits
	k := 0
	for i, next := 0, 0; i < len(text); i = next {
		b := text[i]
		if next = i + 1; wordByte[b] {
			// A word: no needle starts inside it, so the pass steps
			// over the rest of it.
			next = asciiWordEnd(text, next)
			// Nor does one start at the byte after it: that byte is not
			// a letter or digit, so not at a word boundary either.
			next++
			if !x.starts[b] {
				continue
			}
		} else if !x.starts[b] || i > 0 && wordByte[text[i-1]] {
			continue // no needle starts so, or not at a word boundary
		}
		if !x.single[b] {
			if i+1 == len(text) {
				continue
			}
			if p := pairKey(b, text[i+1]); x.pairs[p/64]&(1<<(p%64)) == 0 {
				continue // no needle starts with these two bytes
			}
		}
		ids := x.first[b]
		for k < len(c.spans) && int(c.spans[k][1]) <= i {
			k++
		}
		if k == len(c.spans) {
			break
		}
		if int(c.spans[k][0]) > i {
			continue
		}
		for _, id := range ids {
			nd := x.needles[id]
			end := i + len(nd.text)
			if end > int(c.spans[k][1]) {
				continue
			}
			if nd.unicode {
				if c.ascii || !lowerEqual(text[i:end], nd.text) {
					continue
				}
			} else if !foldEqualASCII(text[i:end], nd.text) {
				continue
			}
			if wordBoundedFold(text, i, end) {
				c.hits = append(c.hits, cueHit{brand: nd.brand, span: int32(k), start: int32(i), needle: id})
			}
		}
	}
}

// NegativeAt is BrandAt(i).Negative(): the negative cue of brand i, ""
// at once when the text holds no negative phrase. Only the sentences
// where a phrase may start are read (a cue is a phrase next to the
// brand's name in one of its sentences, so a sentence without one holds
// none), in order, each as the brand's sentences are read: its ASCII
// names compared without case in an ASCII sentence, else in the lowered
// sentence.
func (c *CueText) NegativeAt(i int) string {
	switch {
	case c.calm:
		return ""
	case c.anywhere:
		return c.BrandAt(i).Negative()
	}
	if !c.phrasedMade {
		c.phrasedMade = true
		next := 0
		for _, p := range c.spots {
			if int(p) < next {
				continue // in the sentence before
			}
			var start, end int
			start, end, next = sentenceAround(c.text, int(p))
			c.phrased = append(c.phrased, [2]int32{int32(start), int32(end)})
		}
	}
	b := &c.index.brands[i]
	for _, sp := range c.phrased {
		s := c.text[sp[0]:sp[1]]
		var cue string
		if c.index.folded[i] && isASCII(s) {
			cue = negativeCueFold([]string{s}, b.Aliases, b.Domains, b.Name)
		} else {
			cue = negativeCue([]string{strings.ToLower(s)}, needles(*b), b.Name)
		}
		if cue != "" {
			return cue
		}
	}
	return ""
}

// BrandAt is Brand for brand i of the index the text was made with
// (CueIndex.Text), from the needles found in the one pass.
func (c *CueText) BrandAt(i int) BrandCue {
	if c.unread {
		c.read()
	}
	b := &c.index.brands[i]
	if !c.sameLength || !c.index.folded[i] && !(c.index.partial[i] && (c.ascii || c.index.mixed[i])) {
		return c.Brand(*b)
	}
	k, last := 0, int32(-1)
	for _, h := range c.hits {
		if int(h.brand) == i && h.span != last {
			k++
			last = h.span
		}
	}
	bc := BrandCue{name: b.Name}
	if k == 0 {
		return bc
	}
	bc.fold, bc.aliases, bc.domains = true, b.Aliases, b.Domains
	if c.index.wordFirst[i] {
		bc.hits, bc.brand = c, int32(i)
	}
	if u := int(c.used); k <= len(c.sents)-u {
		bc.Sentences = c.sents[u : u : u+k] // capped: an append copies
		c.used += int32(k)
	} else {
		bc.Sentences = make([]string, 0, k)
	}
	last = -1
	for _, h := range c.hits {
		if int(h.brand) == i && h.span != last {
			last = h.span
			sp := c.spans[h.span]
			bc.Sentences = append(bc.Sentences, c.text[sp[0]:sp[1]])
		}
	}
	return bc
}

// negativeHits is negativeCueFold over brand bi's sentences, its names
// read from the hits instead of searched again: in each sentence, from
// the start, the first of the brand's needles (in aliasInFold's order)
// found at or after off, its first occurrence there, then off moves past
// it. A hit is bounded in the text; it is in its sentence too, since a
// sentence's edges are boundaries, and, from off, the same, since a
// needle starting with a letter or digit cannot start at off (the last
// name's end is bounded).
func (c *CueText) negativeHits(bi int, name string) string {
	x, hits := c.index, c.hits
	lo, hi := x.own[bi][0], x.own[bi][1]
	for j := 0; j < len(hits); {
		if int(hits[j].brand) != bi {
			j++
			continue
		}
		k := hits[j].span
		e := j
		for e < len(hits) && hits[e].span == k {
			e++
		}
		s0, s1 := c.spans[k][0], c.spans[k][1]
		l := c.text[s0:s1]
		off := s0
		for {
			// The first needle in the brand's order found at or after
			// off, at its first start there: one read of the sentence's
			// hits (the needle ids of brand bi are lo..hi-1, in order).
			best := -1
			for h := j; h < e; h++ {
				if n := hits[h].needle; n >= lo && n < hi && hits[h].start >= off && (best < 0 || n < hits[best].needle) {
					best = h
				}
			}
			if best < 0 {
				break
			}
			start := hits[best].start
			end := start + int32(len(x.needles[hits[best].needle].text))
			if cue := phraseFoldAt(l, int(start-s0), int(end-s0), name); cue != "" {
				return cue
			}
			off = end
		}
		j = e
	}
	return ""
}
