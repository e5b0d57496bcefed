package seo

import (
	"math"
	"strings"
)

// keyphrase is a focus keyphrase ready for matching: its content words
// (function words dropped) and, when the language has a stemmer, their
// stems, so "train a puppy" matches "training your puppies".
type keyphrase struct {
	text    string
	all     []string // every word
	content []string // content words; all words when there are only function words
	stems   []string
	// exact is set for a keyphrase in double quotes: only the exact
	// sequence of words matches.
	exact        bool
	onlyFunction bool
}

func (a *analysis) keyphrase(text string) keyphrase {
	k := keyphrase{text: text}
	t := strings.TrimSpace(text)
	if len(t) > 1 && (strings.HasPrefix(t, `"`) && strings.HasSuffix(t, `"`) || strings.HasPrefix(t, "“") && strings.HasSuffix(t, "”")) {
		k.exact = true
	}
	k.all = words(t)
	fw := a.functionWords()
	for _, w := range k.all {
		if !fw[w] {
			k.content = append(k.content, w)
		}
	}
	if len(k.content) == 0 {
		k.content = k.all
		k.onlyFunction = len(k.all) > 0
	}
	if k.exact {
		k.content = k.all
	}
	for _, w := range k.content {
		k.stems = append(k.stems, a.stem(w))
	}
	return k
}

// stem is w's stem in the text's language (cached), or w itself.
func (a *analysis) stem(w string) string {
	if a.lang == nil || a.lang.stem == nil {
		return w
	}
	if s, ok := a.stems[w]; ok {
		return s
	}
	s := a.lang.stem(w)
	a.stems[w] = s
	return s
}

// matches reports whether text word w is a form of the keyphrase's i-th
// content word (with typed forms only, the word as typed).
func (a *analysis) matches(k keyphrase, i int, w string) bool {
	kw := k.content[i]
	if w == kw {
		return true
	}
	if k.exact || a.typedForms {
		return false
	}
	if sameWord(w, kw) {
		return true
	}
	if a.lang == nil || a.lang.stem == nil {
		return false
	}
	// Cheap filter before stemming: forms share their first letters.
	p := min(3, len(kw), len(w))
	if w[:p] != kw[:p] {
		return false
	}
	return a.stem(w) == k.stems[i]
}

// sameWord matches a word and its simple plural ("tool", "tools").
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.HasPrefix(b, a) && (b[len(a):] == "s" || b[len(a):] == "es")
}

// countIn counts the keyphrase in one sentence the way Yoast does: every
// content word must occur somewhere in the sentence, in any order, and
// the sentence counts as many times as its rarest content word occurs.
// An exact (quoted) keyphrase counts its exact word sequence.
func (a *analysis) countIn(k keyphrase, ws []string) int {
	if len(k.content) == 0 {
		return 0
	}
	if k.exact {
		n := 0
	outer:
		for i := 0; i+len(k.content) <= len(ws); i++ {
			for j := range k.content {
				if ws[i+j] != k.content[j] {
					continue outer
				}
			}
			n++
			i += len(k.content) - 1
		}
		return n
	}
	least := math.MaxInt
	for i := range k.content {
		c := 0
		for _, w := range ws {
			if a.matches(k, i, w) {
				c++
			}
		}
		least = min(least, c)
		if least == 0 {
			return 0
		}
	}
	return least
}

// share is the share (0–100) of the keyphrase's content words found in ws.
func (a *analysis) share(k keyphrase, ws []string) float64 {
	if len(k.content) == 0 {
		return 0
	}
	found := 0
	for i := range k.content {
		for _, w := range ws {
			if a.matches(k, i, w) {
				found++
				break
			}
		}
	}
	return float64(found) * 100 / float64(len(k.content))
}

// count is the keyphrase's occurrences in the text, sentence by sentence.
func (a *analysis) count(k keyphrase) int {
	n := 0
	for _, s := range a.sents {
		n += a.countIn(k, s.words)
	}
	return n
}

// density is occurrences per 100 words, rounded to two decimals.
func (a *analysis) density(count int) float64 {
	if a.densityWds == 0 {
		return 0
	}
	return math.Round(float64(count)*10000/float64(a.densityWds)) / 100
}

// lengthFactor weighs density by keyphrase length, as Yoast does: a
// three-word keyphrase at 1% weighs like a one-word one at about 1.7%.
func lengthFactor(contentWords int) float64 { return 0.7 + float64(contentWords)/3 }
