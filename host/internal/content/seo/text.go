package seo

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// words splits text into lower-case words: runs of letters and digits,
// keeping inner apostrophes and hyphens ("don't", "e-mail").
func words(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		inner := (r == '\'' || r == '’' || r == '-') && start >= 0
		if unicode.IsLetter(r) || unicode.IsDigit(r) || inner {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, normWord(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, normWord(text[start:]))
	}
	return out
}

func normWord(w string) string {
	w = strings.TrimRight(w, "'’-")
	w = strings.ReplaceAll(w, "’", "'")
	for _, r := range w {
		if r >= utf8.RuneSelf || unicode.IsUpper(r) {
			return strings.ToLower(w)
		}
	}
	return w
}

// sentences splits a block's text at ., ! or ? followed by a space and an
// upper-case letter, digit or quote, or at the end. Common abbreviations
// ("e.g.", "Dr.") and decimals do not end a sentence.
func sentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	// byte offsets of each rune, to cut the string without re-encoding
	offs := make([]int, len(rs)+1)
	o := 0
	for i, r := range rs {
		offs[i] = o
		o += utf8.RuneLen(r)
	}
	offs[len(rs)] = o
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r != '.' && r != '!' && r != '?' && r != '…' {
			continue
		}
		j := i + 1
		for j < len(rs) && (rs[j] == '.' || rs[j] == '!' || rs[j] == '?' || rs[j] == '"' || rs[j] == '”' || rs[j] == ')' || rs[j] == '\'') {
			j++
		}
		if j < len(rs) && !unicode.IsSpace(rs[j]) {
			continue // 3.14, example.com
		}
		k := j
		for k < len(rs) && unicode.IsSpace(rs[k]) {
			k++
		}
		if k < len(rs) && !(unicode.IsUpper(rs[k]) || unicode.IsDigit(rs[k]) || rs[k] == '"' || rs[k] == '“' || rs[k] == '(') {
			continue
		}
		if r == '.' && isAbbrev(text[offs[start]:offs[i]]) {
			continue
		}
		if s := strings.TrimSpace(text[offs[start]:offs[j]]); s != "" {
			out = append(out, s)
		}
		start = k
		i = k - 1
	}
	if start < len(rs) {
		if s := strings.TrimSpace(text[offs[start]:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var abbrevs = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true,
	"st": true, "vs": true, "etc": true, "e.g": true, "i.e": true, "inc": true, "ltd": true, "no": true, "fig": true}

func isAbbrev(before string) bool {
	i := strings.LastIndexAny(before, " \t\n(")
	w := strings.ToLower(before[i+1:])
	return abbrevs[w] || (utf8.RuneCountInString(w) == 1 && w != "")
}

// syllables estimates the English syllables of a lower-case word: vowel
// groups, less a silent final e, at least one.
func syllables(w string) int {
	n := 0
	prevVowel := false
	last := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		v := c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'
		if v && !prevVowel {
			n++
		}
		prevVowel = v
		last = i
	}
	if n > 1 && w[last] == 'e' && !(last > 0 && w[last-1] == 'l') {
		n-- // "make", but not "table"
	}
	if n > 1 && strings.HasSuffix(w, "ed") && len(w) > 3 && w[len(w)-3] != 't' && w[len(w)-3] != 'd' {
		n-- // "jumped", but not "wanted"
	}
	if n == 0 {
		return 1
	}
	return n
}
