package analysis

import (
	"sort"
)

// MentionVerdict is the judge's word on a sentence-initial occurrence of a
// brand name that is an ordinary word ("Monday is eaten by email"),
// stored with the answer.
type MentionVerdict struct {
	Brand    string `json:"brand"` // slug
	Sentence string `json:"sentence"`
	// Names says the occurrence names the brand.
	Names bool   `json:"namesBrand"`
	Model string `json:"model,omitempty"`
}

// JudgeRequest is an occurrence the judge has to decide.
type JudgeRequest struct {
	Brand    string `json:"brand"` // slug
	Name     string `json:"name"`
	Category string `json:"category,omitempty"`
	Sentence string `json:"sentence"`
}

// BrandEvidence is one tracked brand in one answer, mentioned or not.
type BrandEvidence struct {
	Brand     string  `json:"brand"` // slug
	Name      string  `json:"name"`
	Self      bool    `json:"self"`
	Mentioned bool    `json:"mentioned"`
	Position  int     `json:"position"` // 0 when not mentioned
	Weight    float64 `json:"weight"`
	Cited     bool    `json:"cited"`
	// Judged are the judge's verdicts used for this brand.
	Judged []MentionVerdict `json:"judged,omitempty"`
	// Unjudged counts sentence-initial occurrences that did not count
	// because no judge decided them.
	Unjudged int `json:"unjudged,omitempty"`
}

// MentionJudging sums up the judge's part in a report.
type MentionJudging struct {
	// Asked is the verdicts used; Counted how many named the brand.
	Asked   int `json:"asked"`
	Counted int `json:"counted"`
	// Unjudged occurrences had no verdict (no judge model) and did not
	// count; Note says so in words.
	Unjudged int    `json:"unjudged"`
	Note     string `json:"note,omitempty"`
}

// Analysis is one answer read under the mention rules.
type Analysis struct {
	// Brands is every tracked brand, in the brands' order.
	Brands []BrandEvidence
	// Mentions are the brands mentioned, by position.
	Mentions []Mention
	// Pending are the occurrences waiting for the judge.
	Pending []JudgeRequest
	index   map[string]int // slug → brand
}

// Mentions returns the brands a mentions, ordered by position.
func (m *Matcher) Mentions(a Answer) []Mention { return m.Analyze(a).Mentions }

// Analyze reads one answer: the brands its prose mentions (with the
// stored judge verdicts) and their positions, and the brands its sources
// cite, by registrable domain.
func (m *Matcher) Analyze(a Answer) Analysis {
	out := Analysis{Brands: make([]BrandEvidence, len(m.brands)), index: m.index}
	for i, b := range m.brands {
		out.Brands[i] = BrandEvidence{Brand: b.Slug, Name: b.Name, Self: b.Self}
	}
	if a.Missing() {
		return out
	}
	prose, sources := readProse(a.Text)
	cited := map[string]bool{}
	for _, s := range sources {
		cited[s.Domain] = true
	}
	for _, c := range a.Citations {
		for _, s := range citationSources(c) {
			cited[s.Domain] = true
		}
	}
	for i, ds := range m.domains {
		for _, d := range ds {
			if cited[d] {
				out.Brands[i].Cited = true
			}
		}
	}
	verdicts := map[string]MentionVerdict{}
	for _, v := range a.Verdicts {
		verdicts[v.Brand+"\x00"+v.Sentence] = v
	}
	t := tokenPool.Get().(*tokens)
	defer tokenPool.Put(t)
	t.reset(prose)
	first := make([]int, len(m.brands))
	for i := range first {
		first[i] = -1
	}
	asked := make([]int, len(m.brands))
	for _, o := range m.occurrences(t) {
		b := o.brand
		if first[b] >= 0 {
			continue
		}
		if !o.judge {
			first[b] = o.tok
			continue
		}
		sentence := t.sentenceOf(o.tok)
		if v, ok := verdicts[m.brands[b].Slug+"\x00"+sentence]; ok {
			out.Brands[b].Judged = append(out.Brands[b].Judged, v)
			if v.Names {
				first[b] = o.tok
			}
			continue
		}
		out.Brands[b].Unjudged++
		if asked[b] < maxJudged {
			asked[b]++
			out.Pending = append(out.Pending, JudgeRequest{Brand: m.brands[b].Slug, Name: m.brands[b].Name, Category: m.brands[b].Category, Sentence: sentence})
		}
	}
	var order []int
	for b, f := range first {
		if f >= 0 {
			order = append(order, b)
		}
	}
	sort.Slice(order, func(i, j int) bool { return first[order[i]] < first[order[j]] })
	for rank, b := range order {
		e := &out.Brands[b]
		e.Mentioned, e.Position, e.Weight = true, rank+1, Weight(rank+1)
		out.Mentions = append(out.Mentions, Mention{Brand: e.Brand, Name: e.Name, Self: e.Self, Position: e.Position, Weight: e.Weight, Cited: e.Cited})
	}
	return out
}

func citationSources(c Citation) []Source {
	return AnswerSources(Answer{Citations: []Citation{c}})
}

// Answer is one prompt answered (or not) by one engine: the stored
// evidence every score is computed from.
type Answer struct {
	Engine    string     `json:"engine"`
	Prompt    string     `json:"prompt"`
	Text      string     `json:"text"`
	Model     string     `json:"model,omitempty"`
	Citations []Citation `json:"citations"`
	// Error is set when the engine failed: the answer is missing, not a
	// zero, and is left out of every mean.
	Error string `json:"error,omitempty"`
	// Cached says the answer was reused from an identical question asked
	// within the cache window.
	Cached bool `json:"cached,omitempty"`
	// Truncated says the text was cut to MaxAnswerBytes when stored.
	Truncated bool `json:"truncated,omitempty"`
	// Verdicts are the judge's words on sentence-initial occurrences of
	// ambiguous brand names, stored with the answer so the report
	// reproduces.
	Verdicts []MentionVerdict `json:"mentionVerdicts,omitempty"`
	// Sample is which of the prompt's samples on this engine the answer
	// is (0 for the first; a run asks each prompt samples times).
	Sample int `json:"sample,omitempty"`
}

// Citation is a source the engine returned with its answer.
type Citation struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Missing reports whether the engine gave no answer.
func (a Answer) Missing() bool { return a.Error != "" }

// Mention is a tracked brand found in an answer.
type Mention struct {
	Brand    string  `json:"brand"` // slug
	Name     string  `json:"name"`
	Self     bool    `json:"self"`
	Position int     `json:"position"`
	Weight   float64 `json:"weight"`
	Cited    bool    `json:"cited"`
}

// Weight is docs/METRICS.md's position weight: 1, 0.75, 0.5, then 0.25; 0
// when not mentioned (pos 0).
func Weight(pos int) float64 {
	switch {
	case pos <= 0:
		return 0
	case pos == 1:
		return 1
	case pos == 2:
		return 0.75
	case pos == 3:
		return 0.5
	default:
		return 0.25
	}
}

// BrandIndex is the index in the matcher's brands of the brand slug.
func (a Analysis) BrandIndex(slug string) int { return a.index[slug] }
