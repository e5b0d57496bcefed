package scoring

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/interval"
)

// How sure each figure is (docs/METRICS.md, "Samples, intervals and real
// change"): every 0–100 score, average position and sentiment of a run,
// overall and per engine, carries the answers and prompts it is computed
// over and a 95% interval from a bootstrap over prompts (package
// interval); every change since the previous run carries the interval of
// a paired bootstrap over the prompts both runs answered, and is
// significant only when that interval excludes 0.

// FigureInterval says how sure a figure is.
type FigureInterval struct {
	// N is how many answers the figure is computed over (for the average
	// position the answers mentioning the brand, for sentiment those
	// judged).
	N int `json:"n"`
	// Prompts is how many prompts those answers cover.
	Prompts int `json:"prompts"`
	// Interval is null when there is none; Note says why.
	Interval *interval.Interval `json:"interval"`
	Note     string             `json:"note,omitempty"`
}

// Change is a figure's change since the previous run.
type Change struct {
	// Value is this run's figure − the previous run's.
	Value float64 `json:"value"`
	// Significant is true only when Interval excludes 0.
	Significant bool `json:"significant"`
	// Interval is the 95% interval of the change over the prompts both
	// runs answered (Prompts of them); null with a Note when there is none.
	Interval *interval.Interval `json:"interval"`
	Prompts  int                `json:"prompts"`
	Note     string             `json:"note,omitempty"`
}

// The figures of a brand that carry intervals, by their JSON names.
const (
	FigVisibility   = "visibility"
	FigMentionRate  = "mentionRate"
	FigShareOfVoice = "shareOfVoice"
	FigAvgPosition  = "avgPosition"
	FigSentiment    = "sentiment"
)

// brandFigureNames are the interval-carrying figures of a brand, in order.
var brandFigureNames = []string{FigVisibility, FigMentionRate, FigShareOfVoice, FigAvgPosition, FigSentiment}

// brandSums are one brand's sums over one prompt's answers in one scope.
type brandSums struct{ weight, mentions, pos, sent, sentN float64 }

// promptCell is one prompt's answers in one scope (all answers, or one
// engine's), summed.
type promptCell struct {
	answered, retrieved, total float64
	brands                     []brandSums
}

// PromptTable is a run's answers summed per prompt, per scope (all
// answers first, then each engine) and per brand: every figure of the
// run is a ratio of two of its columns summed over prompts, which is what
// the bootstrap resamples.
type PromptTable struct {
	Prompts []string
	// Scopes are "" (every answer) then the engines.
	Scopes []string
	// Brands are the brands' slugs, in the report's order.
	Brands []string
	// cells[scope][prompt]
	cells [][]promptCell
}

// BuildPromptTable sums the run's answers per prompt: mentions as
// ScoreMentions found them, sentiment as stored per answer (nil: not
// judged), samples of a prompt counted together.
func BuildPromptTable(brands []analysis.Brand, engines []string, answers []analysis.Answer, mentions [][]analysis.Mention, sentiments []map[string]analysis.Sentiment) PromptTable {
	t := PromptTable{Scopes: append([]string{""}, engines...)}
	for _, b := range brands {
		t.Brands = append(t.Brands, b.Slug)
	}
	scope := map[string]int{"": 0}
	for i, e := range engines {
		scope[e] = i + 1
	}
	selfDomain := ""
	if len(brands) > 0 && len(brands[0].Domains) > 0 {
		selfDomain = site.RegistrableDomain(brands[0].Domains[0])
	}
	prompt := map[string]int{}
	for _, a := range answers {
		if _, ok := prompt[a.Prompt]; !ok {
			prompt[a.Prompt] = len(t.Prompts)
			t.Prompts = append(t.Prompts, a.Prompt)
		}
		if _, ok := scope[a.Engine]; !ok {
			scope[a.Engine] = len(t.Scopes)
			t.Scopes = append(t.Scopes, a.Engine)
		}
	}
	t.cells = make([][]promptCell, len(t.Scopes))
	for s := range t.cells {
		t.cells[s] = make([]promptCell, len(t.Prompts))
		for p := range t.cells[s] {
			t.cells[s][p].brands = make([]brandSums, len(brands))
		}
	}
	slot := map[string]int{}
	for i, b := range brands {
		slot[b.Slug] = i
	}
	for i, a := range answers {
		if a.Missing() {
			continue
		}
		p := prompt[a.Prompt]
		retrieved := 0.0
		if selfDomain != "" && answerDomains(a)[selfDomain] > 0 {
			retrieved = 1
		}
		for _, s := range []int{0, scope[a.Engine]} {
			c := &t.cells[s][p]
			c.answered++
			c.retrieved += retrieved
			if i >= len(mentions) {
				continue
			}
			for _, m := range mentions[i] {
				bi, ok := slot[m.Brand]
				if !ok {
					continue
				}
				bs := &c.brands[bi]
				bs.weight += m.Weight
				bs.mentions++
				bs.pos += float64(m.Position)
				c.total++
				if i < len(sentiments) {
					if sv, ok := sentiments[i][m.Brand]; ok {
						bs.sent += float64(sv.Score)
						bs.sentN++
					}
				}
			}
		}
	}
	return t
}

// answeredPrompts are the prompts of a scope with at least one answer.
func (t PromptTable) answeredPrompts(s int) []int {
	var out []int
	for p, c := range t.cells[s] {
		if c.answered > 0 {
			out = append(out, p)
		}
	}
	return out
}

// Columns of a scope's table, per prompt: the answers, those retrieving
// the brand's own domain, the mentions of every brand, then per brand
// its position weights, mentions, positions, sentiment scores and judged
// answers.
const (
	colAnswered = iota
	colRetrieved
	colTotal
	colBrands // first brand column
)

const (
	colWeight = iota
	colMentions
	colPos
	colSent
	colSentN
	brandCols
)

// figureSpec is one figure of a scope: a brand's (or the scope's source
// visibility, brand −1) as a ratio of two columns.
type figureSpec struct {
	brand  int
	figure string
	fig    interval.Figure
}

// specs are every figure of a table's scope: each brand's, then source
// visibility.
func (t PromptTable) specs() []figureSpec {
	var out []figureSpec
	for b := range t.Brands {
		c := colBrands + brandCols*b
		out = append(out,
			figureSpec{b, FigVisibility, interval.Figure{Num: c + colWeight, Den: colAnswered, Scale: 100}},
			figureSpec{b, FigMentionRate, interval.Figure{Num: c + colMentions, Den: colAnswered, Scale: 100}},
			figureSpec{b, FigShareOfVoice, interval.Figure{Num: c + colMentions, Den: colTotal, Scale: 100}},
			figureSpec{b, FigAvgPosition, interval.Figure{Num: c + colPos, Den: c + colMentions, Scale: 1}},
			figureSpec{b, FigSentiment, interval.Figure{Num: c + colSent, Den: c + colSentN, Scale: 1}})
	}
	return append(out, figureSpec{-1, "sourceVisibility", interval.Figure{Num: colRetrieved, Den: colAnswered, Scale: 100}})
}

// columns are a scope's columns over the given prompts, brands in the
// order of slugs (a brand the table does not have: zeros).
func (t PromptTable) columns(s int, prompts []int, slugs []string) [][]float64 {
	slot := map[string]int{}
	for i, b := range t.Brands {
		slot[b] = i
	}
	cols := make([][]float64, colBrands+brandCols*len(slugs))
	for c := range cols {
		cols[c] = make([]float64, len(prompts))
	}
	for i, p := range prompts {
		c := t.cells[s][p]
		cols[colAnswered][i], cols[colRetrieved][i], cols[colTotal][i] = c.answered, c.retrieved, c.total
		for j, slug := range slugs {
			bi, ok := slot[slug]
			if !ok {
				continue
			}
			b, base := c.brands[bi], colBrands+brandCols*j
			cols[base+colWeight][i], cols[base+colMentions][i], cols[base+colPos][i] = b.weight, b.mentions, b.pos
			cols[base+colSent][i], cols[base+colSentN][i] = b.sent, b.sentN
		}
	}
	return cols
}

// answersOf is how many answers a figure is computed over.
func answersOf(cols [][]float64, f figureSpec) int {
	col := colAnswered
	if f.figure == FigAvgPosition || f.figure == FigSentiment {
		col = f.fig.Den
	}
	n := 0.0
	for _, v := range cols[col] {
		n += v
	}
	return int(n)
}

// RunIntervals are every figure's interval in a run: scope ("" or an
// engine) → brand slug ("" for source visibility) → figure → interval.
type RunIntervals map[string]map[string]map[string]FigureInterval

// Intervals bootstraps every figure of the run over its prompts, seeded by
// the run's id; the scopes are resampled in parallel.
func (t PromptTable) Intervals(runID string) RunIntervals {
	seed := interval.Seed(runID)
	specs := t.specs()
	per := make([]map[string]map[string]FigureInterval, len(t.Scopes))
	parallel(len(t.Scopes), func(s int) {
		prompts := t.answeredPrompts(s)
		cols := t.columns(s, prompts, t.Brands)
		figs := make([]interval.Figure, len(specs))
		for i, f := range specs {
			figs[i] = f.fig
		}
		res := interval.BootstrapColumns(seed, len(prompts), cols, figs)
		m := map[string]map[string]FigureInterval{}
		for i, f := range specs {
			slug := t.slugOf(f)
			if m[slug] == nil {
				m[slug] = map[string]FigureInterval{}
			}
			m[slug][f.figure] = FigureInterval{N: answersOf(cols, f), Prompts: len(prompts), Interval: outward(res[i].Interval), Note: res[i].Note}
		}
		per[s] = m
	})
	out := RunIntervals{}
	for s, scope := range t.Scopes {
		out[scope] = per[s]
	}
	return out
}

func (t PromptTable) slugOf(f figureSpec) string {
	if f.brand < 0 {
		return ""
	}
	return t.Brands[f.brand]
}

// parallel runs f(0..n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// RunChanges are every figure's change interval against the previous
// run, in RunIntervals' shape (Value is set by ApplyChange, from the
// figures as shown).
type RunChanges map[string]map[string]map[string]Change

// ChangesSince bootstraps, pairing the prompts both runs answered in each
// scope (matched by text), every figure's change from prev to t, seeded by
// this run's id. A brand or scope prev does not have gets no change.
func (t PromptTable) ChangesSince(prev PromptTable, runID string) RunChanges {
	seed := interval.Seed(runID + "/change")
	prevPrompt := map[string]int{}
	for i, p := range prev.Prompts {
		prevPrompt[p] = i
	}
	prevScope, prevBrand := map[string]int{}, map[string]bool{}
	for i, s := range prev.Scopes {
		prevScope[s] = i
	}
	for _, b := range prev.Brands {
		prevBrand[b] = true
	}
	specs := t.specs()
	figs := make([]interval.Figure, len(specs))
	for i, f := range specs {
		figs[i] = f.fig
	}
	per := make([]map[string]map[string]Change, len(t.Scopes))
	parallel(len(t.Scopes), func(s int) {
		ps, ok := prevScope[t.Scopes[s]]
		if !ok {
			return
		}
		var cur, old []int
		for p, c := range t.cells[s] {
			q, ok := prevPrompt[t.Prompts[p]]
			if ok && c.answered > 0 && prev.cells[ps][q].answered > 0 {
				cur, old = append(cur, p), append(old, q)
			}
		}
		res := interval.PairedColumns(seed, len(cur), t.columns(s, cur, t.Brands), prev.columns(ps, old, t.Brands), figs)
		m := map[string]map[string]Change{}
		for i, f := range specs {
			slug := t.slugOf(f)
			if slug != "" && !prevBrand[slug] {
				continue
			}
			if m[slug] == nil {
				m[slug] = map[string]Change{}
			}
			iv := outward(res[i].Interval)
			m[slug][f.figure] = Change{Interval: iv, Significant: iv != nil && iv.Excludes0(), Prompts: len(cur), Note: res[i].Note}
		}
		per[s] = m
	})
	out := RunChanges{}
	for s, scope := range t.Scopes {
		if per[s] != nil {
			out[scope] = per[s]
		}
	}
	return out
}

// outward rounds an interval to one decimal, as figures are shown,
// widening it (low down, high up) so that rounding never narrows it: a
// change shown as [0.0, 3.2] is not significant.
func outward(iv *interval.Interval) *interval.Interval {
	if iv == nil {
		return nil
	}
	const eps = 1e-9 // 12.3 stored as 12.299999… stays 12.3
	return &interval.Interval{Low: math.Floor(iv.Low*10+eps) / 10, High: math.Ceil(iv.High*10-eps) / 10}
}

// Says is the change in words, as the agent and the recommendations say
// it: a change whose interval does not exclude 0 is "no significant
// change", whatever its value.
func (c Change) Says() string {
	if !c.Significant || c.Interval == nil {
		s := fmt.Sprintf("no significant change (%+.1f points", c.Value)
		if c.Interval != nil {
			s += fmt.Sprintf(", 95%% interval %+.1f to %+.1f", c.Interval.Low, c.Interval.High)
		}
		return s + ")"
	}
	dir := "up"
	if c.Value < 0 {
		dir = "down"
	}
	return fmt.Sprintf("significantly %s %.1f points (95%% interval %+.1f to %+.1f over %d prompts)", dir, math.Abs(c.Value), c.Interval.Low, c.Interval.High, c.Prompts)
}
