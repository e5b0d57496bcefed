package seo

import (
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/spanish"
)

// language is what the readability and keyphrase checks need to know of a
// language. A language without a passive-voice rule gets Yoast's "partial
// support" scoring (fewer checks, stricter penalty bands).
type language struct {
	code string
	// flesch is the language's Flesch reading-ease variant from words per
	// sentence and syllables per word.
	flesch     func(wps, spw float64) float64
	fleschName string
	syllables  func(w string) int
	// stem reduces a word to a form shared by its inflections; nil
	// matches words exactly (and simple plurals).
	stem        func(w string) string
	transitions map[string]bool
	// transitionPhrases are multi-word transitions, space-joined.
	transitionPhrases []string
	function          map[string]bool
	// firstWordSkip are sentence openers that do not count as the start
	// of a sentence on their own ("the", "a", numbers): the start is then
	// the first two words.
	firstWordSkip map[string]bool
	passive       func(ws []string) bool
	// longSentence is the words above which a sentence is long (0: the
	// default, longSentenceWords). Spanish and Italian sentences run
	// longer by nature; Yoast allows them 25.
	longSentence int

	phraseOnce     sync.Once
	phrasesByFirst map[string][][]string
}

// Flesch reading-ease variants. wps is words per sentence, spw syllables
// per word.
func fleschEnglish(wps, spw float64) float64 { return 206.835 - 1.015*wps - 84.6*spw } // Flesch (1948)
func fleschAmstad(wps, spw float64) float64  { return 180 - wps - 58.5*spw }           // German, Amstad (1978)
func fleschHuerta(wps, spw float64) float64  { return 206.84 - 1.02*wps - 60*spw }     // Spanish, Fernández Huerta (1959)
func fleschKandel(wps, spw float64) float64  { return 207 - 1.015*wps - 73.6*spw }     // French, Kandel & Moles (1958)
func fleschVacca(wps, spw float64) float64   { return 217 - 1.3*wps - 60*spw }         // Italian, Franchina & Vacca (1986)
func fleschDouma(wps, spw float64) float64   { return 206.835 - 0.93*wps - 77*spw }    // Dutch, Douma (1960)

var english_ = &language{
	code: "en", flesch: fleschEnglish, fleschName: "Flesch reading ease",
	syllables:   syllables,
	stem:        func(w string) string { return english.Stem(w, true) },
	transitions: enTransitions, transitionPhrases: enTransitionPhrases,
	function: stopwords, firstWordSkip: enFirstWordSkip, passive: isPassive,
}

// languages are the supported languages by code.
var languages = map[string]*language{
	"en": english_,
	"de": {code: "de", flesch: fleschAmstad, fleschName: "Flesch reading ease (Amstad)", syllables: vowelGroups(deVowels, false),
		transitions: set(deTransitions), transitionPhrases: phrases(deTransitionPhrases), function: set(deFunction), firstWordSkip: set(deFirst), passive: dePassive},
	"es": {code: "es", flesch: fleschHuerta, fleschName: "Fernández Huerta reading ease", syllables: vowelGroups(esVowels, false),
		stem:        func(w string) string { return spanish.Stem(w, true) },
		transitions: set(esTransitions), transitionPhrases: phrases(esTransitionPhrases), function: set(esFunction), firstWordSkip: set(esFirst), passive: esPassive, longSentence: 25},
	"fr": {code: "fr", flesch: fleschKandel, fleschName: "Kandel & Moles reading ease", syllables: vowelGroups(frVowels, true),
		stem:        func(w string) string { return french.Stem(w, true) },
		transitions: set(frTransitions), transitionPhrases: phrases(frTransitionPhrases), function: set(frFunction), firstWordSkip: set(frFirst), passive: frPassive},
	"it": {code: "it", flesch: fleschVacca, fleschName: "Flesch–Vacca reading ease", syllables: vowelGroups(itVowels, false),
		transitions: set(itTransitions), transitionPhrases: phrases(itTransitionPhrases), function: set(itFunction), firstWordSkip: set(itFirst), passive: itPassive, longSentence: 25},
	"nl": {code: "nl", flesch: fleschDouma, fleschName: "Flesch–Douma reading ease", syllables: vowelGroups(nlVowels, false),
		transitions: set(nlTransitions), transitionPhrases: phrases(nlTransitionPhrases), function: set(nlFunction), firstWordSkip: set(nlFirst), passive: nlPassive},
}

// LanguageSupported reports whether code names a language with its own
// readability rules.
func LanguageSupported(code string) bool { return languages[code] != nil }

// Languages lists the supported language codes.
func Languages() []string { return []string{"de", "en", "es", "fr", "it", "nl"} }

// detectWords bounds how many words language detection reads.
const detectWords = 1000

// minDetectShare is the share of a text's words that must be the
// language's function words for the text to be taken as that language.
const minDetectShare = 0.10

// detectLanguage picks the language whose function words make up the
// largest share of the words, when that share is large enough.
func detectLanguage(blocks [][]string) *language {
	n := 0
	hits := map[string]int{}
	for _, ws := range blocks {
		if n >= detectWords {
			break
		}
		for _, w := range ws {
			n++
			for code, l := range languages {
				if l.function[w] {
					hits[code]++
				}
			}
		}
	}
	var best *language
	bestHits := 0
	for _, code := range Languages() {
		if h := hits[code]; h > bestHits {
			best, bestHits = languages[code], h
		}
	}
	if n == 0 || float64(bestHits)/float64(n) < minDetectShare {
		return nil
	}
	return best
}

func phrases(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// vowelGroups counts syllables as runs of vowels, the rule of thumb for
// languages spelt close to how they sound. silentE drops a final "e" or
// "es" (French) when the word has another vowel group.
func vowelGroups(vowels string, silentE bool) func(string) int {
	return func(w string) int {
		n, prev := 0, false
		rs := []rune(w)
		for _, r := range rs {
			v := strings.ContainsRune(vowels, r)
			if v && !prev {
				n++
			}
			prev = v
		}
		if silentE && n > 1 {
			s := string(rs)
			if strings.HasSuffix(s, "e") || strings.HasSuffix(s, "es") {
				n--
			}
		}
		return max(n, 1)
	}
}
