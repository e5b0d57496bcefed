package seo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The differential test runs yoastseo@3.6.0 (testdata/yoast, installed
// with `npm ci`) on the corpus in testdata/corpus and compares every
// rating and figure with Herald's. Targets: at least 97% of the compared
// items agree, and the SEO and readability lights agree on at least 95%
// of the articles. Known, deliberate differences are listed in
// knownDifferences (and the README) and count as disagreements all the
// same: they are allowed only within the targets.

// assessmentPairs maps Herald's assessment ids to Yoast's.
var assessmentPairs = map[string]string{
	"keyphrase-length":          "keyphraseLength",
	"keyphrase-in-title":        "keyphraseInSEOTitle",
	"title-length":              "titleWidth",
	"keyphrase-in-introduction": "introductionKeyword",
	"keyphrase-density":         "keyphraseDensity",
	"keyphrase-in-subheadings":  "subheadingsKeyword",
	"competing-links":           "textCompetingLinks",
	"text-length":               "textLength",
	"outbound-links":            "externalLinks",
	"internal-links":            "internalLinks",
	"images":                    "images",
	"image-alt":                 "imageKeyphrase",
	"single-h1":                 "singleH1",
	"keyphrase-function-words":  "functionWordsInKeyphrase",
	"subheading-distribution":   "subheadingsTooLong",
	"paragraph-length":          "textParagraphTooLong",
	"sentence-length":           "textSentenceLength",
	"transition-words":          "textTransitionWords",
	"passive-voice":             "passiveVoice",
	"text-presence":             "textPresence",
	"consecutive-sentences":     "sentenceBeginnings",
}

// yoastOnly are Yoast checks of inputs Herald does not take (meta
// description, slug): left out of both sides and of Yoast's SEO light.
var yoastOnly = map[string]bool{"metaDescriptionKeyword": true, "metaDescriptionLength": true, "slugKeyword": true}

// Figure tolerances: counts that depend on tokenising (where a sentence
// ends, whether "e-mail" is one word) may differ a little.
const (
	tolWordsShare     = 0.03 // words: ±3%
	tolSentences      = 1    // sentences: ±1
	tolFlesch         = 3.0  // Flesch points
	tolSentenceShare  = 5.0  // passive and transition shares, percentage points
	tolKeyphraseCount = 0    // exact
)

// knownDifferences are the remaining differences, article/item, with why
// Herald's answer is the right one; the README lists them too.
var knownDifferences = map[string]string{
	// Word forms: Herald matches inflections with the Snowball stemmer
	// (what Yoast sells as Premium); Yoast free matches the forms typed.
	"04-report-passive.md keyphrase count":            "word forms: \"inspection of the city bridges\" is the keyphrase \"bridge inspection\"",
	"04-report-passive.md keyphrase-in-introduction":  "word forms: the first sentence has both words (bridges)",
	"05-history-long-sentences.txt keyphrase count":   "word forms: \"presses had been set up\"",
	"10-budget-plain.txt keyphrase count":             "word forms: monthly/month, budget/budgets",
	"18-houseplants-wordforms.md keyphrase count":     "word forms: \"water houseplants\", \"houseplants need water\"",
	"19-pricing-saas.html keyphrase count":            "word forms: \"pricing pages\" is the keyphrase \"SaaS pricing page\"",
	"19-pricing-saas.html keyphrase-density":          "word forms: with \"pricing pages\" counted the keyphrase is used twice",
	"19-pricing-saas.html keyphrase-in-title":         "word forms: the title has \"SaaS pricing pages\"",
	"21-transitions-plain.txt keyphrase count":        "word forms: \"learning a language as an adult\" with learn/learning",
	"21-transitions-plain.txt passive%":               "\"they are usually pleased\" is an adjective, not a passive",
	"24-es-huerto.txt keyphrase-in-title":             "Herald reads \"empezar\" as a content word: the title opens with \"Cómo empezar\", not the keyphrase; Yoast lists it among function words",
	"24-es-huerto.txt SEO light":                      "follows from keyphrase-in-title (70 vs 73, either side of the 70 line)",
	"26-it-pane.md transition%":                       "Yoast counts \"o … o\" (either … or) and the comparative \"più\" as transitions",
	"27-nl-fietsen.html transition%":                  "Herald counts \"als\" (when/if) as a transition, as Dutch signal-word lists do",
	"22-empty-headings.html flesch":                   "Yoast gives no score (-1) for so short a text; Herald computes it",
	"22-empty-headings.html keyphrase-function-words": "Yoast only notes it (score 0); a keyphrase of function words cannot be matched, so Herald rates it bad",
}

type corpusEntry struct {
	File    string `json:"file"`
	Keyword string `json:"keyword"`
	Title   string `json:"title"`
	// Language is the article's language (default en); Herald must
	// detect it, Yoast is given it as the locale.
	Language string `json:"language"`
}

var locales = map[string]string{"en": "en_US", "de": "de_DE", "es": "es_ES", "fr": "fr_FR", "it": "it_IT", "nl": "nl_NL"}

type yoastResult struct {
	Name string `json:"name"`
	SEO  struct {
		Results map[string]struct {
			Score  float64 `json:"score"`
			Rating string  `json:"rating"`
			Text   string  `json:"text"`
		} `json:"results"`
	} `json:"seo"`
	Readability struct {
		Results map[string]struct {
			Score  float64 `json:"score"`
			Rating string  `json:"rating"`
			Text   string  `json:"text"`
		} `json:"results"`
		Overall int `json:"overall"`
	} `json:"readability"`
	Research struct {
		Words               *int     `json:"words"`
		Sentences           int      `json:"sentences"`
		Flesch              *float64 `json:"flesch"`
		PassiveSentences    *int     `json:"passiveSentences"`
		TransitionSentences *int     `json:"transitionSentences"`
		TotalSentences      *int     `json:"totalSentences"`
		KeyphraseCount      *int     `json:"keyphraseCount"`
		InternalLinks       *int     `json:"internalLinks"`
		ExternalLinks       *int     `json:"externalLinks"`
		Images              *int     `json:"images"`
	} `json:"research"`
}

func yoastLight(overall int) string {
	switch {
	case overall > 70:
		return Good
	case overall > 40:
		return OK
	}
	return Bad
}

func TestYoastDifferential(t *testing.T) {
	dir := filepath.Join("testdata", "yoast")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "yoastseo")); err != nil {
		msg := "testdata/yoast/node_modules is missing: run `npm ci` in host/internal/seo/testdata/yoast (needs node and npm)"
		if os.Getenv("HERALD_REQUIRE_INTEGRATION") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("HERALD_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	var manifest []corpusEntry
	raw, err := os.ReadFile("testdata/corpus/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	if len(manifest) < 20 {
		t.Fatalf("corpus has %d articles, want at least 20", len(manifest))
	}
	type article struct {
		Name       string `json:"name"`
		Text       string `json:"text"`
		Keyword    string `json:"keyword"`
		Title      string `json:"title"`
		TitleWidth int    `json:"titleWidth"`
		Locale     string `json:"locale"`
	}
	herald := map[string]Result{}
	var arts []article
	langOf := map[string]string{}
	for _, e := range manifest {
		if e.Language == "" {
			e.Language = "en"
		}
		langOf[e.File] = e.Language
		b, err := os.ReadFile(filepath.Join("testdata", "corpus", e.File))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Score(Input{Content: string(b), Title: e.Title, Keywords: []string{e.Keyword}})
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		herald[e.File] = r
		h, err := toHTML(string(b))
		if err != nil {
			t.Fatal(err)
		}
		// Yoast reads the SEO title as a separate field; its width is
		// measured by the browser in the plugin, so it gets Herald's.
		arts = append(arts, article{Name: e.File, Text: h, Keyword: e.Keyword, Title: r.SEO.Title, TitleWidth: r.SEO.TitleWidth, Locale: locales[e.Language]})
	}
	in, _ := json.Marshal(arts)
	cmd := exec.Command(node, "yoast.js")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node yoast.js: %v\n%s", err, stderr.String())
	}
	var ys []yoastResult
	if err := json.Unmarshal(out, &ys); err != nil {
		t.Fatal(err)
	}

	items, agree := 0, 0
	var diffs []string
	check := func(name, item string, ok bool, format string, args ...any) {
		items++
		if ok {
			agree++
			return
		}
		d := fmt.Sprintf("%s %s: %s", name, item, fmt.Sprintf(format, args...))
		if why, known := knownDifferences[name+" "+item]; known {
			d += " [known: " + why + "]"
		}
		diffs = append(diffs, d)
	}
	seoLights, readLights := 0, 0
	for _, y := range ys {
		r := herald[y.Name]
		check(y.Name, "language", r.Readability.Language == langOf[y.Name], "herald detected %s, the article is %s", r.Readability.Language, langOf[y.Name])
		got := map[string]Assessment{}
		for _, a := range r.Assessments {
			got[a.ID] = a
		}
		// Ratings, both ways.
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
			check(y.Name, hid, inY && inH && ya.Rating == ha.Rating, "herald %s (%d) %q, yoast %s (%v) %q", ha.Rating, ha.Score, ha.Text, ya.Rating, ya.Score, ya.Text)
		}
		for _, res := range []map[string]struct {
			Score  float64 `json:"score"`
			Rating string  `json:"rating"`
			Text   string  `json:"text"`
		}{y.SEO.Results, y.Readability.Results} {
			for yid, ya := range res {
				if !seen[yid] && !yoastOnly[yid] {
					check(y.Name, yid, false, "only yoast has it: %s %q", ya.Rating, ya.Text)
				}
			}
		}
		// Lights.
		sum, n := 0.0, 0
		for yid, ya := range y.SEO.Results {
			if !yoastOnly[yid] {
				sum += ya.Score
				n++
			}
		}
		ySEO := int(math.Round(sum * 100 / float64(9*n)))
		if seoLight(min(100, max(0, ySEO))) == r.SEO.Rating {
			seoLights++
		} else {
			d := fmt.Sprintf("%s SEO light: herald %s (%d), yoast %s (%d)", y.Name, r.SEO.Rating, r.SEO.Score, seoLight(max(0, ySEO)), ySEO)
			if why, known := knownDifferences[y.Name+" SEO light"]; known {
				d += " [known: " + why + "]"
			}
			diffs = append(diffs, d)
		}
		if yoastLight(y.Readability.Overall) == r.Readability.Rating {
			readLights++
		} else {
			diffs = append(diffs, fmt.Sprintf("%s readability light: herald %s, yoast %s (%d)", y.Name, r.Readability.Rating, yoastLight(y.Readability.Overall), y.Readability.Overall))
		}
		// Figures.
		rs := y.Research
		if rs.Words != nil {
			w := float64(*rs.Words)
			check(y.Name, "words", math.Abs(float64(r.Stats.Words)-w) <= math.Max(1, w*tolWordsShare), "herald %d, yoast %d", r.Stats.Words, *rs.Words)
		}
		check(y.Name, "sentences", abs(r.Stats.Sentences-rs.Sentences) <= tolSentences, "herald %d, yoast %d", r.Stats.Sentences, rs.Sentences)
		if rs.Flesch != nil && r.Readability.FleschReadingEase != nil {
			check(y.Name, "flesch", math.Abs(*r.Readability.FleschReadingEase-*rs.Flesch) <= tolFlesch, "herald %.1f, yoast %.1f", *r.Readability.FleschReadingEase, *rs.Flesch)
		}
		if rs.PassiveSentences != nil && r.Readability.PassivePercent != nil && rs.Sentences > 0 {
			yp := float64(*rs.PassiveSentences) * 100 / float64(rs.Sentences)
			check(y.Name, "passive%", math.Abs(*r.Readability.PassivePercent-yp) <= tolSentenceShare, "herald %.1f, yoast %.1f", *r.Readability.PassivePercent, yp)
		}
		if rs.TransitionSentences != nil && r.Readability.TransitionPercent != nil && *rs.TotalSentences > 0 {
			yp := float64(*rs.TransitionSentences) * 100 / float64(*rs.TotalSentences)
			check(y.Name, "transition%", math.Abs(*r.Readability.TransitionPercent-yp) <= tolSentenceShare, "herald %.1f, yoast %.1f", *r.Readability.TransitionPercent, yp)
		}
		if rs.KeyphraseCount != nil {
			check(y.Name, "keyphrase count", abs(r.SEO.KeyphraseCount-*rs.KeyphraseCount) <= tolKeyphraseCount, "herald %d, yoast %d", r.SEO.KeyphraseCount, *rs.KeyphraseCount)
		}
		if rs.InternalLinks != nil {
			check(y.Name, "internal links", r.SEO.InternalLinks == *rs.InternalLinks, "herald %d, yoast %d", r.SEO.InternalLinks, *rs.InternalLinks)
			check(y.Name, "outbound links", r.SEO.OutboundLinks == *rs.ExternalLinks, "herald %d, yoast %d", r.SEO.OutboundLinks, *rs.ExternalLinks)
		}
		if rs.Images != nil {
			check(y.Name, "images", r.Stats.Images == *rs.Images, "herald %d, yoast %d", r.Stats.Images, *rs.Images)
		}
	}
	sort.Strings(diffs)
	share := float64(agree) * 100 / float64(items)
	seoShare := float64(seoLights) * 100 / float64(len(ys))
	readShare := float64(readLights) * 100 / float64(len(ys))
	t.Logf("%d articles; %d of %d ratings and figures agree (%.1f%%); SEO lights %d/%d (%.0f%%), readability lights %d/%d (%.0f%%)",
		len(ys), agree, items, share, seoLights, len(ys), seoShare, readLights, len(ys), readShare)
	if len(diffs) > 0 {
		t.Logf("differences:\n  %s", strings.Join(diffs, "\n  "))
	}
	if share < 97 {
		t.Errorf("%.1f%% of ratings and figures agree, want at least 97%%", share)
	}
	if seoShare < 95 || readShare < 95 {
		t.Errorf("lights agree on %.0f%% (SEO) and %.0f%% (readability) of articles, want at least 95%%", seoShare, readShare)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
