package visibility_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
	"github.com/heraldhq/herald/sdk"
)

// The calibration suite: a scripted engine whose answers mention the
// brand (Acme) and a competitor (Globex) with known probabilities per
// prompt, drawn from seeded randomness, scored by the real scoring code.
// It measures what docs/METRICS.md promises of intervals and significance
// and fails outside it:
//   - coverage: the 95% interval of a run holds the true value (the mean
//     over the run's prompts of the expected figure) in ≥ 93% of runs;
//   - false alarms: two runs of an unchanged engine are marked
//     significant in ≤ 6% of pairs;
//   - detection: a true 20-point shift of the mention rate over 25
//     prompts × 3 samples (2 engines) is marked significant in ≥ 80% of
//     pairs.
// The runs are simulated cheaply (answers built in memory, then the
// report's own ScoreMentions, BuildPromptTable, Intervals and
// ChangesSince); TestCalibrationThroughTheJobPipeline runs some through
// the real job pipeline on every store and checks it computes the very
// same intervals from what it stored.

const (
	calPrompts = 25
	calSamples = 3
	calIters   = 200
	calShift   = 0.2
)

var calEngines = []string{"gpt", "claude"}

// calWorld is one tracker's prompts: per prompt the probability that an
// answer mentions the brand and the competitor.
type calWorld struct {
	pSelf, pComp []float64
}

func newCalWorld(r *rand.Rand) calWorld {
	w := calWorld{pSelf: make([]float64, calPrompts), pComp: make([]float64, calPrompts)}
	for i := range w.pSelf {
		// ≤ 0.7, so that a 20-point shift stays a 20-point shift.
		w.pSelf[i] = 0.1 + 0.6*r.Float64()
		w.pComp[i] = 0.2 + 0.6*r.Float64()
	}
	return w
}

// truth is the expected mention rate and visibility of the brand over
// the world's prompts, shifted by shift: mentioned with pSelf; first
// (weight 1) unless the competitor is named too and comes first (half of
// those answers, weight 0.75).
func (w calWorld) truth(shift float64) (rate, vis float64) {
	for i, p := range w.pSelf {
		p += shift
		rate += p
		vis += p * (w.pComp[i]*0.875 + (1 - w.pComp[i]))
	}
	n := float64(len(w.pSelf))
	return 100 * rate / n, 100 * vis / n
}

// calText is the scripted engine's answer, decided by r.
func calText(r *rand.Rand, pSelf, pComp float64) string {
	self, comp, selfFirst := r.Float64() < pSelf, r.Float64() < pComp, r.IntN(2) == 0
	switch {
	case self && comp && selfFirst:
		return "Top picks: Acme, then Globex."
	case self && comp:
		return "Top picks: Globex, then Acme."
	case self:
		return "A solid pick: Acme."
	case comp:
		return "A solid pick: Globex."
	}
	return "It depends on what you need."
}

func calPrompt(i int) string { return fmt.Sprintf("best widget tool for case %02d", i) }

func calBrands() []analysis.Brand {
	return analysis.BuildBrands(analysis.SelfBrand("Acme", "example.com"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}})
}

// calMentions are the mentions ScoreMentions finds in each of the
// scripted engine's few texts, computed once: a simulated run reuses them
// instead of matching the same five texts thousands of times.
var calMentions = sync.OnceValue(func() map[string][]analysis.Mention {
	texts := []string{"Top picks: Acme, then Globex.", "Top picks: Globex, then Acme.", "A solid pick: Acme.", "A solid pick: Globex.", "It depends on what you need."}
	answers := make([]analysis.Answer, len(texts))
	for i, t := range texts {
		answers[i] = analysis.Answer{Engine: "gpt", Prompt: "q", Text: t}
	}
	ms := scoring.ScoreMentions(calBrands(), []string{"gpt"}, answers)
	out := map[string][]analysis.Mention{}
	for i, t := range texts {
		out[t] = ms.Mentions[i]
	}
	return out
})

// calRun simulates one run's answers and sums them per prompt with the
// report's own code.
func calRun(r *rand.Rand, w calWorld, shift float64) scoring.PromptTable {
	var answers []analysis.Answer
	var mentions [][]analysis.Mention
	for _, e := range calEngines {
		for i := range w.pSelf {
			for k := 0; k < calSamples; k++ {
				text := calText(r, w.pSelf[i]+shift, w.pComp[i])
				answers = append(answers, analysis.Answer{Engine: e, Prompt: calPrompt(i), Sample: k, Text: text})
				mentions = append(mentions, calMentions()[text])
			}
		}
	}
	return scoring.BuildPromptTable(calBrands(), calEngines, answers, mentions, nil)
}

// calResult are the suite's counts.
type calResult struct {
	runs, coveredRate, coveredVis   int
	pairs, alarmsRate, alarmsVis    int
	shifted, detectedRate, detected int
}

func (c calResult) rates() (covRate, covVis, faRate, faVis, detRate, detVis float64) {
	f := func(a, b int) float64 { return 100 * float64(a) / float64(b) }
	return f(c.coveredRate, c.runs), f(c.coveredVis, c.runs), f(c.alarmsRate, c.pairs), f(c.alarmsVis, c.pairs), f(c.detectedRate, c.shifted), f(c.detected, c.shifted)
}

func within(iv *scoring.FigureInterval, v float64) bool {
	return iv.Interval != nil && iv.Interval.Low <= v && v <= iv.Interval.High
}

func TestCalibration(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2026, 37))
	var c calResult
	for it := 0; it < calIters; it++ {
		w := newCalWorld(r)
		rate, vis := w.truth(0)
		a, b, shifted := calRun(r, w, 0), calRun(r, w, 0), calRun(r, w, calShift)
		for j, tab := range []scoring.PromptTable{a, b} {
			iv := tab.Intervals(fmt.Sprintf("cal-%d-%d", it, j))[""]["acme"]
			c.runs++
			if f := iv[scoring.FigMentionRate]; within(&f, rate) {
				c.coveredRate++
			}
			if f := iv[scoring.FigVisibility]; within(&f, vis) {
				c.coveredVis++
			}
		}
		null := b.ChangesSince(a, fmt.Sprintf("cal-null-%d", it))[""]["acme"]
		c.pairs++
		if null[scoring.FigMentionRate].Significant {
			c.alarmsRate++
		}
		if null[scoring.FigVisibility].Significant {
			c.alarmsVis++
		}
		up := shifted.ChangesSince(a, fmt.Sprintf("cal-shift-%d", it))[""]["acme"]
		c.shifted++
		if up[scoring.FigMentionRate].Significant {
			c.detectedRate++
		}
		if up[scoring.FigVisibility].Significant {
			c.detected++
		}
	}
	covRate, covVis, faRate, faVis, detRate, detVis := c.rates()
	t.Logf("calibration over %d runs, %d unchanged pairs, %d shifted pairs (%d prompts × %d samples × %d engines): "+
		"coverage mention rate %.1f%%, visibility %.1f%%; false alarms mention rate %.1f%%, visibility %.1f%%; "+
		"detection of +%.0f points mention rate %.1f%%, visibility %.1f%%",
		c.runs, c.pairs, c.shifted, calPrompts, calSamples, len(calEngines), covRate, covVis, faRate, faVis, 100*calShift, detRate, detVis)
	if covRate < 93 || covVis < 93 {
		t.Errorf("coverage %.1f%% / %.1f%%, want ≥ 93%%", covRate, covVis)
	}
	if faRate > 6 || faVis > 6 {
		t.Errorf("false alarms %.1f%% / %.1f%%, want ≤ 6%%", faRate, faVis)
	}
	if detRate < 80 {
		t.Errorf("detection of a 20-point shift %.1f%%, want ≥ 80%%", detRate)
	}
	if path := os.Getenv("HERALD_CALIBRATION_OUT"); path != "" {
		_ = os.WriteFile(path, []byte(fmt.Sprintf("coverage %.1f %.1f\nfalse_alarms %.1f %.1f\ndetection %.1f %.1f\n", covRate, covVis, faRate, faVis, detRate, detVis)), 0o644)
	}
}

// calEnginesModel is the scripted engine as the provider plugins: the
// k-th call of an engine for a prompt draws its answer from a generator
// seeded by (engine, prompt, k), so a run's answers per prompt are the
// same whatever order its concurrent samples run in. shift moves every
// pSelf (a changed engine). The judge says nothing (no sentiment, no
// probe knowledge).
type calEnginesModel struct {
	w     calWorld
	mu    sync.Mutex
	shift float64
	calls map[string]int
}

func (m *calEnginesModel) Models() []string { return calEngines }

func (m *calEnginesModel) GenerateText(_ context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	if req.System != "" {
		return sdk.TextResponse{Text: `{"brands":[],"verdict":"unknown","explanation":"scripted","entities":[],"namesBrand":false}`}, nil
	}
	i := -1
	if n, ok := strings.CutPrefix(req.Prompt, "best widget tool for case "); ok {
		i, _ = strconv.Atoi(n)
	}
	if i < 0 {
		return sdk.TextResponse{Text: "I don't know.", Model: model}, nil
	}
	m.mu.Lock()
	key := model + "|" + req.Prompt
	k := m.calls[key]
	m.calls[key]++
	shift := m.shift
	m.mu.Unlock()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%d|%d", model, i, k)
	r := rand.New(rand.NewPCG(h.Sum64(), 37))
	return sdk.TextResponse{Text: calText(r, m.w.pSelf[i]+shift, m.w.pComp[i]), Model: model}, nil
}

// Some runs through the real job pipeline on every store: a tracker of 25
// prompts × 3 samples × 2 engines run three times (the third after a
// 20-point shift). Each run stores 150 answers and its intervals, which
// must equal the ones the simulation's code computes from those stored
// answers; the unchanged pair is not significant, the shifted one is.
func TestCalibrationThroughTheJobPipeline(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		model := &calEnginesModel{w: newCalWorld(rand.New(rand.NewPCG(7, 7))), calls: map[string]int{}}
		b := setup(t, s, options{engines: calEngines, plans: samplePlans(), models: model})
		prompts := make([]string, calPrompts)
		for i := range prompts {
			prompts[i] = strconv.Quote(calPrompt(i))
		}
		body := `{"websiteurl":"https://example.com","competitors":["Globex (globex.com)"],"prompts":[` + strings.Join(prompts, ",") + `],"cadence":"daily"}`
		res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.business, body).Want(t, http.StatusCreated)
		trackerID := res.Body["tracker"].(map[string]any)["id"].(string)
		ids := []string{b.waitJob(t, b.business, res.Body["jobId"].(string))["result"].(map[string]any)["reportId"].(string)}
		for run := 1; run < 3; run++ {
			if run == 2 {
				model.mu.Lock()
				model.shift = calShift
				model.mu.Unlock()
			}
			b.clock.advance(3600e9) // past the answer cache
			r := b.srv.Do(t, "POST", "/v1/visibility/trackers/"+trackerID+"/run", b.business, "").Want(t, http.StatusAccepted)
			ids = append(ids, b.waitJob(t, b.business, r.Body["jobId"].(string))["result"].(map[string]any)["reportId"].(string))
		}
		var tables []scoring.PromptTable
		for _, id := range ids {
			r, err := s.GetVisibilityReport(context.Background(), b.businessID, id)
			if err != nil || r.Result == nil {
				t.Fatalf("report %s: %v", id, err)
			}
			var c scoring.Computed
			if err := json.Unmarshal([]byte(*r.Result), &c); err != nil {
				t.Fatal(err)
			}
			stored, err := s.ListVisibilityAnswers(context.Background(), b.businessID, id, "prompt")
			if err != nil || len(stored) != calPrompts*calSamples*len(calEngines) {
				t.Fatalf("run %s stored %d answers (%v), want 150", id, len(stored), err)
			}
			tab := tableOfStored(stored)
			tables = append(tables, tab)
			want := tab.Intervals(id)[""]["acme"][scoring.FigVisibility]
			got := c.Scores.AIVisibility
			if got.Spread == nil || got.N != 150 || got.Prompts != calPrompts || got.Interval == nil || *got.Interval != *want.Interval {
				t.Fatalf("run %s: stored aiVisibility %+v, recomputed from its answers %+v", id, got.Spread, want)
			}
		}
		var changes []map[string]scoring.Change
		for i, id := range ids[1:] {
			r, _ := s.GetVisibilityReport(context.Background(), b.businessID, id)
			var c scoring.Computed
			_ = json.Unmarshal([]byte(*r.Result), &c)
			changes = append(changes, c.Geo.Brands[0].Changes)
			says := ""
			for _, rec := range c.Recommendations {
				if rec.ID == "visibility-change" {
					says = rec.Title
				}
			}
			if want := map[int]string{0: "no significant change", 1: "significantly up"}[i]; !strings.Contains(says, want) {
				t.Errorf("run %s: the recommendations say %q, want %q", id, says, want)
			}
			want := tables[i+1].ChangesSince(tables[i], id)[""]["acme"][scoring.FigMentionRate]
			if got := c.Geo.Brands[0].Changes[scoring.FigMentionRate]; got.Interval == nil || *got.Interval != *want.Interval || got.Significant != want.Significant {
				t.Fatalf("run %s: stored change %+v, recomputed %+v", id, got, want)
			}
		}
		if changes[0][scoring.FigMentionRate].Significant || !changes[1][scoring.FigMentionRate].Significant {
			t.Errorf("unchanged pair significant %v, shifted pair significant %v; want false then true",
				changes[0][scoring.FigMentionRate].Significant, changes[1][scoring.FigMentionRate].Significant)
		}
	})
}

// tableOfStored sums stored answers as the report does (engines as
// configured, prompts as given, samples in order).
func tableOfStored(stored []store.VisibilityAnswer) scoring.PromptTable {
	rank := map[string]int{}
	for i, e := range calEngines {
		rank[e] = i
	}
	sort.Slice(stored, func(i, j int) bool {
		if rank[stored[i].Engine] != rank[stored[j].Engine] {
			return rank[stored[i].Engine] < rank[stored[j].Engine]
		}
		return itemOrder(stored[i].Item) < itemOrder(stored[j].Item)
	})
	answers := make([]analysis.Answer, len(stored))
	for i, a := range stored {
		answers[i] = analysis.Answer{Engine: a.Engine, Prompt: a.Question, Text: a.Text}
	}
	brands := calBrands()
	ms := scoring.ScoreMentions(brands, calEngines, answers)
	return scoring.BuildPromptTable(brands, calEngines, answers, ms.Mentions, nil)
}

// itemOrder orders stored items "<prompt>" and "<prompt>#<k>" by prompt,
// then sample.
func itemOrder(item string) int {
	p, k, _ := strings.Cut(item, "#")
	pi, _ := strconv.Atoi(p)
	ki, _ := strconv.Atoi(k)
	return pi*100 + ki
}
