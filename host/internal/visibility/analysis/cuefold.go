package analysis

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ASCII needles found without case on word boundaries, for the cue pass.

// folder finds an ASCII needle in a text, ASCII letters compared without
// case, left to right, one start after the other (each start after the
// last one found).
type folder struct {
	text, nd string
	lo, up   byte // the needle's first byte in either case
	off      int  // where the next search starts
	nlo, nup int  // the next lo and up at or after off; -1 none, -2 not looked up
}

func (f *folder) reset(text, nd string) {
	f.text, f.nd, f.off = text, nd, 0
	f.lo, f.up = lowerASCII(nd[0]), nd[0]
	if f.lo >= 'a' && f.lo <= 'z' {
		f.up = f.lo - ('a' - 'A')
	}
	f.nlo, f.nup = -2, -2
	if f.lo == f.up {
		f.nup = -1
	}
}

// nextByte is the index of b at or after off in text, given the last
// answer n for an earlier off.
func nextByte(text string, b byte, off, n int) int {
	if n == -1 || n >= off {
		return n
	}
	if off >= len(text) {
		return -1
	}
	i := strings.IndexByte(text[off:], b)
	if i < 0 {
		return -1
	}
	return off + i
}

// next is the start of the next occurrence, -1 when none is left.
func (f *folder) next() int {
	for {
		if f.off+len(f.nd) > len(f.text) {
			return -1
		}
		f.nlo = nextByte(f.text, f.lo, f.off, f.nlo)
		if f.lo != f.up {
			f.nup = nextByte(f.text, f.up, f.off, f.nup)
		}
		i := f.nlo
		if f.nup >= 0 && (i < 0 || f.nup < i) {
			i = f.nup
		}
		if i < 0 || i+len(f.nd) > len(f.text) {
			return -1
		}
		f.off = i + 1
		if foldEqualASCII(f.text[i:i+len(f.nd)], f.nd) {
			return i
		}
	}
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// foldEqualASCII says a and b are the same bytes with ASCII letters
// compared without case (a byte outside ASCII equals only itself; unlike
// strings.EqualFold, ſ is not s and K is not k).
func foldEqualASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] && lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

// wordBoundedFold is wordBounded over the lowered text, read in the text
// as written (whose lower case keeps its offsets): no letter or digit,
// in lower case, right before start or right after end.
func wordBoundedFold(text string, start, end int) bool {
	word := func(r rune) bool {
		if r < utf8.RuneSelf {
			return asciiWord[r]
		}
		r = unicode.ToLower(r)
		return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
	}
	if start > 0 {
		before := rune(text[start-1])
		if before >= utf8.RuneSelf {
			before, _ = utf8.DecodeLastRuneInString(text[:start])
		}
		if word(before) {
			return false
		}
	}
	if end < len(text) {
		after := rune(text[end])
		if after >= utf8.RuneSelf {
			after, _ = utf8.DecodeRuneInString(text[end:])
		}
		if word(after) {
			return false
		}
	}
	return true
}
