package scoring

import (
	"fmt"
	"math"
	"slices"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// Round1 rounds to one decimal, as every score is shown.
func Round1(x float64) float64 { return math.Round(x*10) / 10 }

// Interpretation names a score's band: strong (≥ 70), moderate (≥ 40),
// weak (≥ 15), absent. Bands apply to the score as shown (one decimal).
func Interpretation(score float64) string {
	switch s := Round1(score); {
	case s >= 70:
		return "strong"
	case s >= 40:
		return "moderate"
	case s >= 15:
		return "weak"
	default:
		return "absent"
	}
}

// BrandScore is one tracked brand's numbers over a report's answers.
type BrandScore struct {
	Name            string   `json:"name"`
	Slug            string   `json:"slug"`
	Self            bool     `json:"self"`
	Aliases         []string `json:"aliases"`
	Visibility      float64  `json:"visibility"`
	MentionRate     float64  `json:"mentionRate"`
	Mentions        int      `json:"mentions"`
	ShareOfVoice    float64  `json:"shareOfVoice"`
	AveragePosition float64  `json:"averagePosition"`
	Citations       int      `json:"-"`
	InferredDomain  string   `json:"inferredDomain,omitempty"` // a name-only competitor's domain (InferDomains)
}

// EngineStatus says how many of an engine's answers are in the report.
type EngineStatus struct {
	Engine   string `json:"engine"`
	Planned  int    `json:"planned"`
	Answered int    `json:"answered"`
	Missing  int    `json:"missing"`
	// NoAnswer counts the prompts the engine showed no answer for (no AI
	// Overview on the search), apart from Missing (failures).
	NoAnswer int     `json:"noAnswer"`
	Error    *string `json:"error"`
}

// MentionScores are the mention-based scores of docs/METRICS.md.
type MentionScores struct {
	// Visibility is visibility(self); Interpretation nil when no engine
	// answered.
	Visibility     float64
	Interpretation *string
	// Providers maps each engine to visibility(self) over its answers; nil
	// when it answered none.
	Providers     map[string]*float64
	SelfMentions  int
	TotalMentions int
	ShareOfVoice  float64
	// Brands are per brand, self first.
	Brands  []BrandScore
	Engines []EngineStatus
	// Mentions are per answer, in the order of the answers.
	Mentions [][]analysis.Mention
	// Facts are per answer the tracked brands it mentions, cites or
	// leaves to the judge; AllEvidence writes out every brand, Cited the
	// brands cited.
	Facts [][]analysis.Fact
	// brands are the brands the facts index (their domains inferred).
	brands []analysis.Brand
	// Pending are the occurrences the judge has not decided, of each
	// answer that has any, in the answers' order.
	Pending []PendingAnswer
	// Judging sums up the judge's part.
	Judging analysis.MentionJudging
}

// PendingAnswer is answer Answer's occurrences waiting for the judge.
type PendingAnswer struct {
	Answer   int
	Requests []analysis.JudgeRequest
}

// Cited is the slugs of the brands answer i cites, in the brands' order
// (nil: none).
func (ms MentionScores) Cited(i int) []string {
	var out []string
	for _, f := range ms.Facts[i] {
		if f.Cited {
			out = append(out, ms.brands[f.Brand].Slug)
		}
	}
	return out
}

// AllEvidence is every answer's evidence, from shared blocks: every
// tracked brand, mentioned, position, cited, the judge's verdicts.
func (ms MentionScores) AllEvidence() [][]analysis.BrandEvidence {
	var blocks analysis.Blocks
	out := make([][]analysis.BrandEvidence, len(ms.Facts))
	for i, f := range ms.Facts {
		out[i] = analysis.EvidenceIn(&blocks, ms.brands, f)
	}
	return out
}

// ScoreMentions computes every mention-based score from the answers: a
// pure function, so a report's numbers can be recomputed from its stored
// answers at any time. engines fixes the providers listed (an engine
// with no answer at all is still listed, as missing).
func ScoreMentions(brands []analysis.Brand, engines []string, answers []analysis.Answer) MentionScores {
	// Inferred domains are decided over every answer before any answer's
	// evidence (a name-only brand's citations and mentions depend on
	// them); what that pass read of each answer is read once.
	brands, scanned := analysis.InferDomainsScanned(brands, answers)
	m := analysis.NewMatcher(brands)
	engines = slices.Clone(engines) // answers of unlisted engines are appended
	out := MentionScores{Providers: map[string]*float64{}, Mentions: make([][]analysis.Mention, len(answers)),
		Facts: make([][]analysis.Fact, len(answers)), brands: brands}
	type acc struct {
		weight        float64
		mentions, pos int
		cited         int
	}
	per := make([]acc, len(brands))
	type engAcc struct {
		weight float64
		n      int
		status EngineStatus
	}
	// The engines are few: an answer's is looked up in a list, in the
	// engines' order (a map's hash of the name costs more).
	accs := make([]*engAcc, len(engines))
	for i, e := range engines {
		if j := slices.Index(engines[:i], e); j >= 0 {
			accs[i] = accs[j] // a name listed twice is one engine
			continue
		}
		accs[i] = &engAcc{status: EngineStatus{Engine: e}}
	}
	answered := 0
	var blocks analysis.Blocks
	for i, a := range answers {
		var e *engAcc
		for k, name := range engines {
			if name == a.Engine {
				e = accs[k]
				break
			}
		}
		if e == nil {
			e = &engAcc{status: EngineStatus{Engine: a.Engine}}
			accs = append(accs, e)
			engines = append(engines, a.Engine)
		}
		e.status.Planned++
		an := m.AnalyzeFactsIn(&blocks, a, scanned, i)
		out.Facts[i] = an.Facts
		if len(an.Pending) > 0 {
			out.Pending = append(out.Pending, PendingAnswer{Answer: i, Requests: an.Pending})
		}
		if a.NoAnswer && a.Error == "" {
			e.status.NoAnswer++
			continue
		}
		if a.Missing() {
			e.status.Missing++
			msg := a.Error
			e.status.Error = &msg
			continue
		}
		e.status.Answered++
		e.n++
		answered++
		out.Mentions[i] = an.Mentions
		// A mentioned brand's fact holds its position: the mentions are
		// summed from the facts, without looking each brand up by slug.
		for _, f := range an.Facts {
			for _, v := range f.Judged {
				out.Judging.Asked++
				if v.Names {
					out.Judging.Counted++
				}
			}
			out.Judging.Unjudged += int(f.Unjudged)
			if f.Cited {
				per[f.Brand].cited++
			}
			if f.Position > 0 {
				w := analysis.Weight(int(f.Position))
				per[f.Brand].weight += w
				per[f.Brand].mentions++
				per[f.Brand].pos += int(f.Position)
				if brands[f.Brand].Self {
					e.weight += w
				}
			}
		}
	}
	for k, e := range engines {
		ea := accs[k]
		out.Engines = append(out.Engines, ea.status)
		if ea.n > 0 {
			v := Round1(100 * ea.weight / float64(ea.n))
			out.Providers[e] = &v
		} else {
			out.Providers[e] = nil
		}
	}
	for bi, b := range brands {
		out.TotalMentions += per[bi].mentions
		if b.Self {
			out.SelfMentions = per[bi].mentions
		}
	}
	for bi, b := range brands {
		bs := BrandScore{Name: b.Name, Slug: b.Slug, Self: b.Self, Aliases: b.Aliases, InferredDomain: b.InferredDomain, Mentions: per[bi].mentions, Citations: per[bi].cited}
		if answered > 0 {
			bs.Visibility = Round1(100 * per[bi].weight / float64(answered))
			bs.MentionRate = Round1(100 * float64(per[bi].mentions) / float64(answered))
		}
		if out.TotalMentions > 0 {
			bs.ShareOfVoice = Round1(100 * float64(per[bi].mentions) / float64(out.TotalMentions))
		}
		if per[bi].mentions > 0 {
			bs.AveragePosition = Round1(float64(per[bi].pos) / float64(per[bi].mentions))
		}
		out.Brands = append(out.Brands, bs)
	}
	if len(out.Brands) > 0 {
		out.Visibility = out.Brands[0].Visibility
		out.ShareOfVoice = out.Brands[0].ShareOfVoice
	}
	if answered > 0 {
		s := Interpretation(out.Visibility)
		out.Interpretation = &s
	}
	if out.Judging.Unjudged > 0 {
		out.Judging.Note = fmt.Sprintf("%d sentence-initial occurrence(s) of brand names that are ordinary words were not decided by a judge model and do not count", out.Judging.Unjudged)
	}
	return out
}
