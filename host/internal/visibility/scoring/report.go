package scoring

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/interval"
)

// Scores is SPEC's scores object.
type Scores struct {
	AIVisibility        AIVisibilityScore        `json:"aiVisibility"`
	EntityUnderstanding EntityUnderstandingScore `json:"entityUnderstanding"`
	ShareOfVoice        ShareOfVoiceScore        `json:"shareOfVoice"`
	// SourceVisibility is retrieved(self's domain) (figures.go).
	SourceVisibility *SourceVisibilityScore `json:"sourceVisibility,omitempty"`
}

// AIVisibilityScore is scores.aiVisibility.
type AIVisibilityScore struct {
	Score          float64             `json:"score"`
	Interpretation *string             `json:"interpretation"`
	Providers      map[string]*float64 `json:"providers"`
	// Spread is how sure the score is (spread.go); ProviderIntervals the
	// same per engine.
	*Spread
	ProviderIntervals map[string]FigureInterval `json:"providerIntervals,omitempty"`
	// Change is score − the previous run's (tracker runs and refreshes),
	// with its interval and whether it is significant; null for the first
	// run and for other reports.
	Change *Change `json:"change,omitempty"`
}

// Spread is a score's answers, prompts and 95% interval (null with a
// note when there is none).
type Spread struct {
	N            int                `json:"n"`
	Prompts      int                `json:"prompts"`
	Interval     *interval.Interval `json:"interval"`
	IntervalNote string             `json:"intervalNote,omitempty"`
}

// EntityUnderstandingScore is scores.entityUnderstanding.
type EntityUnderstandingScore struct {
	Score               float64             `json:"score"`
	Interpretation      string              `json:"interpretation"`
	KnowledgeScore      float64             `json:"knowledgeScore"`
	ContentClarityScore float64             `json:"contentClarityScore"`
	Providers           map[string]*float64 `json:"providers"`
	*Spread
	Change *Change `json:"change,omitempty"`
}

// ShareOfVoiceScore is scores.shareOfVoice.
type ShareOfVoiceScore struct {
	Score          float64 `json:"score"`
	Interpretation string  `json:"interpretation"`
	TotalMentions  int     `json:"totalMentions"`
	SelfMentions   int     `json:"selfMentions"`
	*Spread
	Change *Change `json:"change,omitempty"`
}

// Geo is report.geo.
type Geo struct {
	EntityUnderstanding Understanding           `json:"entityUnderstanding"`
	Brands              []BrandFigures          `json:"brands"`
	Engines             []EngineStatus          `json:"engines"`
	MentionJudging      analysis.MentionJudging `json:"mentionJudging"`
	// DiscoveredBrands are the brands the answers name that are not
	// tracked, most frequent first; Discovery says how many answers the
	// judge read for them (discovery.go).
	DiscoveredBrands []DiscoveredBrand `json:"discoveredBrands"`
	Discovery        Discovery         `json:"discovery"`
}

// Recommendation is one piece of advice and the evidence behind it.
type Recommendation struct {
	ID       string   `json:"id"`
	Priority string   `json:"priority"`
	Title    string   `json:"title"`
	Detail   string   `json:"detail"`
	Evidence []string `json:"evidence"`
}

// Computed is everything a report shows that is computed from its stored
// answers, probes and site checks.
type Computed struct {
	// ScoringVersion is the version of the mention rules the numbers were
	// computed with (absent in reports before version 1).
	ScoringVersion  int              `json:"scoringVersion"`
	Scores          Scores           `json:"scores"`
	Geo             Geo              `json:"geo"`
	Recommendations []Recommendation `json:"recommendations"`
	// Sources is the sources table and SourceGaps the sites to get onto
	// (sources.go).
	Sources    []SourceRow `json:"sources"`
	SourceGaps []SourceGap `json:"sourceGaps"`
	// Mentions are per answer (evidence).
	Mentions [][]analysis.Mention `json:"-"`
}

// Compute scores a report: a pure function of its brands, engines, answers,
// judged probes and clarity checks.
func Compute(brands []analysis.Brand, engines []string, answers []analysis.Answer, probes []ProbeResult, checks []ClarityCheck) Computed {
	ms := ScoreMentions(brands, engines, answers)
	u := ScoreUnderstanding(engines, probes, checks)
	c := Computed{
		ScoringVersion: analysis.ScoringVersion,
		Scores: Scores{
			AIVisibility: AIVisibilityScore{Score: ms.Visibility, Interpretation: ms.Interpretation, Providers: ms.Providers},
			EntityUnderstanding: EntityUnderstandingScore{Score: u.Score, Interpretation: Interpretation(u.Score),
				KnowledgeScore: u.KnowledgeScore, ContentClarityScore: u.ContentClarityScore, Providers: u.Providers},
			ShareOfVoice: ShareOfVoiceScore{Score: ms.ShareOfVoice, Interpretation: Interpretation(ms.ShareOfVoice),
				TotalMentions: ms.TotalMentions, SelfMentions: ms.SelfMentions},
		},
		Geo:      Geo{EntityUnderstanding: u, Brands: figuresOf(ms.Brands), Engines: ms.Engines, MentionJudging: ms.Judging},
		Mentions: ms.Mentions,
	}
	c.Recommendations = recommend(brands, answers, ms, u)
	return c
}

func figuresOf(scores []BrandScore) []BrandFigures {
	out := make([]BrandFigures, len(scores))
	for i, b := range scores {
		out[i] = BrandFigures{BrandScore: b}
	}
	return out
}

// Version is the scoring version of c: 1 for results stored before
// versions were recorded.
func (c Computed) Version() int { return max(1, c.ScoringVersion) }

// HistoryPoint is docs/METRICS.md's history point of a completed report.
func HistoryPoint(createdAt time.Time, c Computed) map[string]any {
	ts := createdAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	p := map[string]any{
		"timestamp": ts, "time": ts,
		"overall":       c.Scores.AIVisibility.Score,
		"shareOfVoice":  c.Scores.ShareOfVoice.Score,
		"understanding": c.Scores.EntityUnderstanding.Score,
		// Each point says which mention rules computed it.
		"scoringVersion": c.Version(),
	}
	for _, b := range c.Geo.Brands {
		if b.Self {
			// The same measure as comp_<slug>, so a chart of self
			// against competitors compares like with like.
			p["self"] = b.Visibility
			continue
		}
		p["comp_"+b.Slug] = b.Visibility
		p["sov_comp_"+b.Slug] = b.ShareOfVoice
	}
	return p
}

// recommend derives advice from the evidence only: prompts where
// competitors appear and the brand does not, citations of competitors,
// failed clarity checks and probe gaps.
func recommend(brands []analysis.Brand, answers []analysis.Answer, ms MentionScores, u Understanding) []Recommendation {
	out := []Recommendation{}
	var missed, uncited []string
	for i, a := range answers {
		if a.Missing() {
			continue
		}
		self, comps := false, []string{}
		for _, m := range ms.Mentions[i] {
			if m.Self {
				self = true
			} else {
				comps = append(comps, m.Name)
			}
		}
		if !self && len(comps) > 0 {
			missed = append(missed, fmt.Sprintf("%q on %s mentions %s but not %s", a.Prompt, a.Engine, strings.Join(comps, ", "), brands[0].Name))
		}
		selfCited, compCited := false, []string{}
		for _, f := range ms.Facts[i] {
			if !f.Cited {
				continue
			}
			b := brands[f.Brand]
			if b.Self {
				selfCited = true
			} else {
				compCited = append(compCited, b.Name)
			}
		}
		if !selfCited && len(compCited) > 0 {
			uncited = append(uncited, fmt.Sprintf("%q on %s cites %s", a.Prompt, a.Engine, strings.Join(compCited, ", ")))
		}
	}
	if len(missed) > 0 {
		out = append(out, Recommendation{ID: "competitor-prompts", Priority: "high",
			Title:    fmt.Sprintf("Appear where competitors do (%d answers)", len(missed)),
			Detail:   "Engines name competitors but not you for these buyer questions: publish pages that answer them directly (comparisons, use cases, pricing) and get listed in the sources engines cite.",
			Evidence: missed})
	}
	if len(uncited) > 0 {
		out = append(out, Recommendation{ID: "competitor-citations", Priority: "medium",
			Title:    fmt.Sprintf("Earn citations (%d answers cite competitors, not you)", len(uncited)),
			Detail:   "Engines link to competitors' pages as sources for these questions; pages of yours that answer them with facts, data and clear structure can be cited instead.",
			Evidence: uncited})
	}
	clarity := map[string]struct{ priority, title, detail string }{
		"https":               {"high", "Serve the site over https", "Engines and their crawlers prefer, and some require, https."},
		"one_h1":              {"low", "Use exactly one H1 on the home page", "One H1 that says what the brand is gives engines a clear headline to quote."},
		"meta_description":    {"medium", "Add a meta description", "A one-sentence description of what you do and for whom is what engines and search snippets quote first."},
		"organization_schema": {"medium", "Add schema.org Organization JSON-LD", "Name, description, address and sameAs links in JSON-LD tell engines unambiguously who you are."},
		"about_page":          {"medium", "Link an about page from the home page", "An about page states who you are, where you are based and whom you serve: the facts engines get wrong most."},
		"sitemap":             {"low", "Publish sitemap.xml", "A sitemap lets crawlers find every page, including new ones."},
		"ai_crawlers":         {"high", "Let AI crawlers read the site", "robots.txt blocks crawlers whose engines then cannot learn from or cite the site."},
		"llms_txt":            {"low", "Publish /llms.txt", "A short markdown summary for language models, listing the pages that matter."},
	}
	for _, c := range u.ClarityChecks {
		if c.Passed {
			continue
		}
		r := clarity[c.ID]
		out = append(out, Recommendation{ID: "clarity-" + c.ID, Priority: r.priority, Title: r.title, Detail: r.detail,
			Evidence: []string{fmt.Sprintf("check %q failed: %s", c.Title, c.Detail)}})
	}
	byProbe := map[string][]string{}
	var probeOrder []string
	for _, g := range u.Gaps {
		if _, ok := byProbe[g.Probe]; !ok {
			probeOrder = append(probeOrder, g.Probe)
		}
		ev := fmt.Sprintf("%s (%s): %s; the site says: %s", g.Kind, strings.Join(g.Engines, ", "), g.Detail, g.Fact)
		byProbe[g.Probe] = append(byProbe[g.Probe], ev)
	}
	for _, id := range probeOrder {
		out = append(out, Recommendation{ID: "probe-" + id, Priority: "medium",
			Title:    "Make clear " + probeTopic(id),
			Detail:   "Engines do not know or misstate this; state it plainly on the home and about pages and in schema.org JSON-LD.",
			Evidence: byProbe[id]})
	}
	order := map[string]int{"high": 0, "medium": 1, "low": 2}
	sort.SliceStable(out, func(i, j int) bool { return order[out[i].Priority] < order[out[j].Priority] })
	return out
}

func probeTopic(id string) string {
	switch id {
	case "what":
		return "what the brand is"
	case "offers":
		return "what the brand offers"
	case "audience":
		return "whom the brand serves"
	case "location":
		return "where the brand is based"
	case "competitors":
		return "which brands you compete with"
	}
	return id
}
