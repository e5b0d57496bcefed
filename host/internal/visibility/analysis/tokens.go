package analysis

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is a run of letters and digits of the prose.
type token struct {
	start, end int32 // bytes of the text
	sentence   int32 // where its sentence starts (bytes)
	// initial: the first word of a sentence, not marked up as a name
	// (bold, code, link text or a table cell).
	initial bool
}

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

// asciiPlain says which bytes reset may step over: ASCII that is no
// letter or digit and none of the characters its switch reads.
var asciiPlain = func() (p [256]bool) {
	for c := range utf8.RuneSelf {
		p[c] = !asciiWord[c] && !strings.ContainsRune("\n.!?`[|_*", rune(c))
	}
	return p
}()

// reset splits the prose into tokens in one pass, marking the first
// word of each sentence: at the start, after a line break, or after ., !
// or ? and a space (not after vs., e.g., i.e.).
func (t *tokens) reset(prose string) {
	t.text, t.list = prose, t.list[:0]
	atStart, marked := true, false
	sentence := 0
	for i := 0; i < len(prose); {
		if asciiPlain[prose[i]] {
			i++ // a space or punctuation that marks nothing
			continue
		}
		r, size := rune(prose[i]), 1
		word := r < utf8.RuneSelf && asciiWord[r]
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(prose[i:])
			word = isWordRune(r)
		}
		if word {
			tok := token{start: int32(i), sentence: int32(sentence), initial: atStart && !marked}
			// asciiWordEnd, its first read written out here (it is not
			// inlined, and most words end within it).
			j := i + size
			if j+8 <= len(prose) {
				if m := notWord8(word8(prose, j)); m != 0 {
					j += bits.TrailingZeros64(m) >> 3
				} else {
					j = asciiWordEndFrom(prose, j+8)
				}
			} else {
				j = asciiWordEndFrom(prose, j)
			}
			for j < len(prose) && prose[j] >= utf8.RuneSelf {
				// A letter or digit outside ASCII goes on with the word.
				r2, s2 := utf8.DecodeRuneInString(prose[j:])
				if !isWordRune(r2) {
					break
				}
				j = asciiWordEnd(prose, j+s2)
			}
			tok.end = int32(j)
			t.list = append(t.list, tok)
			atStart, marked = false, false
			if i = j; i < len(prose) && asciiPlain[prose[i]] {
				i++ // the space after a word, read without a turn of the loop
			}
			continue
		}
		switch {
		case r == '\n':
			atStart, marked, sentence = true, false, i+1
		case r == '.' || r == '!' || r == '?':
			next, _ := utf8.DecodeRuneInString(prose[i+size:])
			if i+size >= len(prose) || unicode.IsSpace(next) || next == '*' || next == '"' || next == ')' {
				if r != '.' || !abbreviation(prose, i) {
					atStart, marked, sentence = true, false, i+size
				}
			}
		case atStart && (r == '`' || r == '[' || r == '|' || r == '_'):
			marked = true
		case atStart && r == '*':
			// "* item" is a bullet; "**Name**" is a name set in bold.
			next, _ := utf8.DecodeRuneInString(prose[i+size:])
			if next == '*' || isWordRune(next) {
				marked = true
			}
		case r == '|':
			marked = true // a table cell is not a sentence
		}
		i += size
	}
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

// gap is the text between tokens k and k+1.
func (t *tokens) gap(k int) string {
	return t.text[t.list[k].end:t.list[k+1].start]
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

// sentenceOf is the sentence around token k (at most 300 bytes either
// side), spaces collapsed: what the judge reads.
func (t *tokens) sentenceOf(k int) string {
	tok := t.list[k]
	start := max(int(tok.sentence), int(tok.start)-300)
	end := int(tok.end)
	for end < len(t.text) && end-int(tok.end) < 300 {
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

// printableASCII says no byte of s is below a space (0x20) or outside
// ASCII, eight bytes at a time: a byte below 0x20 sets its top bit when
// 0x20 is taken from it, and a byte above 0x7f has it set; a borrow
// crosses into the next byte only from a byte that set it already.
func printableASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if w := word8(s, i); (w-0x2020202020202020|w)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// collapseSpaces is strings.Join(strings.Fields(s), " "), without copying
// s when it is ASCII with single spaces between words already.
func collapseSpaces(s string) string {
	plain := s != "" && s[0] != ' ' && s[len(s)-1] != ' '
	if plain && printableASCII(s) {
		// No byte outside ASCII or below a space: only two spaces in a
		// row would need collapsing.
		if !strings.Contains(s, "  ") {
			return s
		}
		return strings.Join(strings.Fields(s), " ")
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
