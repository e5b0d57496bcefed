// Package seo scores content for search and readability the way writers
// know from Yoast SEO: a list of assessments, each rated good, ok or bad
// with a sentence saying why, grouped into an SEO and a readability score.
// It needs no model: everything is measured on the text, so the same input
// always gives the same output. Content may be plain text, Markdown or HTML.
//
// Language: the readability formulas and word lists (Flesch reading ease,
// passive voice, transition words) are English. Other languages get the
// language-neutral assessments only; see Result.Readability.Language.
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
)

// Sources of a keyword.
const (
	SourceGiven     = "given"
	SourceExtracted = "extracted"
)

// ratingScore is an assessment's score for each rating.
var ratingScore = map[string]int{Good: 9, OK: 6, Bad: 3}

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
}

// Assessment is one check's outcome.
type Assessment struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Rating   string `json:"rating"`
	// Score is out of 9: good 9, ok 6, bad 3; a category's score is the
	// sum as a share of all-good, 0–100.
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
	Score int `json:"score"`
	// FleschReadingEase is nil when the text is not English.
	FleschReadingEase *float64 `json:"fleschReadingEase"`
	// Language is "en" when the text reads as English, else "unknown".
	Language              string  `json:"language"`
	AverageSentenceLength float64 `json:"averageSentenceLength"`
	LongSentencesPercent  float64 `json:"longSentencesPercent"`
	// PassivePercent and TransitionPercent are nil when not English.
	PassivePercent    *float64 `json:"passiveVoicePercent"`
	TransitionPercent *float64 `json:"transitionWordsPercent"`
}

// SEO is the search summary.
type SEO struct {
	Score          int     `json:"score"`
	Keyphrase      string  `json:"keyphrase"`
	Title          string  `json:"title"`
	TitleLength    int     `json:"titleLength"`
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
	a := analyze(doc, in.Title)
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
		kws[i].Count = a.countPhrase(words(kws[i].Keyword))
		kws[i].Density = a.density(kws[i].Count)
	}
	res.Keywords = kws
	keyphrase := ""
	if len(kws) > 0 {
		keyphrase = kws[0].Keyword
	}

	res.SEO = SEO{Keyphrase: keyphrase, Title: a.title, TitleLength: len([]rune(a.title)), InternalLinks: a.internal, OutboundLinks: a.outbound}
	if len(kws) > 0 {
		res.SEO.KeyphraseCount, res.SEO.Density = kws[0].Count, kws[0].Density
	}
	seoChecks := a.seoAssessments(keyphrase)
	readChecks, rd := a.readabilityAssessments()
	res.Readability = rd
	res.Assessments = append(seoChecks, readChecks...)
	res.SEO.Score = categoryScore(seoChecks)
	res.Readability.Score = categoryScore(readChecks)
	res.Score = int(math.Round(float64(res.SEO.Score+res.Readability.Score) / 2))
	return res, nil
}

func categoryScore(as []Assessment) int {
	if len(as) == 0 {
		return 0
	}
	sum := 0
	for _, a := range as {
		sum += a.Score
	}
	return int(math.Round(float64(sum) * 100 / float64(ratingScore[Good]*len(as))))
}

func assess(id, category, rating, format string, args ...any) Assessment {
	return Assessment{ID: id, Category: category, Rating: rating, Score: ratingScore[rating], Text: fmt.Sprintf(format, args...)}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
