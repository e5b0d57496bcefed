package seo

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tolerances of the differential test. Counts that depend on tokenising
// (where a sentence ends, whether "e-mail" is one word) may differ a
// little; the overall scores may differ by tolOverall points.
const (
	tolWordsShare     = 0.03 // words: ±3%
	tolSentences      = 1    // sentences: ±1
	tolFlesch         = 3.0  // Flesch points
	tolSentenceShare  = 5.0  // passive and transition shares, percentage points
	tolKeyphraseCount = 0    // exact
	tolOverall        = 5    // SEO and readability scores, 0–100
)

type counts struct{ items, agree int }

func (c counts) share() float64 {
	if c.items == 0 {
		return 100
	}
	return float64(c.agree) * 100 / float64(c.items)
}

// diffTally counts the compared figures and ratings of the corpus.
type diffTally struct {
	figures, ratings counts
	maxSEO, maxRead  int
	// maxSEOAgreeing is the largest SEO score difference over the
	// articles whose checks all have Yoast's ratings.
	maxSEOAgreeing int
	diffs, unknown []string
	seen           map[string]bool // known differences that happened
	// known are the differences allowed, "article item" → reason.
	known map[string]string
}

func (d *diffTally) check(c *counts, name, item string, ok bool, format string, args ...any) {
	c.items++
	if ok {
		c.agree++
		return
	}
	key := name + " " + item
	line := key + ": " + fmt.Sprintf(format, args...)
	if why, known := d.known[key]; known {
		line += " [known: " + why + "]"
		if d.seen == nil {
			d.seen = map[string]bool{}
		}
		d.seen[key] = true
	} else {
		d.unknown = append(d.unknown, line)
	}
	d.diffs = append(d.diffs, line)
}

func (d *diffTally) all() counts {
	return counts{d.figures.items + d.ratings.items, d.figures.agree + d.ratings.agree}
}

func (d *diffTally) summary(articles, languages int) string {
	all := d.all()
	return fmt.Sprintf("%d articles in %d languages: figures %d/%d agree (%.1f%%), ratings %d/%d (%.1f%%), together %d/%d (%.1f%%); overall scores differ by at most %d (SEO) and %d (readability) points, %d (SEO) where every check agrees",
		articles, languages, d.figures.agree, d.figures.items, d.figures.share(), d.ratings.agree, d.ratings.items, d.ratings.share(),
		all.agree, all.items, all.share(), d.maxSEO, d.maxRead, d.maxSEOAgreeing)
}

// compareArticle compares one article's ratings (every check, both
// lights) and figures (counts, shares, both overall scores).
func compareArticle(d *diffTally, y yoastResult, r Result, lang string) {
	name := y.Name
	d.check(&d.figures, name, "language", r.Readability.Language == lang, "herald detected %s, the article is %s", r.Readability.Language, lang)
	got := map[string]Assessment{}
	for _, a := range r.Assessments {
		got[a.ID] = a
	}
	// Ratings of every check, both ways.
	before := d.ratings.items - d.ratings.agree
	seen := map[string]bool{}
	for hid, yid := range assessmentPairs {
		ya, inY := y.SEO.Results[yid]
		if !inY {
			ya, inY = y.Readability.Results[yid]
		}
		ha, inH := got[hid]
		if !inY && !inH {
			continue
		}
		seen[yid] = true
		d.check(&d.ratings, name, hid, inY && inH && ya.Rating == ha.Rating, "herald %s (%d) %q, yoast %s (%v) %q", ha.Rating, ha.Score, ha.Text, ya.Rating, ya.Score, ya.Text)
	}
	for _, res := range []yoastResults{y.SEO.Results, y.Readability.Results} {
		for yid, ya := range res {
			if !seen[yid] && !yoastOnly[yid] {
				d.check(&d.ratings, name, yid, false, "only yoast has it: %s %q", ya.Rating, ya.Text)
			}
		}
	}
	// Overall scores and their lights. Yoast's SEO score may go below
	// zero; Herald's stays within 0–100.
	ySEO := min(100, max(0, y.SEO.ComparableScore))
	seoDiff, readDiff := abs(r.SEO.Score-ySEO), abs(r.Readability.Score-y.Readability.Score)
	d.maxSEO, d.maxRead = max(d.maxSEO, seoDiff), max(d.maxRead, readDiff)
	if d.ratings.items-d.ratings.agree == before {
		d.maxSEOAgreeing = max(d.maxSEOAgreeing, seoDiff)
	}
	d.check(&d.figures, name, "SEO score", seoDiff <= tolOverall, "herald %d, yoast %d (%d with meta description and slug)", r.SEO.Score, ySEO, y.SEO.Score)
	d.check(&d.figures, name, "readability score", readDiff <= tolOverall, "herald %d, yoast %d", r.Readability.Score, y.Readability.Score)
	d.check(&d.ratings, name, "SEO light", lightOf(ySEO) == r.SEO.Rating, "herald %s (%d), yoast %s (%d)", r.SEO.Rating, r.SEO.Score, lightOf(ySEO), ySEO)
	d.check(&d.ratings, name, "readability light", lightOf(y.Readability.Score) == r.Readability.Rating, "herald %s (%d), yoast %s (%d)", r.Readability.Rating, r.Readability.Score, lightOf(y.Readability.Score), y.Readability.Score)

	// Figures.
	rs := y.Research
	if rs.Words != nil {
		w := float64(*rs.Words)
		d.check(&d.figures, name, "words", math.Abs(float64(r.Stats.Words)-w) <= math.Max(1, w*tolWordsShare), "herald %d, yoast %d", r.Stats.Words, *rs.Words)
	}
	d.check(&d.figures, name, "sentences", abs(r.Stats.Sentences-rs.Sentences) <= tolSentences, "herald %d, yoast %d", r.Stats.Sentences, rs.Sentences)
	if rs.Flesch != nil && r.Readability.FleschReadingEase != nil {
		d.check(&d.figures, name, "flesch", math.Abs(*r.Readability.FleschReadingEase-*rs.Flesch) <= tolFlesch, "herald %.1f, yoast %.1f", *r.Readability.FleschReadingEase, *rs.Flesch)
	}
	if rs.PassiveSentences != nil && r.Readability.PassivePercent != nil && rs.Sentences > 0 {
		yp := float64(*rs.PassiveSentences) * 100 / float64(rs.Sentences)
		d.check(&d.figures, name, "passive%", math.Abs(*r.Readability.PassivePercent-yp) <= tolSentenceShare, "herald %.1f, yoast %.1f", *r.Readability.PassivePercent, yp)
	}
	if rs.TransitionSentences != nil && r.Readability.TransitionPercent != nil && *rs.TotalSentences > 0 {
		yp := float64(*rs.TransitionSentences) * 100 / float64(*rs.TotalSentences)
		d.check(&d.figures, name, "transition%", math.Abs(*r.Readability.TransitionPercent-yp) <= tolSentenceShare, "herald %.1f, yoast %.1f", *r.Readability.TransitionPercent, yp)
	}
	if rs.KeyphraseCount != nil {
		d.check(&d.figures, name, "keyphrase count", abs(r.SEO.KeyphraseCount-*rs.KeyphraseCount) <= tolKeyphraseCount, "herald %d, yoast %d", r.SEO.KeyphraseCount, *rs.KeyphraseCount)
	}
	if rs.InternalLinks != nil {
		d.check(&d.figures, name, "internal links", r.SEO.InternalLinks == *rs.InternalLinks, "herald %d, yoast %d", r.SEO.InternalLinks, *rs.InternalLinks)
		d.check(&d.figures, name, "outbound links", r.SEO.OutboundLinks == *rs.ExternalLinks, "herald %d, yoast %d", r.SEO.OutboundLinks, *rs.ExternalLinks)
	}
	if rs.Images != nil {
		d.check(&d.figures, name, "images", r.Stats.Images == *rs.Images, "herald %d, yoast %d", r.Stats.Images, *rs.Images)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Every known difference has its row in docs/SEO.md ("| article | item |"),
// so the page lists what the differential test allows.
func TestKnownDifferencesAreDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "SEO.md"))
	if err != nil {
		t.Fatal(err)
	}
	for key := range knownDifferences {
		checkDocumented(t, string(doc), key)
	}
	for key := range wordFormDifferences {
		checkDocumented(t, string(doc), key)
	}
}

func checkDocumented(t *testing.T, doc, key string) {
	t.Helper()
	article, item, _ := strings.Cut(key, " ")
	if !strings.Contains(doc, "| "+article+" | "+item+" |") {
		t.Errorf("docs/SEO.md has no row for %q", key)
	}
}
