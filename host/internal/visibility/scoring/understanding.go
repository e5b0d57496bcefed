package scoring

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// ProbeDef is one of the fixed entity probes: a question every engine
// answers about the brand, and the site fact its answers are judged
// against.
type ProbeDef struct {
	ID       string
	question string
	fact     func(f site.Facts, competitors []string) string
}

// Question is the probe's question about the brand.
func (p ProbeDef) Question(brand, domain string) string {
	return fmt.Sprintf(p.question, brand, domain)
}

// Fact is the site fact the probe is judged against; empty when the site
// states none (the probe is then unverifiable and left out of the score).
func (p ProbeDef) Fact(f site.Facts, competitors []string) string {
	return strings.TrimSpace(p.fact(f, competitors))
}

// Probes are docs/METRICS.md's fixed probes: what the brand is, what it
// offers, who it serves, where it is based, its main competitors.
var Probes = []ProbeDef{
	{"what", "What is %s (%s)? Answer in two or three sentences.", func(f site.Facts, _ []string) string {
		var parts []string
		if f.Organization != nil && f.Organization.Description != "" {
			parts = append(parts, f.Organization.Description)
		}
		return joinFacts(append(parts, f.Description, strings.Join(f.H1s, "; "), f.Title)...)
	}},
	{"offers", "What products or services does %s (%s) offer?", func(f site.Facts, _ []string) string {
		var parts []string
		for _, p := range f.Products {
			parts = append(parts, joinFacts(p.Name, p.Description))
		}
		if len(parts) == 0 {
			parts = append(parts, strings.Join(f.H1s, "; "), f.Description)
		}
		return joinFacts(parts...)
	}},
	{"audience", "Who are the customers of %s (%s)? Who is it for?", func(f site.Facts, _ []string) string {
		return joinFacts(f.Description, analysis.Excerpt(f.AboutText, 600))
	}},
	{"location", "Where is %s (%s) based?", func(f site.Facts, _ []string) string {
		if f.Organization != nil && f.Organization.Address != "" {
			return f.Organization.Address
		}
		return ""
	}},
	{"competitors", "Who are the main competitors of %s (%s)?", func(_ site.Facts, competitors []string) string {
		if len(competitors) == 0 {
			return ""
		}
		return "Competitors named by the brand: " + strings.Join(competitors, ", ")
	}},
}

func joinFacts(parts ...string) string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return strings.Join(out, " | ")
}

// Verdicts of a probe answer.
const (
	VerdictCorrect      = "correct"
	VerdictPartly       = "partly"
	VerdictWrong        = "wrong"
	VerdictUnknown      = "unknown" // the engine said it does not know
	VerdictUnverifiable = "unverifiable"
	VerdictMissing      = "missing" // the engine or the judge failed
)

// Points is a verdict's score: correct 1, partly 0.5, wrong or unknown 0;
// ok is false for verdicts left out of the mean.
func Points(verdict string) (points float64, ok bool) {
	switch verdict {
	case VerdictCorrect:
		return 1, true
	case VerdictPartly:
		return 0.5, true
	case VerdictWrong, VerdictUnknown:
		return 0, true
	}
	return 0, false
}

// ProbeResult is one probe answered by one engine, with the judge's
// verdict and the site fact it was judged against.
type ProbeResult struct {
	ID          string         `json:"id"`
	Question    string         `json:"question"`
	Engine      string         `json:"engine"`
	Answer      string         `json:"answer"`
	Verdict     string         `json:"verdict"`
	Points      *float64       `json:"points"`
	Fact        string         `json:"fact"`
	Explanation *string        `json:"explanation"`
	Entities    []JudgedEntity `json:"-"`
}

// JudgedEntity is something an engine associates with the brand, as the
// judge read it from the answer.
type JudgedEntity struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// DetectedEntity is an entity and the engines that associated it.
type DetectedEntity struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Engines []string `json:"engines"`
}

// Gap is a site fact no engine knew, or an engine claim contradicting the
// site.
type Gap struct {
	Kind    string   `json:"kind"`
	Probe   string   `json:"probe"`
	Fact    string   `json:"fact"`
	Detail  string   `json:"detail"`
	Engines []string `json:"engines"`
}

// ClarityCheck is one check of the site's own machine-readability.
type ClarityCheck struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

// Understanding is the entity understanding part of a report.
type Understanding struct {
	Score               float64             `json:"score"`
	KnowledgeScore      float64             `json:"knowledgeScore"`
	ContentClarityScore float64             `json:"contentClarityScore"`
	Providers           map[string]*float64 `json:"-"`
	Probes              []ProbeResult       `json:"probes"`
	DetectedEntities    []DetectedEntity    `json:"detectedEntities"`
	Gaps                []Gap               `json:"gaps"`
	ClarityChecks       []ClarityCheck      `json:"clarityChecks"`
}

// ClarityChecks runs the site checks of docs/METRICS.md on the crawled facts;
// reached is false when the home page could not be fetched (every check
// then fails, with the reason).
func ClarityChecks(f site.Facts, reached bool, reason string) []ClarityCheck {
	check := func(id, title string, passed bool, detail string) ClarityCheck {
		if !reached {
			return ClarityCheck{ID: id, Title: title, Detail: "not checked: the site could not be fetched (" + reason + ")"}
		}
		return ClarityCheck{ID: id, Title: title, Passed: passed, Detail: detail}
	}
	org := "no schema.org Organization or LocalBusiness JSON-LD on the home or about page"
	if f.Organization != nil {
		org = fmt.Sprintf("%s %q", f.Organization.Type, f.Organization.Name)
	}
	blocked := "robots.txt lets GPTBot, ClaudeBot, PerplexityBot and Google-Extended in"
	if !f.RobotsFound {
		blocked = "no robots.txt: nothing is blocked"
	}
	if len(f.BlockedCrawlers) > 0 {
		blocked = "robots.txt blocks " + strings.Join(f.BlockedCrawlers, ", ")
	}
	return []ClarityCheck{
		check("https", "Reachable over https", f.HTTPS, f.URL),
		check("one_h1", "Exactly one H1 on the home page", len(f.H1s) == 1, fmt.Sprintf("%d H1 headings: %s", len(f.H1s), strings.Join(f.H1s, " / "))),
		check("meta_description", "Meta description", f.Description != "", orNone(f.Description)),
		check("organization_schema", "schema.org Organization (or LocalBusiness) JSON-LD", f.Organization != nil, org),
		check("about_page", "About page linked from the home page", f.AboutURL != "", orNone(f.AboutURL)),
		check("sitemap", "sitemap.xml", f.Sitemap, orNone(f.SitemapURL)),
		check("ai_crawlers", "robots.txt does not block AI crawlers", len(f.BlockedCrawlers) == 0, blocked),
		check("llms_txt", "/llms.txt present", f.LLMsTxt, map[bool]string{true: "/llms.txt found", false: "no /llms.txt"}[f.LLMsTxt]),
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// ScoreUnderstanding computes the entity understanding scores from the
// judged probes and the clarity checks: knowledge = 100 × mean points of
// the judged probes (per engine in Providers), clarity = 100 × passed /
// checks, score = 0.6 × knowledge + 0.4 × clarity.
func ScoreUnderstanding(engines []string, probes []ProbeResult, checks []ClarityCheck) Understanding {
	u := Understanding{Providers: map[string]*float64{}, Probes: probes, ClarityChecks: checks, DetectedEntities: []DetectedEntity{}, Gaps: []Gap{}}
	var sum float64
	n := 0
	perSum, perN := map[string]float64{}, map[string]int{}
	for i, p := range probes {
		pts, ok := Points(p.Verdict)
		if !ok {
			continue
		}
		probes[i].Points = &pts
		sum += pts
		n++
		perSum[p.Engine] += pts
		perN[p.Engine]++
	}
	knowledge := 0.0
	if n > 0 {
		knowledge = 100 * sum / float64(n)
	}
	for _, e := range engines {
		if perN[e] > 0 {
			v := Round1(100 * perSum[e] / float64(perN[e]))
			u.Providers[e] = &v
		} else {
			u.Providers[e] = nil
		}
	}
	passed := 0
	for _, c := range checks {
		if c.Passed {
			passed++
		}
	}
	clarity := 0.0
	if len(checks) > 0 {
		clarity = 100 * float64(passed) / float64(len(checks))
	}
	u.KnowledgeScore, u.ContentClarityScore = Round1(knowledge), Round1(clarity)
	u.Score = Round1(0.6*knowledge + 0.4*clarity)
	u.DetectedEntities = detectedEntities(probes)
	u.Gaps = gaps(probes)
	return u
}

func detectedEntities(probes []ProbeResult) []DetectedEntity {
	type key struct{ name, kind string }
	idx := map[key]int{}
	out := []DetectedEntity{}
	for _, p := range probes {
		for _, e := range p.Entities {
			name := strings.TrimSpace(e.Name)
			if name == "" {
				continue
			}
			k := key{strings.ToLower(name), strings.ToLower(e.Kind)}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, DetectedEntity{Name: name, Kind: strings.ToLower(e.Kind)})
			}
			if !slices.Contains(out[i].Engines, p.Engine) {
				out[i].Engines = append(out[i].Engines, p.Engine)
			}
		}
	}
	for i := range out {
		sort.Strings(out[i].Engines)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Engines) > len(out[j].Engines) })
	return out
}

// gaps lists, per probe with a site fact, the fact when no engine got it
// at least partly right, and every claim the judge found wrong.
func gaps(probes []ProbeResult) []Gap {
	out := []Gap{}
	var order []string
	byProbe := map[string][]ProbeResult{}
	for _, p := range probes {
		if _, ok := byProbe[p.ID]; !ok {
			order = append(order, p.ID)
		}
		byProbe[p.ID] = append(byProbe[p.ID], p)
	}
	for _, id := range order {
		ps := byProbe[id]
		known, judged := false, []string{}
		for _, p := range ps {
			switch p.Verdict {
			case VerdictCorrect, VerdictPartly:
				known = true
			case VerdictWrong, VerdictUnknown:
				judged = append(judged, p.Engine)
			}
		}
		if !known && len(judged) > 0 {
			out = append(out, Gap{Kind: "unknown_fact", Probe: id, Fact: ps[0].Fact,
				Detail: fmt.Sprintf("No engine answered %q in line with the site", ps[0].Question), Engines: judged})
		}
		for _, p := range ps {
			if p.Verdict == VerdictWrong {
				detail := analysis.Excerpt(p.Answer, 300)
				if p.Explanation != nil && *p.Explanation != "" {
					detail = *p.Explanation
				}
				out = append(out, Gap{Kind: "contradiction", Probe: id, Fact: p.Fact, Detail: detail, Engines: []string{p.Engine}})
			}
		}
	}
	return out
}
