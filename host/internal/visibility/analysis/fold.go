package analysis

import (
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// foldCache maps a non-ASCII rune to its folded runes: lowercase, without
// diacritics (NFD, combining marks dropped: ë → e, é → e), plus the
// letters NFD leaves whole (ø → o, ß → ss, æ → ae).
var foldCache sync.Map

var foldSpecial = map[rune]string{'ø': "o", 'ł': "l", 'đ': "d", 'ß': "ss", 'æ': "ae", 'œ': "oe", 'ı': "i", 'þ': "th", 'ð': "d"}

// foldAppend appends r folded (case and diacritics) to dst.
func foldAppend(dst []rune, r rune) []rune {
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, r)
	}
	return append(dst, foldRune(r)...)
}

// foldRune is the non-ASCII rune r folded: one rune or more.
func foldRune(r rune) []rune {
	if v, ok := foldCache.Load(r); ok {
		return v.([]rune)
	}
	var out []rune
	lr := unicode.ToLower(r)
	if s, ok := foldSpecial[lr]; ok {
		out = []rune(s)
	} else {
		for _, d := range norm.NFD.String(string(lr)) {
			if !unicode.Is(unicode.Mn, d) {
				out = append(out, unicode.ToLower(d))
			}
		}
		if len(out) == 0 {
			out = []rune{lr}
		}
	}
	foldCache.Store(r, out)
	return out
}

// isWordRune says r is a letter or a digit. The punctuation answers are
// written with (dashes, quotes, the ellipsis: U+2000 to U+206F) and the
// no-break space are neither, so they are not looked up.
func isWordRune(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	if r >= 0x2000 && r <= 0x206f || r == 0xa0 {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// foldString folds every word rune of s and keeps the rest.
func foldString(s string) string {
	var out []rune
	for _, r := range s {
		out = foldAppend(out, r)
	}
	return string(out)
}
