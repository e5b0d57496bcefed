// Package seo scores content for search and readability the way writers
// know from Yoast SEO: a list of assessments, each rated good, ok or bad
// with a sentence saying why, grouped into an SEO and a readability score.
// It needs no model: everything is measured on the text, so the same input
// always gives the same output. Content may be plain text, Markdown or HTML.
//
// Language: English, German, Spanish, French, Italian and Dutch have their
// own Flesch variant, transition and function words and passive rule
// (English, Spanish and French also word forms); the language is detected
// from the text or given.
// Other languages get the language-neutral assessments only; see
// Result.Readability.Language.
//
// The readability/SEO analyser (pure, deterministic, no model): Yoast-style
// assessments rated good/ok/bad, a Flesch variant and word lists per
// language, the outline and plain text of Markdown/HTML. Used by `content`
// (scores, validation) and `voice` (profiles, file text).
// `TestYoastDifferential` compares it with yoastseo from npm
// (`testdata/yoast`, installed with `npm ci`).
package seo

import (
	"fmt"
	"math"
	"strings"
)

// Ratings of an assessment.
const (
	Good = "good"
	OK   = "ok"
	Bad  = "bad"
)

// Categories of an assessment.
const (
	CategorySEO         = "seo"
	CategoryReadability = "readability"
	// CategoryInsight is a figure rated for the writer that counts in
	// neither score (Flesch reading ease, as in Yoast's insights).
	CategoryInsight = "insight"
)

// Sources of a keyword.
const (
	SourceGiven     = "given"
	SourceExtracted = "extracted"
)

// MaxKeywords is how many keywords are extracted when none are given.
const MaxKeywords = 5

// Input is what to score.
type Input struct {
	Content string
	Title   string
	// Keywords are the focus keyphrases; the first is the one the
	// keyphrase assessments use.
	Keywords []string
	// AutoExtract extracts keywords from the text when Keywords is empty.
	AutoExtract bool
	// Language is an ISO 639-1 code of a supported language (Languages);
	// empty detects it from the text.
	Language string
	// TypedForms matches the keyphrase only in the forms typed, as the
	// free Yoast SEO plugin does: "pricing page" no longer matches
	// "pricing pages", and the keyphrase density's upper limit is 3%
	// (weighted) instead of the 3.5% Yoast sets when it matches word
	// forms. The default (false) matches every word form, as Yoast
	// Premium does. A quoted keyphrase matches exactly either way.
	TypedForms bool
}

// Assessment is one check's outcome.
type Assessment struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Rating   string `json:"rating"`
	// Score is out of 9 as Yoast scores: above 7 is good, 5–7 ok, 4 or
	// less bad; keyphrase stuffing (-10, -50) and a very short text
	// (-10, -20) go below zero. How they add up to a category's score:
	// SEO.Score and Readability.Score.
	Score int    `json:"score"`
	Text  string `json:"text"`
}

// Keyword is a keyphrase and how often the text uses it.
type Keyword struct {
	Keyword string  `json:"keyword"`
	Source  string  `json:"source"`
	Count   int     `json:"count"`
	Density float64 `json:"density"` // occurrences per 100 words
}

// Stats counts the parts of the text.
type Stats struct {
	Words      int `json:"words"`
	Sentences  int `json:"sentences"`
	Paragraphs int `json:"paragraphs"`
	Headings   int `json:"headings"`
	Links      int `json:"links"`
	Images     int `json:"images"`
}

// Readability is the readability summary.
type Readability struct {
	// Score is Yoast's readability score: 90, 60 or 30 by the penalty
	// points of the readability checks (ok 2, bad 3; bad 4 and stricter
	// bands when the language lacks checks).
	Score int `json:"score"`
	// Rating is the traffic light of Score: good above 70, ok above 40,
	// else bad.
	Rating string `json:"rating"`
	// FleschReadingEase is the language's Flesch variant (FleschFormula),
	// 0–100; nil when the language is not supported.
	FleschReadingEase *float64 `json:"fleschReadingEase"`
	FleschFormula     string   `json:"fleschFormula,omitempty"`
	// Language is the language's code, else "unknown".
	Language              string  `json:"language"`
	AverageSentenceLength float64 `json:"averageSentenceLength"`
	LongSentencesPercent  float64 `json:"longSentencesPercent"`
	// PassivePercent and TransitionPercent are nil when the language is
	// not supported.
	PassivePercent    *float64 `json:"passiveVoicePercent"`
	TransitionPercent *float64 `json:"transitionWordsPercent"`
}

// SEO is the search summary.
type SEO struct {
	// Score is Yoast's SEO score: the checks' points as a share of 9 for
	// each check, 0–100. With a keyphrase the function-word check always
	// counts, earning nothing unless it warns (as in Yoast).
	Score int `json:"score"`
	// Rating is the traffic light: good above 70, ok above 40, else bad.
	Rating         string  `json:"rating"`
	Keyphrase      string  `json:"keyphrase"`
	Title          string  `json:"title"`
	TitleLength    int     `json:"titleLength"`
	TitleWidth     int     `json:"titleWidth"` // pixels in search results
	KeyphraseCount int     `json:"keyphraseCount"`
	Density        float64 `json:"keyphraseDensity"`
	InternalLinks  int     `json:"internalLinks"`
	OutboundLinks  int     `json:"outboundLinks"`
}

// Result is a scored text.
type Result struct {
	// Score is the mean of the SEO and readability scores, 0–100.
	Score       int          `json:"score"`
	Readability Readability  `json:"readability"`
	SEO         SEO          `json:"seo"`
	Keywords    []Keyword    `json:"keywords"`
	Assessments []Assessment `json:"assessments"`
	Stats       Stats        `json:"stats"`
}

// Score scores in. It fails only when the content cannot be parsed.
func Score(in Input) (Result, error) {
	doc, err := parse(in.Content)
	if err != nil {
		return Result{}, fmt.Errorf("parse content: %w", err)
	}
	lang := strings.ToLower(strings.TrimSpace(in.Language))
	if lang != "" && !LanguageSupported(lang) {
		return Result{}, fmt.Errorf("language %q is not supported (one of %s)", in.Language, strings.Join(Languages(), ", "))
	}
	a := analyze(doc, in.Title, lang)
	a.typedForms = in.TypedForms
	var res Result
	res.Stats = a.stats()

	var kws []Keyword
	for _, k := range in.Keywords {
		if k = strings.Join(strings.Fields(k), " "); k != "" {
			kws = append(kws, Keyword{Keyword: k, Source: SourceGiven})
		}
	}
	if len(kws) == 0 && in.AutoExtract {
		for _, k := range extractKeywords(doc, MaxKeywords) {
			kws = append(kws, Keyword{Keyword: k, Source: SourceExtracted})
		}
	}
	for i := range kws {
		kws[i].Count = a.count(a.keyphrase(kws[i].Keyword))
		kws[i].Density = a.density(kws[i].Count)
	}
	res.Keywords = kws
	keyphrase := ""
	if len(kws) > 0 {
		keyphrase = kws[0].Keyword
	}

	res.SEO = SEO{Keyphrase: keyphrase, Title: a.title, TitleLength: len([]rune(a.title)), TitleWidth: a.titleWidth,
		InternalLinks: a.internal, OutboundLinks: a.outbound}
	if len(kws) > 0 {
		res.SEO.KeyphraseCount, res.SEO.Density = kws[0].Count, kws[0].Density
	}
	seoChecks := a.seoAssessments(a.keyphrase(keyphrase))
	readChecks, insights, rd := a.readabilityAssessments()
	res.Readability = rd
	res.Assessments = append(append(seoChecks, readChecks...), insights...)
	res.SEO.Score = seoScore(seoChecks, keyphrase != "")
	res.SEO.Rating = lightOf(res.SEO.Score)
	res.Readability.Score = readabilityScore(readChecks, a.fullSupport())
	res.Readability.Rating = lightOf(res.Readability.Score)
	res.Score = int(math.Round(float64(res.SEO.Score+res.Readability.Score) / 2))
	return res, nil
}

// ratingOf is Yoast's reading of a score: above 7 good, 5–7 ok, else bad.
func ratingOf(score int) string {
	switch {
	case score > 7:
		return Good
	case score > 4:
		return OK
	}
	return Bad
}

func assess(id, category string, score int, format string, args ...any) Assessment {
	return Assessment{ID: id, Category: category, Rating: ratingOf(score), Score: score, Text: fmt.Sprintf(format, args...)}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
