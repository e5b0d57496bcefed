package scoring

import (
	"fmt"
	"sort"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// The per-brand figures docs/METRICS.md defines for every
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
	// Intervals says how sure each figure is (by its JSON name), Changes
	// each figure's change since the previous run (spread.go).
	Intervals map[string]FigureInterval `json:"intervals,omitempty"`
	Changes   map[string]Change         `json:"changes,omitempty"`
}

// BrandEngineFigures are a brand's figures over one engine's answers.
type BrandEngineFigures struct {
	Visibility   float64  `json:"visibility"`
	MentionRate  float64  `json:"mentionRate"`
	Mentions     int      `json:"mentions"`
	ShareOfVoice float64  `json:"shareOfVoice"`
	AvgPosition  *float64 `json:"avgPosition"`
	Sentiment    *float64 `json:"sentiment"`
	// Intervals and Changes as BrandFigures' over this engine's answers.
	Intervals map[string]FigureInterval `json:"intervals,omitempty"`
	Changes   map[string]Change         `json:"changes,omitempty"`
}

// Mean1 is the mean rounded to one decimal, nil for no values.
func Mean1(sum float64, n int) *float64 {
	if n == 0 {
		return nil
	}
	v := Round1(sum / float64(n))
	return &v
}

// brandFigures computes every brand's figures, overall and per engine,
// from the answers, their mentions (ScoreMentions' per-answer list) and
// the stored sentiment (per answer: brand slug → judged sentiment).
func brandFigures(brands []analysis.Brand, engines []string, answers []analysis.Answer, mentions [][]analysis.Mention, sentiments []map[string]analysis.Sentiment) []BrandFigures {
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
		var ms []analysis.Mention
		if i < len(mentions) {
			ms = mentions[i]
		}
		for _, m := range ms {
			bi := analysis.BrandIndex(brands, m.Brand)
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
			AvgPosition: Mean1(float64(overall[bi].pos), overall[bi].mentions),
			Sentiment:   Mean1(overall[bi].sentimentSum, overall[bi].sentimentN),
			Engines:     map[string]BrandEngineFigures{},
		}
		for e, list := range per {
			x := list[bi]
			ef := BrandEngineFigures{Mentions: x.mentions, AvgPosition: Mean1(float64(x.pos), x.mentions), Sentiment: Mean1(x.sentimentSum, x.sentimentN)}
			if n := answeredBy[e]; n > 0 {
				ef.Visibility = Round1(100 * x.weight / float64(n))
				ef.MentionRate = Round1(100 * float64(x.mentions) / float64(n))
			}
			if t := engineTotal[e]; t > 0 {
				ef.ShareOfVoice = Round1(100 * float64(x.mentions) / float64(t))
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
func Extend(c *Computed, brands []analysis.Brand, engines []string, answers []analysis.Answer, sentiments []map[string]analysis.Sentiment) {
	mentions := c.Mentions
	if len(mentions) != len(answers) {
		mentions = ScoreMentions(brands, engines, answers).Mentions
	}
	figs := brandFigures(brands, engines, answers, mentions, sentiments)
	for i := range c.Geo.Brands {
		bi := analysis.BrandIndex(brands, c.Geo.Brands[i].Slug)
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
func gapRecommendation(brands []analysis.Brand, gaps []SourceGap) (Recommendation, bool) {
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
// score of c and every figure of its brands (overall and per engine),
// each with the interval and significance ch holds for it (a change ch
// does not cover has no interval and is not significant); prev nil (the
// first run) leaves every change null.
func ApplyChange(c *Computed, prev *Computed, ch RunChanges) {
	if prev == nil {
		return
	}
	self := ""
	for _, b := range c.Geo.Brands {
		if b.Self {
			self = b.Slug
		}
	}
	s, p := &c.Scores, prev.Scores
	s.AIVisibility.Change = changeOf(s.AIVisibility.Score, p.AIVisibility.Score, ch, "", self, FigVisibility)
	s.EntityUnderstanding.Change = changeOf(s.EntityUnderstanding.Score, p.EntityUnderstanding.Score, nil, "", "", "")
	s.EntityUnderstanding.Change.Note = noteUnderstanding
	s.ShareOfVoice.Change = changeOf(s.ShareOfVoice.Score, p.ShareOfVoice.Score, ch, "", self, FigShareOfVoice)
	if s.SourceVisibility != nil && p.SourceVisibility != nil {
		s.SourceVisibility.Change = changeOf(s.SourceVisibility.Score, p.SourceVisibility.Score, ch, "", "", "sourceVisibility")
	}
	old := map[string]BrandFigures{}
	for _, b := range prev.Geo.Brands {
		old[b.Slug] = b
	}
	for i := range c.Geo.Brands {
		b := &c.Geo.Brands[i]
		o, ok := old[b.Slug]
		if !ok {
			continue
		}
		b.Changes = figureChanges(figureValues(b.Visibility, b.MentionRate, b.ShareOfVoice, b.AvgPosition, b.Sentiment),
			figureValues(o.Visibility, o.MentionRate, o.ShareOfVoice, o.AvgPosition, o.Sentiment), ch, "", b.Slug)
		for e, f := range b.Engines {
			of, ok := o.Engines[e]
			if !ok {
				continue
			}
			f.Changes = figureChanges(figureValues(f.Visibility, f.MentionRate, f.ShareOfVoice, f.AvgPosition, f.Sentiment),
				figureValues(of.Visibility, of.MentionRate, of.ShareOfVoice, of.AvgPosition, of.Sentiment), ch, e, b.Slug)
			b.Engines[e] = f
		}
	}
}

// figureValues are a brand's figures by name (nil: no value).
func figureValues(vis, rate, sov float64, pos, sent *float64) map[string]*float64 {
	return map[string]*float64{FigVisibility: &vis, FigMentionRate: &rate, FigShareOfVoice: &sov, FigAvgPosition: pos, FigSentiment: sent}
}

func figureChanges(cur, old map[string]*float64, ch RunChanges, scope, slug string) map[string]Change {
	out := map[string]Change{}
	for _, f := range brandFigureNames {
		if cur[f] == nil || old[f] == nil {
			continue
		}
		out[f] = *changeOf(*cur[f], *old[f], ch, scope, slug, f)
	}
	return out
}

// changeOf is cur − old with the interval ch holds for the figure.
func changeOf(cur, old float64, ch RunChanges, scope, slug, figure string) *Change {
	c, ok := ch[scope][slug][figure]
	if !ok {
		c = Change{Note: noteNoPaired}
	}
	c.Value = Round1(cur - old)
	c.Significant = c.Interval != nil && c.Interval.Excludes0()
	return &c
}

// Notes of changes without an interval.
const (
	noteNoPaired       = "no interval: the previous run's answers could not be paired with this run's"
	noteUnderstanding  = "no interval: entity understanding is judged from fixed probes and the site's checks, not sampled over prompts, so no change of it is called significant"
	noteUnderstandingI = "no interval: entity understanding is judged from fixed probes and the site's checks, not sampled over prompts"
)

// ApplyIntervals puts on every score of c and every figure of its brands
// (overall and per engine) its answers, prompts and interval.
func ApplyIntervals(c *Computed, iv RunIntervals) {
	self := ""
	for _, b := range c.Geo.Brands {
		if b.Self {
			self = b.Slug
		}
	}
	spread := func(f FigureInterval) *Spread {
		return &Spread{N: f.N, Prompts: f.Prompts, Interval: f.Interval, IntervalNote: f.Note}
	}
	s := &c.Scores
	s.AIVisibility.Spread = spread(iv[""][self][FigVisibility])
	s.AIVisibility.ProviderIntervals = map[string]FigureInterval{}
	for e := range s.AIVisibility.Providers {
		if f, ok := iv[e][self][FigVisibility]; ok {
			s.AIVisibility.ProviderIntervals[e] = f
		}
	}
	s.ShareOfVoice.Spread = spread(iv[""][self][FigShareOfVoice])
	if s.SourceVisibility != nil {
		s.SourceVisibility.Spread = spread(iv[""][""]["sourceVisibility"])
	}
	probes := 0
	for _, p := range c.Geo.EntityUnderstanding.Probes {
		if p.Verdict != VerdictMissing {
			probes++
		}
	}
	s.EntityUnderstanding.Spread = &Spread{N: probes, IntervalNote: noteUnderstandingI}
	for i := range c.Geo.Brands {
		b := &c.Geo.Brands[i]
		b.Intervals = iv[""][b.Slug]
		for e, f := range b.Engines {
			f.Intervals = iv[e][b.Slug]
			b.Engines[e] = f
		}
	}
}
