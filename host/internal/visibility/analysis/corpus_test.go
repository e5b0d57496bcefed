package analysis_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// corpus is testdata/mentions_corpus.json: answers labelled by hand with
// the brands a reader counts as mentioned (in order) and cited.
type corpus struct {
	BrandSets map[string]struct {
		Self struct {
			Name, Domain, Category string
		} `json:"self"`
		Competitors []analysis.CompetitorInput `json:"competitors"`
	} `json:"brandSets"`
	Answers []struct {
		Set       string                    `json:"set"`
		Engine    string                    `json:"engine"`
		Text      string                    `json:"text"`
		Citations []string                  `json:"citations"`
		Mentions  []string                  `json:"mentions"`
		Cited     []string                  `json:"cited"`
		Verdicts  []analysis.MentionVerdict `json:"verdicts"`
		Note      string                    `json:"note"`
	} `json:"answers"`
}

// Targets on the labelled corpus.
const (
	targetMentionF1     = 0.98
	targetExactPosition = 0.97
	targetCitation      = 0.98
)

// TestLabelledCorpus runs the full mention analysis (ScoreMentions, as a
// report does) over the labelled corpus and fails below the targets.
// go test -run TestLabelledCorpus -v ./host/internal/visibility prints the
// numbers of docs/BENCHMARKS.md.
func TestLabelledCorpus(t *testing.T) {
	raw, err := os.ReadFile("testdata/mentions_corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var c corpus
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Answers) < 70 || len(c.BrandSets) < 5 {
		t.Fatalf("the corpus has %d answers in %d brand sets; it must keep at least 70 in 5", len(c.Answers), len(c.BrandSets))
	}
	var tp, fp, fn, posRight, posAll, citeRight, citeAll int
	for name, set := range c.BrandSets {
		self := analysis.SelfBrand(set.Self.Name, set.Self.Domain)
		self.Category = set.Self.Category
		brands := analysis.BuildBrands(self, set.Competitors)
		var answers []analysis.Answer
		var idx []int
		for i, a := range c.Answers {
			if a.Set != name {
				continue
			}
			ans := analysis.Answer{Engine: a.Engine, Prompt: "p", Text: a.Text, Verdicts: a.Verdicts}
			for _, u := range a.Citations {
				ans.Citations = append(ans.Citations, analysis.Citation{URL: u})
			}
			answers = append(answers, ans)
			idx = append(idx, i)
		}
		ms := scoring.ScoreMentions(brands, []string{"gpt", "claude", "gemini", "perplexity"}, answers)
		evidence := ms.AllEvidence()
		for k, i := range idx {
			want := c.Answers[i]
			for _, be := range evidence[k] {
				wantPos := slices.Index(want.Mentions, be.Brand) + 1
				switch {
				case be.Mentioned && wantPos > 0:
					tp++
				case be.Mentioned:
					fp++
				case wantPos > 0:
					fn++
				}
				if wantPos > 0 {
					posAll++
					if be.Position == wantPos {
						posRight++
					}
				}
				citeAll++
				if be.Cited == slices.Contains(want.Cited, be.Brand) {
					citeRight++
				}
				if (be.Mentioned != (wantPos > 0)) || (wantPos > 0 && be.Position != wantPos) || be.Cited != slices.Contains(want.Cited, be.Brand) {
					t.Logf("%s/%d %s: mentioned %v at %d cited %v; labelled at %d cited %v (%s)", name, i, be.Brand, be.Mentioned, be.Position, be.Cited,
						wantPos, slices.Contains(want.Cited, be.Brand), want.Note)
				}
			}
		}
	}
	p := float64(tp) / float64(max(1, tp+fp))
	r := float64(tp) / float64(max(1, tp+fn))
	f1 := 2 * p * r / max(1e-9, p+r)
	pos := float64(posRight) / float64(max(1, posAll))
	cite := float64(citeRight) / float64(max(1, citeAll))
	t.Logf("corpus: %d answers, %d brand sets, %d labelled mentions, %d (answer, brand) pairs", len(c.Answers), len(c.BrandSets), tp+fn, citeAll)
	t.Logf("mentions: precision %.3f recall %.3f F1 %.3f (tp %d fp %d fn %d); exact position %.3f (%d/%d); citation accuracy %.3f (%d/%d)",
		p, r, f1, tp, fp, fn, pos, posRight, posAll, cite, citeRight, citeAll)
	if f1 < targetMentionF1 || pos < targetExactPosition || cite < targetCitation {
		t.Errorf("below the targets (mention F1 %.2f, exact position %.2f, citations %.2f)", targetMentionF1, targetExactPosition, targetCitation)
	}
}
