package analysis

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The prose's words, read where the matcher needs them: a pass over the
// prose stops only at the words the trie may start with (most words start
// no alias), and there it reads the word and the ones after it that a
// name may go on into. What the tokens around a word say (where its
// sentence starts, whether it is a sentence's first word, the gap before
// it) depends only on the bytes around it, so it is read from them when a
// rule asks, not kept for every word.

// token is a run of letters and digits of the prose.
type token struct {
	start, end int32 // bytes of the text
}

// tokens are the words of one walk of the trie: list[0] is the word the
// walk starts at, then each word after it that a name may go on into.
type tokens struct {
	text string // the prose
	list []token
}

// abbreviations whose full stop does not end a sentence ("etc." does).
var abbreviations = []string{"vs", "e.g", "i.e", "eg", "ie", "cf", "incl", "approx", "esp"}

// abbreviationEnd says which bytes (either case) end an abbreviation.
var abbreviationEnd = func() (t [256]bool) {
	for _, a := range abbreviations {
		c := a[len(a)-1]
		t[c], t[asciiUpper(c)] = true, true
	}
	return t
}()

// asciiWord says which ASCII characters are letters or digits.
var asciiWord = func() (w [utf8.RuneSelf]bool) {
	for c := range w {
		w[c] = isWordRune(rune(c))
	}
	return w
}()

// wordByte is asciiWord over every byte: false for the bytes of a
// character outside ASCII, so a loop over ASCII words needs one test a
// byte.
var wordByte = func() (w [256]bool) {
	copy(w[:], asciiWord[:])
	return w
}()

// asciiGap says which bytes are ASCII and no letter or digit.
var asciiGap = func() (g [256]bool) {
	for c := range utf8.RuneSelf {
		g[c] = !asciiWord[c]
	}
	return g
}()

// asciiWordEnd is where the run of ASCII letters and digits at i of s
// ends, read eight bytes at a time (notWord8). Most words end within the
// first eight bytes: that read is small enough to be inlined.
func asciiWordEnd(s string, i int) int {
	if i+8 <= len(s) {
		if m := notWord8(word8(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	return asciiWordEndFrom(s, i)
}

// asciiWordEndFrom is asciiWordEnd's loop.
func asciiWordEndFrom(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := notWord8(word8(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && wordByte[s[i]] {
		i++
	}
	return i
}

// notWord8 has the top bit set of each byte of w that is no ASCII letter
// or digit (wordByte false), and no other bit. Each byte's low seven bits
// are compared with a range's ends by adding so that the top bit carries
// the answer and nothing crosses into the next byte; setting 0x20 puts a
// capital letter on its small one (and no other byte on a letter).
func notWord8(w uint64) uint64 {
	const (
		ones = 0x0101010101010101
		top  = 0x8080808080808080
	)
	low := w &^ top
	x := low | 0x20*ones
	letter := (x + (0x80-'a')*ones) &^ (x + (0x80-'z'-1)*ones)
	digit := (low + (0x80-'0')*ones) &^ (low + (0x80-'9'-1)*ones)
	return (w | ^(letter | digit)) & top
}

// reset makes t the tokens of prose, with no walk yet.
func (t *tokens) reset(prose string) { t.text, t.list = prose, t.list[:0] }

// wordEnd is where the word starting at i ends: its ASCII letters and
// digits read eight bytes at a time, then each letter or digit outside
// ASCII and the ASCII ones after it.
func (t *tokens) wordEnd(i int) int {
	s := t.text
	j := asciiWordEnd(s, i)
	for j < len(s) && s[j] >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !isWordRune(r) {
			break
		}
		j = asciiWordEnd(s, j+size)
	}
	return j
}

// nextWord is where the first word at or after i starts, looking at most
// limit bytes past i; -1 when none starts there.
func (t *tokens) nextWord(i, limit int) int {
	s := t.text
	for j := i; j < len(s) && j <= i+limit; {
		c := s[j]
		if c < utf8.RuneSelf {
			if wordByte[c] {
				return j
			}
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if isWordRune(r) {
			return j
		}
		j += size
	}
	return -1
}

// wordRuneBefore says the character ending at i is a letter or digit.
func (t *tokens) wordRuneBefore(i int) bool {
	if i <= 0 {
		return false
	}
	if c := t.text[i-1]; c < utf8.RuneSelf {
		return wordByte[c]
	}
	r, _ := utf8.DecodeLastRuneInString(t.text[:i])
	return isWordRune(r)
}

// wordRuneAt says the character starting at i is a letter or digit.
func (t *tokens) wordRuneAt(i int) bool {
	if i >= len(t.text) {
		return false
	}
	if c := t.text[i]; c < utf8.RuneSelf {
		return wordByte[c]
	}
	r, _ := utf8.DecodeRuneInString(t.text[i:])
	return isWordRune(r)
}

// prevEnd is where the word before the one starting at i ends, -1 when
// none comes before it. (Read backwards, the prose's characters are the
// ones read forwards: a valid character's first byte is never inside
// another valid one, and each byte of an invalid one is a character.)
func (t *tokens) prevEnd(i int) int {
	s := t.text
	for i > 0 {
		c := s[i-1]
		if c < utf8.RuneSelf {
			if wordByte[c] {
				return i
			}
			i--
			continue
		}
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if isWordRune(r) {
			return i
		}
		i -= size
	}
	return -1
}

// initial says the word starting at i is the first word of a sentence,
// not marked up as a name: at the start of the prose, after a line
// break, or after ., ! or ? and a space (not after vs., e.g., i.e.), with
// no code, link, table-cell or emphasis mark after that in the gap before
// it (a bullet's "* " is no mark). The gap since the word before decides:
// each word ends the sentence start before it.
func (t *tokens) initial(i int) bool {
	from := t.prevEnd(i)
	atStart, marked := from < 0, false
	s := t.text
	for j := max(from, 0); j < i; {
		r, size := rune(s[j]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[j:])
		}
		switch {
		case r == '\n':
			atStart, marked = true, false
		case r == '.' || r == '!' || r == '?':
			if endsSentence(s, j) {
				atStart, marked = true, false
			}
		case atStart && (r == '`' || r == '[' || r == '|' || r == '_'):
			marked = true
		case atStart && r == '*':
			// "* item" is a bullet; "**Name**" is a name set in bold.
			next, _ := utf8.DecodeRuneInString(s[j+size:])
			if next == '*' || isWordRune(next) {
				marked = true
			}
		}
		j += size
	}
	return atStart && !marked
}

// endsSentence says the ., ! or ? at i ends a sentence: the prose ends
// after it, or a space, a bold mark, a quote or a parenthesis follows,
// and a full stop does not end an abbreviation.
func endsSentence(prose string, i int) bool {
	next, _ := utf8.DecodeRuneInString(prose[i+1:])
	if i+1 >= len(prose) || unicode.IsSpace(next) || next == '*' || next == '"' || next == ')' {
		return prose[i] != '.' || !abbreviation(prose, i)
	}
	return false
}

// sentenceStart is where the sentence of the word starting at i starts:
// after the last line break or sentence end before it, looking back at
// most window bytes (0 when none is there).
func (t *tokens) sentenceStart(i, window int) int {
	s := t.text
	for j := i - 1; j >= max(0, i-window-1); j-- {
		switch s[j] {
		case '\n':
			return j + 1
		case '.', '!', '?':
			if endsSentence(s, j) {
				return j + 1
			}
		}
	}
	return 0
}

// abbreviation reports whether the full stop at i ends an abbreviation
// (vs., e.g., i.e.).
func abbreviation(prose string, i int) bool {
	if i == 0 || !abbreviationEnd[prose[i-1]] {
		return false // the word before the stop ends no abbreviation
	}
	j := i
	for j > 0 && i-j < 8 && (prose[j-1] == '.' || prose[j-1] < 0x80 && unicode.IsLetter(rune(prose[j-1]))) {
		j--
	}
	// Every byte of prose[j:i] is ASCII: compared without case, as the
	// lowered word would be.
	w := prose[j:i]
	for _, a := range abbreviations {
		if foldEqualASCII(w, a) {
			return true
		}
	}
	return false
}

const (
	gapBreak = iota
	gapSoft  // spaces or a hyphen inside a name: Hub Spot, Mail-Chimp
	gapHard  // punctuation without spaces: monday.com, AT&T
)

func gapKind(g string) int {
	switch {
	case g == " " || g == "-" || g == "\u00a0":
		return gapSoft
	case len(g) <= 3 && !strings.ContainsAny(g, " \t\n\r") && g != "":
		return gapHard
	}
	return gapBreak
}

// labelTrail is what label steps over after a token.
var labelTrail = asciiSet(" *_`")

// label reports whether the token at k is a list item's or a heading's
// label: followed by a colon, a dash, a parenthesis or the end of the
// line ("Linear – issue tracking", "Close: a CRM for inside sales").
func (t *tokens) label(k int) bool {
	rest := t.text[t.list[k].end:]
	rest = trimLeftASCII(rest, &labelTrail)
	if rest == "" || rest[0] == '\n' || rest[0] == ':' || rest[0] == '(' || rest[0] == '\r' {
		return true
	}
	for _, d := range []string{"- ", "– ", "— ", "-\n", "–\n", "—\n"} {
		if strings.HasPrefix(rest, d) {
			return true
		}
	}
	return false
}

// sentenceOf is the sentence around the word start..end (at most 300
// bytes either side), spaces collapsed: what the judge reads.
func (t *tokens) sentenceOf(start, end int) string {
	tokEnd := end
	start = max(t.sentenceStart(start, 300), start-300)
	for end < len(t.text) && end-tokEnd < 300 {
		c := t.text[end]
		if stopClass[c] != 1 && stopClass[c] != 2 {
			end++ // neither a line break nor . ! ?
			continue
		}
		if c == '\n' {
			break
		}
		end++
		if end == len(t.text) || t.text[end] == ' ' || t.text[end] == '\n' {
			break
		}
	}
	for start > 0 && !utf8.RuneStart(t.text[start]) {
		start++
	}
	for end < len(t.text) && !utf8.RuneStart(t.text[end]) {
		end++
	}
	return collapseSpaces(t.text[start:end])
}

// singleSpaced says no byte of s is below a space (0x20) or outside
// ASCII, and no two spaces are in a row, eight bytes at a time: a byte
// below 0x20 sets its top bit when 0x20 is taken from it, and a byte
// above 0x7f has it set (a borrow crosses into the next byte only from a
// byte that set it already); a space is a byte that is zero once 0x20 is
// xored out of it, told without a borrow by adding 0x7f to its low bits.
func singleSpaced(s string) bool {
	const (
		ones   = 0x0101010101010101
		top    = 0x8080808080808080
		spaces = 0x20 * ones
	)
	var prev uint64 // the top bit: the last byte read was a space
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := word8(s, i)
		if (w-spaces|w)&top != 0 {
			return false
		}
		x := w ^ spaces
		sp := ^((x &^ top) + 0x7f*ones | x) & top // the top bit of each space
		if sp&(sp<<8|prev) != 0 {
			return false
		}
		prev = sp >> 56
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == ' ' && prev != 0 {
			return false
		}
		prev = 0
		if c == ' ' {
			prev = 0x80
		}
	}
	return true
}

// collapseSpaces is strings.Join(strings.Fields(s), " "), without copying
// s when it is ASCII with single spaces between words already.
func collapseSpaces(s string) string {
	plain := s != "" && s[0] != ' ' && s[len(s)-1] != ' '
	if plain && singleSpaced(s) {
		return s // no byte outside ASCII or below a space, no two spaces
	}
	for i := 0; i < len(s) && plain; i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			plain = false
		case c == ' ':
			plain = s[i+1] != ' '
		}
	}
	if plain {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
