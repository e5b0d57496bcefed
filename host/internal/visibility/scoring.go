package visibility

import (
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// Weight is VISIBILITY.md's position weight: 1, 0.75, 0.5, then 0.25; 0
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

// Matcher finds tracked brands in answers. Build it once per report.
type Matcher struct {
	brands   []Brand
	patterns []pattern
}

type pattern struct {
	brand  int
	text   string // lowercased
	domain bool
}

// NewMatcher prepares the aliases and domains of brands.
func NewMatcher(brands []Brand) *Matcher {
	m := &Matcher{brands: brands}
	for i, b := range brands {
		for _, a := range b.Aliases {
			m.patterns = append(m.patterns, pattern{brand: i, text: strings.ToLower(a)})
		}
		for _, d := range b.Domains {
			m.patterns = append(m.patterns, pattern{brand: i, text: strings.ToLower(d), domain: true})
		}
	}
	return m
}

type match struct{ brand, start, end int }

// Mentions returns the brands a mentions, ordered by position: a brand's
// position is the rank of its first occurrence among the brands
// mentioned. Aliases match case-insensitively on word boundaries; domains
// match anywhere, inside URLs and as subdomains, but not as part of a
// longer domain label (acme.com does not match notacme.com). Where aliases
// of two brands overlap ("Acme" inside "Acme Cloud"), the longer one wins.
func (m *Matcher) Mentions(a Answer) []Mention {
	if a.Missing() {
		return nil
	}
	text := strings.ToLower(a.Text)
	return m.mentions(text, citedHosts(a, text))
}

func (m *Matcher) mentions(text string, hosts []string) []Mention {
	var found []match
	for _, p := range m.patterns {
		for off := 0; off < len(text); {
			i := strings.Index(text[off:], p.text)
			if i < 0 {
				break
			}
			start, end := off+i, off+i+len(p.text)
			if bounded(text, start, end, p.domain) {
				found = append(found, match{p.brand, start, end})
			}
			off = start + 1
		}
	}
	// Longest match first at a start; then drop matches inside accepted
	// ones, so an alias inside another brand's longer alias does not count.
	sort.Slice(found, func(i, j int) bool {
		if found[i].start != found[j].start {
			return found[i].start < found[j].start
		}
		return found[i].end > found[j].end
	})
	first := map[int]int{}
	var accepted []match
	for _, f := range found {
		inside := false
		for _, acc := range accepted {
			if f.start >= acc.start && f.end <= acc.end && f.brand != acc.brand {
				inside = true
				break
			}
		}
		if inside {
			continue
		}
		accepted = append(accepted, f)
		if s, ok := first[f.brand]; !ok || f.start < s {
			first[f.brand] = f.start
		}
	}
	order := make([]int, 0, len(first))
	for b := range first {
		order = append(order, b)
	}
	sort.Slice(order, func(i, j int) bool {
		if first[order[i]] != first[order[j]] {
			return first[order[i]] < first[order[j]]
		}
		return order[i] < order[j]
	})
	out := make([]Mention, len(order))
	for rank, bi := range order {
		b := m.brands[bi]
		out[rank] = Mention{Brand: b.Slug, Name: b.Name, Self: b.Self, Position: rank + 1, Weight: Weight(rank + 1), Cited: cites(hosts, b.Domains)}
	}
	return out
}

func bounded(text string, start, end int, domain bool) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	word := func(r rune) bool {
		return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || (domain && r == '-'))
	}
	if start > 0 && word(before) {
		return false
	}
	if end < len(text) && word(after) {
		return false
	}
	// "acme.com" followed by ".au" is another domain; a sentence's full
	// stop is not.
	if domain && end+1 < len(text) && text[end] == '.' {
		r, _ := utf8.DecodeRuneInString(text[end+1:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// citedHosts lists the hosts of the URLs in the answer text (lowered is
// the text lowercased) and in the engine's citations, lowercased. URLs
// are found by their scheme and end at whitespace, quotes or brackets
// (no regular expression: scoring 1,000 answers must stay fast).
func citedHosts(a Answer, lowered string) []string {
	var hosts []string
	add := func(raw string) {
		u, err := url.Parse(strings.TrimRight(raw, ".,;:!?"))
		if err == nil && u.Hostname() != "" {
			hosts = append(hosts, strings.ToLower(u.Hostname()))
		}
	}
	for _, c := range a.Citations {
		add(c.URL)
	}
	for off := 0; ; {
		i := strings.Index(lowered[off:], "http")
		if i < 0 {
			break
		}
		start := off + i
		rest := lowered[start:]
		if !strings.HasPrefix(rest, "http://") && !strings.HasPrefix(rest, "https://") || (start > 0 && isWord(lowered[start-1])) {
			off = start + 4
			continue
		}
		end := strings.IndexAny(rest, " \t\n\r<>\"'()[]{}")
		if end < 0 {
			end = len(rest)
		}
		add(rest[:end])
		off = start + end
	}
	return hosts
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

func cites(hosts, domains []string) bool {
	for _, h := range hosts {
		for _, d := range domains {
			if h == d || strings.HasSuffix(h, "."+d) {
				return true
			}
		}
	}
	return false
}

// round1 rounds to one decimal, as every score is shown.
func round1(x float64) float64 { return math.Round(x*10) / 10 }

// Interpretation names a score's band: strong (≥ 70), moderate (≥ 40),
// weak (≥ 15), absent. Bands apply to the score as shown (one decimal).
func Interpretation(score float64) string {
	switch s := round1(score); {
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
}

// EngineStatus says how many of an engine's answers are in the report.
type EngineStatus struct {
	Engine   string  `json:"engine"`
	Planned  int     `json:"planned"`
	Answered int     `json:"answered"`
	Missing  int     `json:"missing"`
	Error    *string `json:"error"`
}

// MentionScores are the mention-based scores of VISIBILITY.md.
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
	Mentions [][]Mention
	// Cited lists per answer the slugs of the brands it cites.
	Cited [][]string
}

// ScoreMentions computes every mention-based score from the answers: a
// pure function, so a report's numbers can be recomputed from its stored
// answers at any time. engines fixes the providers listed (an engine
// with no answer at all is still listed, as missing).
func ScoreMentions(brands []Brand, engines []string, answers []Answer) MentionScores {
	m := NewMatcher(brands)
	engines = slices.Clone(engines) // answers of unlisted engines are appended
	out := MentionScores{Providers: map[string]*float64{}, Mentions: make([][]Mention, len(answers)), Cited: make([][]string, len(answers))}
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
	byEngine := map[string]*engAcc{}
	for _, e := range engines {
		byEngine[e] = &engAcc{status: EngineStatus{Engine: e}}
	}
	answered := 0
	for i, a := range answers {
		e := byEngine[a.Engine]
		if e == nil {
			e = &engAcc{status: EngineStatus{Engine: a.Engine}}
			byEngine[a.Engine] = e
			engines = append(engines, a.Engine)
		}
		e.status.Planned++
		if a.Missing() {
			e.status.Missing++
			msg := a.Error
			e.status.Error = &msg
			continue
		}
		e.status.Answered++
		e.n++
		answered++
		text := strings.ToLower(a.Text)
		hosts := citedHosts(a, text)
		ms := m.mentions(text, hosts)
		out.Mentions[i] = ms
		for _, mt := range ms {
			bi := brandIndex(brands, mt.Brand)
			per[bi].weight += mt.Weight
			per[bi].mentions++
			per[bi].pos += mt.Position
			if mt.Self {
				e.weight += mt.Weight
			}
		}
		for bi := range brands {
			if cites(hosts, brands[bi].Domains) {
				per[bi].cited++
				out.Cited[i] = append(out.Cited[i], brands[bi].Slug)
			}
		}
	}
	for _, e := range engines {
		ea := byEngine[e]
		out.Engines = append(out.Engines, ea.status)
		if ea.n > 0 {
			v := round1(100 * ea.weight / float64(ea.n))
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
		bs := BrandScore{Name: b.Name, Slug: b.Slug, Self: b.Self, Aliases: b.Aliases, Mentions: per[bi].mentions, Citations: per[bi].cited}
		if answered > 0 {
			bs.Visibility = round1(100 * per[bi].weight / float64(answered))
			bs.MentionRate = round1(100 * float64(per[bi].mentions) / float64(answered))
		}
		if out.TotalMentions > 0 {
			bs.ShareOfVoice = round1(100 * float64(per[bi].mentions) / float64(out.TotalMentions))
		}
		if per[bi].mentions > 0 {
			bs.AveragePosition = round1(float64(per[bi].pos) / float64(per[bi].mentions))
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
	return out
}

func brandIndex(brands []Brand, slug string) int {
	for i, b := range brands {
		if b.Slug == slug {
			return i
		}
	}
	return 0
}
