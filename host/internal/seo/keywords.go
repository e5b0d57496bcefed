package seo

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// maxPhraseWords bounds RAKE candidates: longer runs are rarely keyphrases.
const maxPhraseWords = 3

// extractKeywords ranks candidate phrases with RAKE (Rose et al., "Automatic
// keyword extraction from individual documents", 2010): candidates are runs
// of words between stop words and punctuation, each word scores
// degree/frequency, a phrase the sum of its words. Phrases that occur more
// than once are preferred, since a keyphrase is something the text repeats;
// ties break alphabetically so the output is deterministic.
func extractKeywords(doc *document, n int) []string {
	type cand struct {
		words []string
		freq  int
	}
	cands := map[string]*cand{}
	var order []string
	freq := map[string]int{}
	degree := map[string]int{}
	add := func(run []string) {
		if len(run) == 0 || len(run) > maxPhraseWords {
			return
		}
		key := strings.Join(run, " ")
		c := cands[key]
		if c == nil {
			c = &cand{words: slices.Clone(run)}
			cands[key] = c
			order = append(order, key)
		}
		c.freq++
		for _, w := range run {
			freq[w]++
			degree[w] += len(run)
		}
	}
	for _, b := range doc.blocks {
		var run []string
		word := strings.Builder{}
		endWord := func(boundary bool) {
			if word.Len() > 0 {
				w := normWord(word.String())
				word.Reset()
				if stopwords[w] || len([]rune(w)) < 3 || isNumber(w) {
					add(run)
					run = run[:0]
				} else {
					run = append(run, w)
				}
			}
			if boundary {
				add(run)
				run = run[:0]
			}
		}
		for _, r := range b.text {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || ((r == '\'' || r == '’' || r == '-') && word.Len() > 0):
				word.WriteRune(r)
			case unicode.IsSpace(r):
				endWord(false)
			default:
				endWord(true)
			}
		}
		endWord(true)
	}
	type scored struct {
		key   string
		score float64
		freq  int
	}
	var all []scored
	for _, key := range order {
		c := cands[key]
		s := 0.0
		for _, w := range c.words {
			s += float64(degree[w]) / float64(freq[w])
		}
		all = append(all, scored{key: key, score: s, freq: c.freq})
	}
	slices.SortFunc(all, func(a, b scored) int {
		ar, br := min(a.freq, 2), min(b.freq, 2) // repeated phrases first
		if ar != br {
			return cmp.Compare(br, ar)
		}
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		if a.freq != b.freq {
			return cmp.Compare(b.freq, a.freq)
		}
		return cmp.Compare(a.key, b.key)
	})
	var out []string
	for _, s := range all {
		if len(out) == n {
			break
		}
		out = append(out, s.key)
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) && r != '.' && r != ',' {
			return false
		}
	}
	return true
}
