package scoring

import (
	"sort"
	"strings"

	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// SourceRow is one domain of the report's sources table.
type SourceRow struct {
	Domain string `json:"domain"`
	// Kind is self, competitor (a tracked competitor's domain) or other.
	Kind string `json:"kind"`
	// Brand is the slug of the brand whose domain it is (self and
	// competitor rows).
	Brand string `json:"brand,omitempty"`
	// Retrieved is 100 × the share of answers with the domain in their
	// sources.
	Retrieved float64 `json:"retrieved"`
	// Citations is the mean number of the domain's URLs per answer that
	// retrieved it.
	Citations float64 `json:"citations"`
	// Answers is how many answers retrieved it.
	Answers int `json:"answers"`
}

// SourceGap is an other domain retrieved in answers that mention a
// competitor and not the brand: a site to get onto.
type SourceGap struct {
	Domain string `json:"domain"`
	// Answers is how many such answers retrieved it (the ranking).
	Answers int `json:"answers"`
	// Competitors are the competitors those answers named.
	Competitors []string `json:"competitors"`
	// Prompts are the evidence: "prompt" (engine) of each such answer.
	Prompts []string `json:"prompts"`
}

// SourceVisibilityScore is scores.sourceVisibility: retrieved(self's
// domain).
type SourceVisibilityScore struct {
	Score          float64 `json:"score"`
	Interpretation *string `json:"interpretation"`
	Domain         string  `json:"domain"`
	*Spread
	Change *Change `json:"change"`
}

// Sources is the sources part of a report.
type Sources struct {
	Table         []SourceRow
	Gaps          []SourceGap
	SelfDomain    string
	SelfRetrieved float64
	Answered      int
}

// maxSourceGaps is how many gaps a report lists.
const maxSourceGaps = 10

// answerDomains is sources(a) reduced to registrable domains, each with
// its number of distinct URLs (AnswerSources reads them).
func answerDomains(a analysis.Answer) map[string]int {
	seen := map[string]bool{}
	out := map[string]int{}
	for _, src := range analysis.AnswerSources(a) {
		if src.Domain == "" {
			continue
		}
		key := strings.TrimSuffix(strings.ToLower(src.URL), "/")
		key = strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
		if seen[key] {
			continue
		}
		seen[key] = true
		out[src.Domain]++
	}
	return out
}

// ScoreSources computes the sources table, source visibility and source
// gaps of docs/METRICS.md over the answers (mentions as ScoreMentions
// found them, per answer).
func ScoreSources(brands []analysis.Brand, answers []analysis.Answer, mentions [][]analysis.Mention) Sources {
	var out Sources
	kind := map[string][2]string{} // domain → kind, brand slug
	for _, b := range brands {
		for _, d := range b.Domains {
			d = site.RegistrableDomain(d)
			if _, ok := kind[d]; ok {
				continue
			}
			if b.Self {
				kind[d] = [2]string{"self", b.Slug}
			} else {
				kind[d] = [2]string{"competitor", b.Slug}
			}
		}
	}
	if len(brands) > 0 && len(brands[0].Domains) > 0 {
		out.SelfDomain = site.RegistrableDomain(brands[0].Domains[0])
	}
	type acc struct{ answers, urls int }
	per := map[string]*acc{}
	type gapAcc struct {
		answers     int
		competitors map[string]bool
		prompts     []string
	}
	gaps := map[string]*gapAcc{}
	for i, a := range answers {
		if a.Missing() {
			continue
		}
		out.Answered++
		srcs := answerDomains(a)
		self, comps := false, []string{}
		if i < len(mentions) {
			for _, m := range mentions[i] {
				if m.Self {
					self = true
				} else {
					comps = append(comps, m.Name)
				}
			}
		}
		for d, n := range srcs {
			x := per[d]
			if x == nil {
				x = &acc{}
				per[d] = x
			}
			x.answers++
			x.urls += n
			if k := kind[d]; k[0] == "" && !self && len(comps) > 0 {
				g := gaps[d]
				if g == nil {
					g = &gapAcc{competitors: map[string]bool{}}
					gaps[d] = g
				}
				g.answers++
				for _, c := range comps {
					g.competitors[c] = true
				}
				g.prompts = append(g.prompts, `"`+a.Prompt+`" (`+a.Engine+`)`)
			}
		}
	}
	for d, x := range per {
		k := kind[d]
		row := SourceRow{Domain: d, Kind: k[0], Brand: k[1], Answers: x.answers,
			Retrieved: Round1(100 * float64(x.answers) / float64(out.Answered)),
			Citations: Round1(float64(x.urls) / float64(x.answers))}
		if row.Kind == "" {
			row.Kind = "other"
		}
		out.Table = append(out.Table, row)
		if d == out.SelfDomain {
			out.SelfRetrieved = row.Retrieved
		}
	}
	sort.Slice(out.Table, func(i, j int) bool {
		if out.Table[i].Answers != out.Table[j].Answers {
			return out.Table[i].Answers > out.Table[j].Answers
		}
		return out.Table[i].Domain < out.Table[j].Domain
	})
	for d, g := range gaps {
		comps := make([]string, 0, len(g.competitors))
		for c := range g.competitors {
			comps = append(comps, c)
		}
		sort.Strings(comps)
		out.Gaps = append(out.Gaps, SourceGap{Domain: d, Answers: g.answers, Competitors: comps, Prompts: g.prompts})
	}
	sort.Slice(out.Gaps, func(i, j int) bool {
		if out.Gaps[i].Answers != out.Gaps[j].Answers {
			return out.Gaps[i].Answers > out.Gaps[j].Answers
		}
		return out.Gaps[i].Domain < out.Gaps[j].Domain
	})
	if len(out.Gaps) > maxSourceGaps {
		out.Gaps = out.Gaps[:maxSourceGaps]
	}
	if out.Table == nil {
		out.Table = []SourceRow{}
	}
	if out.Gaps == nil {
		out.Gaps = []SourceGap{}
	}
	return out
}

func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return "competitors"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func joinQuoted(list []string) string {
	if len(list) > 5 {
		return strings.Join(list[:5], "; ") + "; …"
	}
	return strings.Join(list, "; ")
}
