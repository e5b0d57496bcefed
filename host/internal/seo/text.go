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
// groups, less a silent final e ("make", "while", "rule" but not "table"),
// a silent e of -es ("comes", "takes" but not "boxes", "places") and of
// -ed ("jumped" but not "wanted"), plus one for -ing after a vowel
// ("being", "going"), at least one.
func syllables(w string) int {
	n := 0
	prevVowel := false
	for i := 0; i < len(w); i++ {
		v := isVowelY(w[i])
		if v && !prevVowel {
			n++
		}
		prevVowel = v
	}
	l := len(w)
	switch {
	case n <= 1:
	case w[l-1] == 'e' && !(l >= 3 && w[l-2] == 'l' && !isVowelY(w[l-3])) && !isVowelY(w[l-2]):
		n-- // "make", "while"; not "table", not "free"
	case strings.HasSuffix(w, "es") && l > 3 && !isVowelY(w[l-3]) && !strings.ContainsRune("sxzcg", rune(w[l-3])) &&
		!strings.HasSuffix(w, "ches") && !strings.HasSuffix(w, "shes") && !(w[l-3] == 'l' && l > 4 && !isVowelY(w[l-4])):
		n-- // "comes", "takes"; not "boxes", "places", "tables"
	case strings.HasSuffix(w, "ed") && l > 3 && w[l-3] != 't' && w[l-3] != 'd' && !isVowelY(w[l-3]):
		n-- // "jumped", but not "wanted"
	}
	if strings.HasSuffix(w, "ing") && l > 4 && isVowelY(w[l-4]) && w[l-4] != 'y' {
		n++ // "being", "going"
	} else if strings.HasSuffix(w, "ying") && l > 4 {
		n++ // "playing"
	}
	if n == 0 {
		return 1
	}
	return n
}

func isVowelY(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'
}
