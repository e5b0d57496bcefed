package visibility

import (
	"fmt"
	"sort"
)

// The per-brand figures docs/METRICS.md's "Tracking" part adds to every
// report: average position and sentiment per brand and per engine, the
// sources table, source visibility and source gaps, and the change of
// every score since the previous run. Like the rest of the report they are
// pure functions of the stored answers (and the sentiment stored with
// them).

// BrandFigures is one tracked brand in report.geo.brands: the mention
// scores plus the tracking figures.
type BrandFigures struct {
	BrandScore
	// AvgPosition is the mean of pos(a,b) over the answers mentioning b;
	// null when none.
	AvgPosition *float64 `json:"avgPosition,omitempty"`
	// Sentiment is the mean sentiment score over the answers mentioning b
	// that were judged; null when none.
	Sentiment *float64 `json:"sentiment,omitempty"`
	// Engines holds the same figures over each engine's answers.
	Engines map[string]BrandEngineFigures `json:"engines,omitempty"`
}

// BrandEngineFigures are a brand's figures over one engine's answers.
type BrandEngineFigures struct {
	Visibility   float64  `json:"visibility"`
	MentionRate  float64  `json:"mentionRate"`
	Mentions     int      `json:"mentions"`
	ShareOfVoice float64  `json:"shareOfVoice"`
	AvgPosition  *float64 `json:"avgPosition"`
	Sentiment    *float64 `json:"sentiment"`
}

// mean1 is the mean rounded to one decimal, nil for no values.
func mean1(sum float64, n int) *float64 {
	if n == 0 {
		return nil
	}
	v := round1(sum / float64(n))
	return &v
}

// brandFigures computes every brand's figures, overall and per engine,
// from the answers, their mentions (ScoreMentions' per-answer list) and
// the stored sentiment (per answer: brand slug → judged sentiment).
func brandFigures(brands []Brand, engines []string, answers []Answer, mentions [][]Mention, sentiments []map[string]Sentiment) []BrandFigures {
	type acc struct {
		answered                   int
		weight                     float64
		mentions, pos              int
		sentimentSum               float64
		sentimentN                 int
		totalMentionsOfEngineShare int
	}
	overall := make([]acc, len(brands))
	per := map[string][]acc{}
	engineTotal := map[string]int{}
	answeredBy := map[string]int{}
	for _, e := range engines {
		per[e] = make([]acc, len(brands))
	}
	for i, a := range answers {
		if a.Missing() {
			continue
		}
		if per[a.Engine] == nil {
			per[a.Engine] = make([]acc, len(brands))
		}
		answeredBy[a.Engine]++
		var ms []Mention
		if i < len(mentions) {
			ms = mentions[i]
		}
		for _, m := range ms {
			bi := brandIndex(brands, m.Brand)
			for _, x := range []*acc{&overall[bi], &per[a.Engine][bi]} {
				x.weight += m.Weight
				x.mentions++
				x.pos += m.Position
			}
			engineTotal[a.Engine]++
			if i < len(sentiments) {
				if s, ok := sentiments[i][m.Brand]; ok {
					for _, x := range []*acc{&overall[bi], &per[a.Engine][bi]} {
						x.sentimentSum += float64(s.Score)
						x.sentimentN++
					}
				}
			}
		}
	}
	out := make([]BrandFigures, len(brands))
	for bi := range brands {
		f := BrandFigures{
			AvgPosition: mean1(float64(overall[bi].pos), overall[bi].mentions),
			Sentiment:   mean1(overall[bi].sentimentSum, overall[bi].sentimentN),
			Engines:     map[string]BrandEngineFigures{},
		}
		for e, list := range per {
			x := list[bi]
			ef := BrandEngineFigures{Mentions: x.mentions, AvgPosition: mean1(float64(x.pos), x.mentions), Sentiment: mean1(x.sentimentSum, x.sentimentN)}
			if n := answeredBy[e]; n > 0 {
				ef.Visibility = round1(100 * x.weight / float64(n))
				ef.MentionRate = round1(100 * float64(x.mentions) / float64(n))
			}
			if t := engineTotal[e]; t > 0 {
				ef.ShareOfVoice = round1(100 * float64(x.mentions) / float64(t))
			}
			f.Engines[e] = ef
		}
		out[bi] = f
	}
	return out
}

// Extend adds the tracking figures to a computed report: per-brand
// average position and sentiment (overall and per engine), the sources
// table, scores.sourceVisibility, the source gaps and a recommendation
// citing them. sentiments holds, per answer (same order as answers), the
// judged sentiment per brand slug; nil entries mean not judged.
func Extend(c *Computed, brands []Brand, engines []string, answers []Answer, sentiments []map[string]Sentiment) {
	mentions := c.Mentions
	if len(mentions) != len(answers) {
		mentions = ScoreMentions(brands, engines, answers).Mentions
	}
	figs := brandFigures(brands, engines, answers, mentions, sentiments)
	for i := range c.Geo.Brands {
		bi := brandIndex(brands, c.Geo.Brands[i].Slug)
		if bi < len(figs) {
			c.Geo.Brands[i].AvgPosition = figs[bi].AvgPosition
			c.Geo.Brands[i].Sentiment = figs[bi].Sentiment
			c.Geo.Brands[i].Engines = figs[bi].Engines
		}
	}
	src := ScoreSources(brands, answers, mentions)
	c.Sources, c.SourceGaps = src.Table, src.Gaps
	c.Scores.SourceVisibility = &SourceVisibilityScore{Score: src.SelfRetrieved, Domain: src.SelfDomain}
	if src.Answered > 0 {
		s := Interpretation(src.SelfRetrieved)
		c.Scores.SourceVisibility.Interpretation = &s
	}
	if rec, ok := gapRecommendation(brands, src.Gaps); ok {
		c.Recommendations = append(c.Recommendations, rec)
		order := map[string]int{"high": 0, "medium": 1, "low": 2}
		sort.SliceStable(c.Recommendations, func(i, j int) bool {
			return order[c.Recommendations[i].Priority] < order[c.Recommendations[j].Priority]
		})
	}
}

// gapRecommendation cites the top source gaps: the sites engines use when
// they name competitors and not the brand.
func gapRecommendation(brands []Brand, gaps []SourceGap) (Recommendation, bool) {
	if len(gaps) == 0 {
		return Recommendation{}, false
	}
	var ev []string
	for _, g := range gaps {
		ev = append(ev, fmt.Sprintf("engines that mention %s cite %s in %d answers where %s is not named; you are not there (prompts: %s)",
			joinNames(g.Competitors), g.Domain, g.Answers, brands[0].Name, joinQuoted(g.Prompts)))
	}
	return Recommendation{ID: "source-gaps", Priority: "medium",
		Title:    fmt.Sprintf("Get onto the sites engines cite for your competitors (%d sites)", len(gaps)),
		Detail:   "When engines name competitors and not you, they cite these sites: reviews, directories, comparisons and articles there are what the engines read.",
		Evidence: ev}, true
}

// ApplyChange sets change = value − the previous run's value on every
// score of c; prev nil (the first run) leaves every change null.
func ApplyChange(c *Computed, prev *Computed) {
	if prev == nil {
		return
	}
	diff := func(cur, old float64) *float64 {
		v := round1(cur - old)
		return &v
	}
	s, p := &c.Scores, prev.Scores
	s.AIVisibility.Change = diff(s.AIVisibility.Score, p.AIVisibility.Score)
	s.EntityUnderstanding.Change = diff(s.EntityUnderstanding.Score, p.EntityUnderstanding.Score)
	s.ShareOfVoice.Change = diff(s.ShareOfVoice.Score, p.ShareOfVoice.Score)
	if s.SourceVisibility != nil && p.SourceVisibility != nil {
		s.SourceVisibility.Change = diff(s.SourceVisibility.Score, p.SourceVisibility.Score)
	}
}
