package scoring

import (
	"sort"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// DiscoveredBrand is a brand the answers name that nobody tracks.
type DiscoveredBrand struct {
	Name string `json:"name"`
	// Answers counts the judged answers naming it; MentionRate is 100 ×
	// their share of the judged answers.
	Answers     int     `json:"answers"`
	MentionRate float64 `json:"mentionRate"`
	// AvgPosition is the mean position of its first mention among all
	// brands the answers name.
	AvgPosition *float64 `json:"avgPosition"`
	// Domain is the registrable domain the judge gave most often.
	Domain  string                           `json:"domain,omitempty"`
	Engines map[string]DiscoveredEngineCount `json:"engines"`
}

// DiscoveredEngineCount is a discovered brand over one engine's judged
// answers.
type DiscoveredEngineCount struct {
	Answers     int     `json:"answers"`
	MentionRate float64 `json:"mentionRate"`
}

// Discovery says how much of a report the discovery judge read.
type Discovery struct {
	// Judged counts the answers whose brands the judge listed, Unjudged
	// the answered ones it did not (no judge model, or it failed).
	Judged   int `json:"judged"`
	Unjudged int `json:"unjudged"`
	// Note says in words why there is no discovery, or only a part.
	Note string `json:"note,omitempty"`
}

// MaxDiscovered caps the discovered brands a report lists.
const MaxDiscovered = 50

// NoJudgeNote and PartialJudgeNote are Discovery.Note's words.
const (
	NoJudgeNote      = "No brand discovery: no judge model listed the brands the answers name (set visibility.judge_model, or use an engine that can judge)."
	PartialJudgeNote = "Brand discovery covers only the judged answers: the judge model did not list the brands of some answers."
)

// discoveryFigures is the report's discovered brands, most frequent
// first, its discovery status, and per tracked brand slug the sum and
// count of positions among all brands (overall and per engine).
type discoveryFigures struct {
	brands  []DiscoveredBrand
	status  Discovery
	amongN  map[string]int
	amongS  map[string]int
	engineN map[string]map[string]int
	engineS map[string]map[string]int
}

func discover(brands []analysis.Brand, engines []string, answers []analysis.Answer) discoveryFigures {
	var dis *analysis.Discoverer
	f := discoveryFigures{amongN: map[string]int{}, amongS: map[string]int{}, engineN: map[string]map[string]int{}, engineS: map[string]map[string]int{}}
	type acc struct {
		name    string
		names   map[string]int
		domains map[string]int
		n, pos  int
		engines map[string]int
		order   int
	}
	byKey := map[string]*acc{}
	judgedBy := map[string]int{}
	for _, a := range answers {
		if a.Missing() {
			continue
		}
		if dis == nil && a.DiscoveryJudged {
			// Built at the first judged answer: a report without a judge
			// costs nothing more.
			dis = analysis.NewDiscoverer(analysis.InferDomains(brands, answers))
		}
		if dis == nil {
			f.status.Unjudged++
			continue
		}
		d := dis.Discover(a)
		if !d.Judged {
			f.status.Unjudged++
			continue
		}
		f.status.Judged++
		judgedBy[a.Engine]++
		for slug, pos := range d.AmongAll {
			f.amongN[slug]++
			f.amongS[slug] += pos
			if f.engineN[a.Engine] == nil {
				f.engineN[a.Engine], f.engineS[a.Engine] = map[string]int{}, map[string]int{}
			}
			f.engineN[a.Engine][slug]++
			f.engineS[a.Engine][slug] += pos
		}
		for _, m := range d.Discovered {
			x := byKey[m.Key]
			if x == nil {
				x = &acc{names: map[string]int{}, domains: map[string]int{}, engines: map[string]int{}, order: len(byKey)}
				byKey[m.Key] = x
			}
			x.n++
			x.pos += m.Position
			x.names[m.Name]++
			if m.Domain != "" {
				x.domains[m.Domain]++
			}
			x.engines[a.Engine]++
		}
	}
	switch {
	case f.status.Judged == 0 && f.status.Unjudged > 0:
		f.status.Note = NoJudgeNote
	case f.status.Unjudged > 0:
		f.status.Note = PartialJudgeNote
	}
	accs := make([]*acc, 0, len(byKey))
	for _, x := range byKey {
		accs = append(accs, x)
	}
	sort.Slice(accs, func(i, j int) bool {
		if accs[i].n != accs[j].n {
			return accs[i].n > accs[j].n
		}
		return accs[i].order < accs[j].order
	})
	if len(accs) > MaxDiscovered {
		accs = accs[:MaxDiscovered]
	}
	f.brands = []DiscoveredBrand{}
	for _, x := range accs {
		b := DiscoveredBrand{Name: mostFrequent(x.names), Answers: x.n, AvgPosition: Mean1(float64(x.pos), x.n),
			Domain: mostFrequent(x.domains), Engines: map[string]DiscoveredEngineCount{}}
		b.MentionRate = Round1(100 * float64(x.n) / float64(f.status.Judged))
		for _, e := range engines {
			if judgedBy[e] > 0 {
				b.Engines[e] = DiscoveredEngineCount{Answers: x.engines[e], MentionRate: Round1(100 * float64(x.engines[e]) / float64(judgedBy[e]))}
			}
		}
		f.brands = append(f.brands, b)
	}
	return f
}

// mostFrequent is the key with the highest count, the smallest on ties
// (so the result does not depend on map order); "" for none.
func mostFrequent(m map[string]int) string {
	best, n := "", 0
	for k, c := range m {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best
}

// applyDiscovery sets the report's discovered brands and discovery
// status, and each tracked brand's positionAmongAll beside avgPosition.
func applyDiscovery(c *Computed, brands []analysis.Brand, engines []string, answers []analysis.Answer) {
	f := discover(brands, engines, answers)
	c.Geo.DiscoveredBrands, c.Geo.Discovery = f.brands, f.status
	for i := range c.Geo.Brands {
		b := &c.Geo.Brands[i]
		b.PositionAmongAll = Mean1(float64(f.amongS[b.Slug]), f.amongN[b.Slug])
		for e, ef := range b.Engines {
			ef.PositionAmongAll = Mean1(float64(f.engineS[e][b.Slug]), f.engineN[e][b.Slug])
			b.Engines[e] = ef
		}
	}
}
