package analysis

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The negative phrases' scan: where in an answer a negative cue could
// start, read once over its text before any brand's sentences are looked
// for. Most answers hold no phrase of negativeBefore or negativeAfter
// anywhere, and then no brand of them has a cue.

// negativeSpots appends to spots, in order, every word start of text
// where a phrase of negativeBefore or negativeAfter may start as the cue
// rule reads it, in lower case; anywhere says the text holds a character
// whose lower case is ASCII (İ lowers to i, the Kelvin sign to k), so a
// phrase its bytes do not show may be anywhere (spots is then cut short).
// Every phrase the rule reads is in the lowered sentence, word after word
// with spaces between (a phrase before a name is compared word by word
// as strings.Fields splits the sentence, a space after its last word; one
// after a name as written, as a prefix of the rest), and it starts where
// a word starts: after a space or the start of its sentence (so after a
// byte that is no ASCII letter or digit), or, after a name, past the
// apostrophes, s's, commas and colons trimPossessive steps over (a run of
// s at the start of a word after one of them).
func negativeSpots(text string, spots []int32) (_ []int32, anywhere bool) {
	// Eight bytes at a time: where words start (a letter or digit after a
	// byte that is none, notWord8), and at each start its first byte.
	var before uint64 // the top bit: the last byte read was a letter or digit
	for i := 0; i < len(text); i += 8 {
		var w uint64
		if i+8 <= len(text) {
			w = word8(text, i)
		} else {
			for k := len(text) - 1; k >= i; k-- {
				w = w<<8 | uint64(text[k]) // the missing bytes are zero: no letter
			}
		}
		if w&0x8080808080808080 != 0 && outsideIntoASCII(text, i) {
			return spots, true
		}
		word := ^notWord8(w) & 0x8080808080808080
		starts := word &^ (word<<8 | before)
		before = word >> 56
		for ; starts != 0; starts &= starts - 1 {
			// The word's first two bytes, from w but at its last byte.
			sh := bits.TrailingZeros64(starts) - 7 // 8 × the byte's place in w
			k := uint32(w>>sh)&0xffff | 0x2020
			if sh == 56 {
				j := i + 7
				if j+1 == len(text) {
					break // a word of one byte starts no phrase
				}
				k = uint32(text[j]) | uint32(text[j+1])<<8 | 0x2020
			}
			j := i + sh>>3
			if (negativeLead[k/64]&(1<<(k%64)) != 0 || k&0xff == 's' && j > 0 && possessiveEnd[text[j-1]]) && negativeWordAt(text, j) {
				spots = append(spots, int32(j))
			}
		}
	}
	return spots, false
}

// sentenceAround is the sentence of text (as cueSpans splits it: at a
// line break, or at . ! ? before a space or the end; spaces trimmed)
// holding i, a letter's byte, and the end of its untrimmed span (where
// the next sentence's span starts).
func sentenceAround(text string, i int) (start, end, next int) {
	boundary := func(j int) bool {
		switch text[j] {
		case '\n':
			return true
		case '.', '!', '?':
			return j+1 == len(text) || unicode.IsSpace(rune(text[j+1]))
		}
		return false
	}
	start = i
	for start > 0 && !boundary(start-1) {
		start--
	}
	next = i
	for next < len(text) && !boundary(next) {
		next++
	}
	next = min(next+1, len(text))
	var buf [1][2]int32
	sp := appendSpan(text, buf[:0], start, next)
	return int(sp[0][0]), int(sp[0][1]), next
}

// outsideIntoASCII says bytes i to i+8 of text (or to its end) start a
// character of intoASCII.
func outsideIntoASCII(text string, i int) bool {
	for k := i; k < min(i+8, len(text)); k++ {
		if intoASCIILead[text[k]] {
			if r, _ := utf8.DecodeRuneInString(text[k:]); lowersIntoASCII(r) {
				return true
			}
		}
	}
	return false
}

// negativeWordAt says a phrase of negativePhrases starts at the word
// starting at start of text or, when it starts with a run of s after a
// byte of possessiveEnd, right after the run.
func negativeWordAt(text string, start int) bool {
	if negativeAt(text, start) {
		return true
	}
	if text[start]|0x20 != 's' || start == 0 || !possessiveEnd[text[start-1]] {
		return false
	}
	j := start + 1
	for j < len(text) && text[j]|0x20 == 's' {
		j++
	}
	return j < len(text) && wordByte[text[j]] && negativeAt(text, j)
}

// negativeAt says a phrase of negativePhrases starts at i of text, its
// words compared in ASCII lower case with one space or more between
// them. The word's start is read first (negativeKeys), and where that
// is a whole short word ("is", "has"), the byte that starts the next.
func negativeAt(text string, i int) bool {
	var k uint32
	if i+4 <= len(text) {
		b := text[i : i+4]
		k = uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	} else {
		for j := len(text) - 1; j >= i; j-- {
			k = k<<8 | uint32(text[j])
		}
	}
	k |= 0x20202020 // ASCII lower case (and no byte that is not a letter becomes one)
	for ki := range negativeKeys[lowerASCII(text[i])] {
		key := &negativeKeys[lowerASCII(text[i])][ki]
		if k&key.mask != key.text {
			continue
		}
		if key.n < 4 {
			e := i + key.n
			if e < len(text) && wordByte[text[e]] {
				continue // a longer word
			}
			if key.next != nil {
				j := len(text) - len(trimLeftSpace(text[e:]))
				if j == e || j == len(text) || !key.next[text[j]|0x20] {
					continue // no phrase's second word starts there
				}
			}
		}
		for _, p := range key.phrases {
			if p.looseAt(text, i) {
				return true
			}
		}
	}
	return false
}

// negativeKey is the start of a phrase's first word: its first n bytes
// (at most four), in text (mask keeps them); phrases are the phrases
// whose first word starts so. For a first word of fewer than four bytes
// whose phrases all have a second word, next holds the second words'
// first bytes.
type negativeKey struct {
	text, mask uint32
	n          int
	phrases    []negativePhrase
	next       *[256]bool
}

// negativeKeys are the phrases' first words' keys, by their first byte.
var negativeKeys = func() (out [256][]negativeKey) {
	for _, p := range negativePhrases {
		w := p.words[0]
		key := negativeKey{n: min(len(w), 4)}
		for k := range key.n {
			key.text |= uint32(w[k]|0x20) << (8 * k)
			key.mask |= 0xff << (8 * k)
		}
		i := slices.IndexFunc(out[w[0]], func(x negativeKey) bool { return x.text == key.text && x.mask == key.mask })
		if i < 0 {
			out[w[0]] = append(out[w[0]], key)
			i = len(out[w[0]]) - 1
		}
		out[w[0]][i].phrases = append(out[w[0]][i].phrases, p)
	}
	for c := range out {
		for i := range out[c] {
			key := &out[c][i]
			if key.n == 4 || slices.ContainsFunc(key.phrases, func(p negativePhrase) bool { return len(p.words) == 1 }) {
				continue
			}
			key.next = new([256]bool)
			for _, p := range key.phrases {
				key.next[p.words[1][0]] = true
			}
		}
	}
	return out
}()

// negativePhrase is a phrase's words; spaceAfter says a space follows
// its last word (a phrase before a name is whole words of the sentence,
// and the name cannot start right after a letter; one after a name is a
// prefix of the rest of the sentence, "Acme outages" holds "outage").
type negativePhrase struct {
	words      []string
	spaceAfter bool
}

// looseAt says p's words are at i of text, in ASCII lower case, with a
// run of spaces (unicode.IsSpace) between each two and, with spaceAfter,
// after the last; else the last may end inside a longer word.
func (p negativePhrase) looseAt(text string, i int) bool {
	for k, w := range p.words {
		if !hasPrefixFoldASCII(text[i:], w) {
			return false
		}
		i += len(w)
		if k == len(p.words)-1 && !p.spaceAfter {
			return true
		}
		j := len(text) - len(trimLeftSpace(text[i:]))
		if j == i {
			return false
		}
		i = j
	}
	return true
}

// negativePhrases are every phrase of negativeBefore and negativeAfter.
var negativePhrases = func() (out []negativePhrase) {
	for _, p := range negativeBefore {
		out = append(out, negativePhrase{words: strings.Fields(p), spaceAfter: true})
	}
	for _, p := range negativeAfter {
		out = append(out, negativePhrase{words: strings.Fields(p)})
	}
	for _, p := range out {
		if len(p.words[0]) < 2 {
			panic("analysis: a negative phrase starts with a word of one byte")
		}
	}
	return out
}()

// negativeLead holds, for two bytes a and b, bit a|b<<8|0x2020 (each in
// ASCII lower case, and no byte that is not a letter made one) when a
// phrase's first word starts with them: the words negativeWordAt reads,
// with those starting with s after a byte of possessiveEnd.
var negativeLead = func() (t [1 << 16 / 64]uint64) {
	for _, p := range negativePhrases {
		w := p.words[0]
		k := uint32(w[0]) | uint32(w[1])<<8 | 0x2020
		t[k/64] |= 1 << (k % 64)
	}
	return t
}()

// possessiveEnd says which bytes trimPossessive steps over before a run
// of s, or end a character it does (’ ends in 0x99): a phrase after a
// name starts past a run of s only after one of them (a word after a
// space starts where it starts).
var possessiveEnd = func() (t [256]bool) {
	for _, c := range []byte{'\'', ',', ':', "’"[len("’")-1]} {
		t[c] = true
	}
	return t
}()

// intoASCIILead says which bytes start a character of intoASCII.
var intoASCIILead = func() (t [256]bool) {
	for _, r := range intoASCII {
		t[string(r)[0]] = true
	}
	return t
}()

// lowersIntoASCII says r, outside ASCII, is a character whose lower case
// is ASCII.
func lowersIntoASCII(r rune) bool {
	for _, x := range intoASCII {
		if r == x {
			return true
		}
	}
	return false
}

// intoASCII are the characters outside ASCII whose lower case
// (unicode.ToLower, as strings.ToLower lowers each) is ASCII: every
// character with a case is in unicode.CaseRanges.
var intoASCII = func() (out []rune) {
	for _, cr := range unicode.CaseRanges {
		for r := max(rune(cr.Lo), utf8.RuneSelf); r <= rune(cr.Hi); r++ {
			if unicode.ToLower(r) < utf8.RuneSelf {
				out = append(out, r)
			}
		}
	}
	return out
}()
