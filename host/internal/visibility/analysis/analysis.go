package analysis

import (
	"net/url"
	"strings"
	"sync"
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

// Fact is what one answer says of one tracked brand it mentions, cites
// or leaves to the judge: an answer's evidence without the brands it
// says nothing of (EvidenceIn writes out every brand).
type Fact struct {
	Brand    int32 // the brand's index in the matcher's brands
	Position int32 // 0 when not mentioned
	Unjudged int32
	Cited    bool
	Judged   []MentionVerdict
}

// EvidenceIn writes out one answer's evidence of every brand of brands
// from the answer's facts (in the brands' order), taken from blocks (nil:
// allocated for the answer): a brand with no fact is neither mentioned
// nor cited.
func EvidenceIn(blocks *Blocks, brands []Brand, facts []Fact) []BrandEvidence {
	return evidenceInto(blocks.takeEvidence(len(brands)), brands, facts)
}

func evidenceInto(out []BrandEvidence, brands []Brand, facts []Fact) []BrandEvidence {
	for i, b := range brands {
		out[i] = BrandEvidence{Brand: b.Slug, Name: b.Name, Self: b.Self}
	}
	for _, f := range facts {
		e := &out[f.Brand]
		e.Mentioned, e.Position, e.Weight = f.Position > 0, int(f.Position), Weight(int(f.Position))
		e.Cited, e.Judged, e.Unjudged = f.Cited, f.Judged, int(f.Unjudged)
	}
	return out
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
	// Brands is every tracked brand, in the brands' order (not set by
	// AnalyzeFactsIn).
	Brands []BrandEvidence
	// Facts are the brands the answer mentions, cites or leaves to the
	// judge, in the brands' order.
	Facts []Fact
	// Mentions are the brands mentioned, by position.
	Mentions []Mention
	// Pending are the occurrences waiting for the judge.
	Pending []JudgeRequest
}

// Mentions returns the brands a mentions, ordered by position.
func (m *Matcher) Mentions(a Answer) []Mention { return m.Analyze(a).Mentions }

// Analyze reads one answer: the brands its prose mentions (with the
// stored judge verdicts) and their positions, and the brands its sources
// cite, by registrable domain.
func (m *Matcher) Analyze(a Answer) Analysis {
	return m.AnalyzeIn(nil, a)
}

// Blocks hands out the evidence and mentions of many answers from shared
// blocks, so a report's analysis allocates per block and not per answer.
// The zero value is ready; it is not safe for concurrent use.
type Blocks struct {
	evidence []BrandEvidence
	mentions []Mention
	facts    []Fact
	verdicts []MentionVerdict
	// work is what each answer's analysis works in, kept from one
	// answer to the next (nil: not yet made).
	work *scratch
}

const blockAnswers = 256

func (b *Blocks) takeEvidence(n int) []BrandEvidence {
	if b == nil {
		return make([]BrandEvidence, n)
	}
	return take(&b.evidence, n, n*blockAnswers)
}

func (b *Blocks) takeFacts(n int) []Fact {
	switch {
	case n == 0:
		return nil
	case b == nil:
		return make([]Fact, n)
	}
	return take(&b.facts, n, max(n, 2*blockAnswers))
}

// takeVerdict is room for a fact's first verdict (more are appended).
func (b *Blocks) takeVerdict() []MentionVerdict {
	if b == nil {
		return make([]MentionVerdict, 0, 1)
	}
	return take(&b.verdicts, 1, blockAnswers)[:0]
}

func (b *Blocks) takeMentions(n int) []Mention {
	switch {
	case n == 0:
		return nil
	case b == nil:
		return make([]Mention, n)
	}
	return take(&b.mentions, n, max(n, blockAnswers))
}

// take hands out the next n elements of *block, a new block of size
// elements first when fewer are left.
func take[T any](block *[]T, n, size int) []T {
	if len(*block) < n {
		*block = make([]T, size)
	}
	out := (*block)[:n:n]
	*block = (*block)[n:]
	return out
}

// scratch is what one Analyze call works in, kept between answers (in a
// pool, or in the Blocks of a report's pass).
type scratch struct {
	t            tokens
	sources      []Source
	occurrences  []occurrence
	cands        []cand
	first, asked []int
	order        []int
	hosts        hostCache
	// facts are the answer's facts being gathered, slot each brand's
	// index in them (-1: none yet).
	facts []Fact
	slot  []int
}

// fact is brand b's fact of the answer being read, made when first
// needed.
func (sc *scratch) fact(b int) *Fact {
	if sc.slot[b] < 0 {
		sc.slot[b] = len(sc.facts)
		sc.facts = append(sc.facts, Fact{Brand: int32(b)})
	}
	return &sc.facts[sc.slot[b]]
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// AnalyzeIn is Analyze with the answer's evidence and mentions taken from
// blocks (nil: allocated for the answer).
func (m *Matcher) AnalyzeIn(blocks *Blocks, a Answer) Analysis {
	return m.withEvidence(blocks, m.analyze(blocks, a, nil, 0))
}

// AnalyzeScannedIn is AnalyzeIn for answer i of the answers scanned was
// made from (InferDomainsScanned), without reading its URLs and sources
// again; a nil scanned reads them.
func (m *Matcher) AnalyzeScannedIn(blocks *Blocks, a Answer, scanned *Scanned, i int) Analysis {
	return m.withEvidence(blocks, m.analyze(blocks, a, scanned, i))
}

// AnalyzeFactsIn is AnalyzeScannedIn without Brands: a report's pass
// keeps the facts and writes out every brand's evidence (EvidenceIn) only
// where it is stored or shown.
func (m *Matcher) AnalyzeFactsIn(blocks *Blocks, a Answer, scanned *Scanned, i int) Analysis {
	return m.analyze(blocks, a, scanned, i)
}

func (m *Matcher) withEvidence(blocks *Blocks, an Analysis) Analysis {
	an.Brands = evidenceInto(blocks.takeEvidence(len(m.brands)), m.brands, an.Facts)
	return an
}

func (m *Matcher) analyze(blocks *Blocks, a Answer, scanned *Scanned, ai int) Analysis {
	out := Analysis{}
	if a.Missing() {
		return out
	}
	var sc *scratch
	switch {
	case blocks == nil:
		sc = scratchPool.Get().(*scratch)
		defer scratchPool.Put(sc)
	case blocks.work == nil:
		blocks.work = new(scratch)
		fallthrough
	default:
		sc = blocks.work // one answer after the other: not shared
	}
	sc.facts, sc.slot = sc.facts[:0], resetInts(&sc.slot, len(m.brands), -1)
	var prose string
	if scanned != nil {
		hits, cites := scanned.of(ai)
		prose, sc.sources = readProseHits(a.Text, sc.sources[:0], &sc.hosts, hits, true)
		for _, s := range sc.sources {
			m.cite(sc, s.Domain)
		}
		for _, h := range cites {
			if h != "" {
				m.cite(sc, sc.hosts.registrable(h))
			}
		}
	} else {
		prose, sc.sources = readProseTo(a.Text, sc.sources[:0], &sc.hosts)
		for _, s := range sc.sources {
			m.cite(sc, s.Domain)
		}
		for _, c := range a.Citations {
			if u, err := url.Parse(strings.TrimSpace(c.URL)); err == nil && u.Hostname() != "" {
				m.cite(sc, sc.hosts.registrable(u.Hostname()))
			}
		}
	}
	t := &sc.t
	t.reset(prose)
	first, asked := resetInts(&sc.first, len(m.brands), -1), resetInts(&sc.asked, len(m.brands), 0)
	for _, o := range m.occurrences(t, sc) {
		b := o.brand
		if first[b] >= 0 {
			continue
		}
		if !o.judge {
			first[b] = int(o.start)
			continue
		}
		sentence := t.sentenceOf(int(o.start), int(o.end))
		if v, ok := verdict(a.Verdicts, m.brands[b].Slug, sentence); ok {
			f := sc.fact(b)
			if f.Judged == nil {
				f.Judged = blocks.takeVerdict()
			}
			f.Judged = append(f.Judged, v)
			if v.Names {
				first[b] = int(o.start)
			}
			continue
		}
		sc.fact(b).Unjudged++
		if asked[b] < maxJudged {
			asked[b]++
			out.Pending = append(out.Pending, JudgeRequest{Brand: m.brands[b].Slug, Name: m.brands[b].Name, Category: m.brands[b].Category, Sentence: sentence})
		}
	}
	order := sc.order[:0]
	for b, f := range first {
		if f >= 0 {
			order = append(order, b)
		}
	}
	sc.order = order
	// No two brands share a first word, so the order is the positions';
	// the brands an answer names are few: an insertion sort.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && first[order[j]] < first[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	out.Mentions = blocks.takeMentions(len(order))
	for rank, b := range order {
		f := sc.fact(b)
		f.Position = int32(rank + 1)
		br := &m.brands[b]
		out.Mentions[rank] = Mention{Brand: br.Slug, Name: br.Name, Self: br.Self, Position: rank + 1, Weight: Weight(rank + 1), Cited: f.Cited}
	}
	out.Facts = blocks.takeFacts(len(sc.facts))
	copy(out.Facts, sc.facts)
	// In the brands' order: the facts are few, an insertion sort.
	for i := 1; i < len(out.Facts); i++ {
		for j := i; j > 0 && out.Facts[j].Brand < out.Facts[j-1].Brand; j-- {
			out.Facts[j], out.Facts[j-1] = out.Facts[j-1], out.Facts[j]
		}
	}
	return out
}

// cite marks the brands whose registrable domain is domain as cited.
func (m *Matcher) cite(sc *scratch, domain string) {
	for i, ds := range m.domains {
		for _, d := range ds {
			if d == domain {
				sc.fact(i).Cited = true
			}
		}
	}
}

// verdict is the last of the stored verdicts on brand's sentence.
func verdict(vs []MentionVerdict, brand, sentence string) (MentionVerdict, bool) {
	for i := len(vs) - 1; i >= 0; i-- {
		if sameKey(vs[i].Brand, vs[i].Sentence, brand, sentence) {
			return vs[i], true
		}
	}
	return MentionVerdict{}, false
}

// sameKey says brand+"\x00"+sentence are the same for both pairs, the key
// the verdicts were looked up by.
func sameKey(b1, s1, b2, s2 string) bool {
	if b1 == b2 && s1 == s2 {
		return true
	}
	n := len(b1) + 1 + len(s1)
	if n != len(b2)+1+len(s2) {
		return false
	}
	at := func(b, s string, i int) byte {
		switch {
		case i < len(b):
			return b[i]
		case i == len(b):
			return 0
		}
		return s[i-len(b)-1]
	}
	for i := range n {
		if at(b1, s1, i) != at(b2, s2, i) {
			return false
		}
	}
	return true
}

// resetInts makes *buf n long, every element v.
func resetInts(buf *[]int, n, v int) []int {
	if cap(*buf) < n {
		*buf = make([]int, n)
	}
	s := (*buf)[:n]
	for i := range s {
		s[i] = v
	}
	return s
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
	// NoAnswer says the engine showed no answer for the prompt (a Google
	// search without an AI Overview): no text, left out of every mean like
	// a missing answer, and counted apart from failures.
	NoAnswer bool `json:"noAnswer,omitempty"`
	// Discovered are the brands and products the judge model says the
	// answer names, as stored; DiscoveryJudged says the judge listed them
	// (false: no judge model, or it failed).
	// They stay out of an answer's evidence.
	Discovered      []NamedBrand `json:"-"`
	DiscoveryJudged bool         `json:"-"`
}

// Citation is a source the engine returned with its answer.
type Citation struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Missing reports whether the engine gave no answer: it failed, or it
// showed none for the prompt (NoAnswer).
func (a Answer) Missing() bool { return a.Error != "" || a.NoAnswer }

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
