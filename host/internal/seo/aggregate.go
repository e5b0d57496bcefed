package seo

import "math"

// How Yoast adds the checks up. Herald reproduces the aggregation of
// yoastseo's analysis worker, so an article whose checks all agree with
// Yoast's gets Yoast's category scores and lights too.

// Traffic-light bands of a 0–100 category score, as the Yoast plugin
// draws them: good above 70, ok above 40, else bad.
const lightGoodAbove, lightOKAbove = 70, 40

func lightOf(score int) string {
	switch {
	case score > lightGoodAbove:
		return Good
	case score > lightOKAbove:
		return OK
	}
	return Bad
}

// seoScore is Yoast's SEO score: the sum of the checks' points over 9
// points for every check, as a share of 100. With a keyphrase, the
// function-word check is always one of the checks: it earns 0 points
// whether it warns or has nothing to say, so it only adds to the
// divisor. Scores below zero (stuffing, a very short text) count as
// they are; the result is kept within 0–100.
func seoScore(as []Assessment, hasKeyphrase bool) int {
	n, sum, fw := len(as), 0, false
	for _, a := range as {
		sum += a.Score
		fw = fw || a.ID == "keyphrase-function-words"
	}
	if hasKeyphrase && !fw {
		n++ // the silent function-word check
	}
	if n == 0 {
		return 0
	}
	s := int(math.Round(float64(sum) * 100 / float64(scoreGood*n)))
	return min(100, max(0, s))
}

// Yoast's readability scores: one per light.
const (
	readabilityGood, readabilityOK, readabilityBad = 90, 60, 30
)

// Penalty points of an ok and a bad readability check, and the bands
// above which the score drops. A language with every readability check
// (full) is judged leniently; without some checks a bad check weighs
// more and the bands are lower.
const (
	penaltyOK, penaltyBadFull, penaltyBadPart = 2, 3, 4
	fullPenaltyBad, fullPenaltyOK             = 6, 4
	partPenaltyBad, partPenaltyOK             = 4, 2
)

// readabilityScore is Yoast's readability score: the penalty points of
// the checks rated ok or bad give 90 (good), 60 (ok) or 30 (bad). One
// check or none is no text to judge: 0.
func readabilityScore(checks []Assessment, full bool) int {
	if len(checks) <= 1 {
		return 0
	}
	penalty := 0
	for _, c := range checks {
		switch c.Rating {
		case Bad:
			if full {
				penalty += penaltyBadFull
			} else {
				penalty += penaltyBadPart
			}
		case OK:
			penalty += penaltyOK
		}
	}
	badAt, okAt := fullPenaltyBad, fullPenaltyOK
	if !full {
		badAt, okAt = partPenaltyBad, partPenaltyOK
	}
	switch {
	case penalty > badAt:
		return readabilityBad
	case penalty > okAt:
		return readabilityOK
	}
	return readabilityGood
}
