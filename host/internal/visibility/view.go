package visibility

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// stored is a report's stored evidence, decoded.
type stored struct {
	input   Input
	engines []string
	brands  []analysis.Brand
	site    siteRecord
	answers []analysis.Answer
	// keys are the answers' engine/item, in the same order.
	keys   []string
	probes []scoring.ProbeResult
}

// load reads a report's answers and probes in a fixed order (engines as
// configured, prompts as given, probes as defined), so that computing
// twice gives the same report.
func (s *Service) load(ctx context.Context, r store.VisibilityReport) (stored, error) {
	var st stored
	if err := json.Unmarshal([]byte(r.Input), &st.input); err != nil {
		return st, fmt.Errorf("decode report input: %w", err)
	}
	if err := json.Unmarshal([]byte(r.Engines), &st.engines); err != nil {
		return st, fmt.Errorf("decode report engines: %w", err)
	}
	if r.Brands != nil {
		if err := json.Unmarshal([]byte(*r.Brands), &st.brands); err != nil {
			return st, fmt.Errorf("decode report brands: %w", err)
		}
	}
	if r.Site != nil {
		if err := json.Unmarshal([]byte(*r.Site), &st.site); err != nil {
			return st, fmt.Errorf("decode report site: %w", err)
		}
	}
	rank := map[string]int{}
	for i, e := range st.engines {
		rank[e] = i
	}
	prompts, err := s.store.ListVisibilityAnswers(ctx, r.WorkspaceID, r.ID, KindPrompt)
	if err != nil {
		return st, err
	}
	sort.Slice(prompts, func(i, j int) bool {
		if rank[prompts[i].Engine] != rank[prompts[j].Engine] {
			return rank[prompts[i].Engine] < rank[prompts[j].Engine]
		}
		a, as := parseItem(prompts[i].Item)
		b, bs := parseItem(prompts[j].Item)
		if a != b {
			return a < b
		}
		return as < bs
	})
	notes, err := s.store.ListAnswerMentions(ctx, r.WorkspaceID, r.ID)
	if err != nil {
		return st, err
	}
	byKey := map[string]store.AnswerMentions{}
	for _, n := range notes {
		byKey[n.Engine+"/"+n.Item] = n
	}
	for _, a := range prompts {
		_, sample := parseItem(a.Item)
		ans := analysis.Answer{Engine: a.Engine, Prompt: a.Question, Text: a.Text, Cached: a.Cached, Citations: []analysis.Citation{}, Sample: sample}
		if n, ok := byKey[a.Engine+"/"+a.Item]; ok {
			ans.Truncated = n.Truncated
			_ = json.Unmarshal([]byte(n.Verdicts), &ans.Verdicts)
		}
		st.keys = append(st.keys, a.Engine+"/"+a.Item)
		if a.Model != nil {
			ans.Model = *a.Model
		}
		if a.Error != nil {
			ans.Error = *a.Error
		}
		ans.NoAnswer = a.Outcome == store.AnswerNoAnswer
		_ = json.Unmarshal([]byte(a.Citations), &ans.Citations)
		if a.Discovered != nil && json.Unmarshal([]byte(*a.Discovered), &ans.Discovered) == nil {
			ans.DiscoveryJudged = true
		}
		st.answers = append(st.answers, ans)
	}
	probes, err := s.store.ListVisibilityAnswers(ctx, r.WorkspaceID, r.ID, kindProbe)
	if err != nil {
		return st, err
	}
	probeRank := map[string]int{}
	for i, p := range scoring.Probes {
		probeRank[p.ID] = i
	}
	sort.Slice(probes, func(i, j int) bool {
		if probeRank[probes[i].Item] != probeRank[probes[j].Item] {
			return probeRank[probes[i].Item] < probeRank[probes[j].Item]
		}
		return rank[probes[i].Engine] < rank[probes[j].Engine]
	})
	for _, a := range probes {
		p := scoring.ProbeResult{ID: a.Item, Question: a.Question, Engine: a.Engine, Answer: a.Text, Verdict: scoring.VerdictMissing}
		if a.Verdict != nil {
			p.Verdict = *a.Verdict
		}
		if a.Error != nil {
			p.Verdict = scoring.VerdictMissing
			p.Answer = ""
			msg := "the engine failed: " + *a.Error
			p.Explanation = &msg
		}
		if a.Fact != nil {
			p.Fact = *a.Fact
		}
		if a.Judgement != nil {
			var j judgement
			if json.Unmarshal([]byte(*a.Judgement), &j) == nil {
				if j.Explanation != "" && p.Explanation == nil {
					p.Explanation = &j.Explanation
				}
				p.Entities = j.Entities
			}
		}
		st.probes = append(st.probes, p)
	}
	return st, nil
}

func (st stored) compute() scoring.Computed {
	checks := scoring.ClarityChecks(st.site.Facts, st.site.Reached, st.site.Error)
	return scoring.Compute(st.brands, st.engines, st.answers, st.probes, checks)
}

// complete has the judge decide the sentence-initial ambiguous brand
// names, scores the stored answers, stores the result and the evidence
// (computed once, here) and settles the credits.
func (s *Service) complete(ctx context.Context, r store.VisibilityReport) error {
	// Reload: the site and brands were stored during this run.
	r, err := s.store.GetVisibilityReport(ctx, r.WorkspaceID, r.ID)
	if err != nil {
		return err
	}
	st, err := s.load(ctx, r)
	if err != nil {
		return err
	}
	s.judgeMentions(ctx, r, st)
	if err := s.store.SaveVisibilityEvidence(ctx, r.WorkspaceID, r.ID, analysis.ScoringVersion, MustJSON(st.evidence())); err != nil {
		return err
	}
	c := st.compute()
	if err := s.extend(ctx, r, st, &c); err != nil { // tracking figures (tracking.go)
		return err
	}
	result := MustJSON(c)
	now := s.now().UnixMilli()
	if err := s.store.UpdateVisibilityReport(ctx, r.WorkspaceID, r.ID, store.ReportUpdate{State: StateCompleted.stored(), Result: &result, CompletedAt: &now,
		Events: completionEvents(r, c)}); err != nil {
		return err
	}
	s.settle(context.WithoutCancel(ctx), r)
	return nil
}

func MustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own types, which always marshal
	}
	return string(b)
}

// AnswerEvidence is one answer as GET ?evidence=true shows it.
type AnswerEvidence struct {
	analysis.Answer
	// Mentions are the brands mentioned, by position.
	Mentions []analysis.Mention `json:"mentions"`
	// Brands is every tracked brand: mentioned, position, cited, the
	// judge's verdicts.
	Brands []analysis.BrandEvidence `json:"brands"`
}

// storedEvidence is the evidence stored when a report completes: per
// answer (by engine/item) its mentions and every brand.
type storedEvidence struct {
	Key      string                   `json:"key"`
	Mentions []analysis.Mention       `json:"mentions"`
	Brands   []analysis.BrandEvidence `json:"brands"`
}

func (st stored) evidence() []storedEvidence {
	ms := scoring.ScoreMentions(st.brands, st.engines, st.answers)
	evidence := ms.AllEvidence()
	out := make([]storedEvidence, len(st.answers))
	for i := range st.answers {
		out[i] = storedEvidence{Key: st.keys[i], Mentions: ms.Mentions[i], Brands: evidence[i]}
		if out[i].Mentions == nil {
			out[i].Mentions = []analysis.Mention{}
		}
	}
	return out
}

// RefreshMeta is the report's refreshMeta.
type RefreshMeta struct {
	Count       int `json:"count"`
	UsedLast24h int `json:"usedLast24h"`
	LimitPer24h int `json:"limitPer24h"`
}

// View is a report as the GET routes show it.
type View struct {
	ID        string
	CreatedAt time.Time
	State     State
	Input     Input
	Engines   []string
	// Computed is nil until the report completes.
	Computed    *scoring.Computed
	RefreshMeta RefreshMeta
	// TrackerID is set on a tracker's runs.
	TrackerID string
	// Samples is how many times each prompt was asked on each engine.
	Samples int
	// Answers is set when evidence was asked for.
	Answers []AnswerEvidence
}

// Latest returns the workspace's latest (oldest with asc) completed
// report, or nil when there is none.
func (s *Service) Latest(ctx context.Context, p auth.Principal, sortOrder string, evidence bool) (*View, error) {
	var asc bool
	switch sortOrder {
	case "", "desc":
	case "asc":
		asc = true
	default:
		return nil, apierr.Invalid("sort must be desc or asc, got %q", sortOrder)
	}
	r, err := s.store.LatestVisibilityReport(ctx, p.WorkspaceID, asc)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s.view(ctx, p, r, evidence)
}

// OneOff returns a one-off report of the workspace; 404 otherwise.
func (s *Service) OneOff(ctx context.Context, p auth.Principal, id string, evidence bool) (*View, error) {
	r, err := s.store.GetVisibilityReport(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !r.OneOff) {
		return nil, apierr.NotFound("one-off report %s not found", id)
	}
	if err != nil {
		return nil, err
	}
	return s.view(ctx, p, r, evidence)
}

func (s *Service) view(ctx context.Context, p auth.Principal, r store.VisibilityReport, evidence bool) (*View, error) {
	v := &View{ID: r.ID, CreatedAt: time.UnixMilli(r.CreatedAt).UTC(), State: StateOf(r), Samples: max(1, r.Samples)}
	if r.TrackerID != nil {
		v.TrackerID = *r.TrackerID
	}
	if err := json.Unmarshal([]byte(r.Input), &v.Input); err != nil {
		return nil, fmt.Errorf("decode report input: %w", err)
	}
	if err := json.Unmarshal([]byte(r.Engines), &v.Engines); err != nil {
		return nil, fmt.Errorf("decode report engines: %w", err)
	}
	if r.Result != nil {
		var c scoring.Computed
		if err := json.Unmarshal([]byte(*r.Result), &c); err != nil {
			return nil, fmt.Errorf("decode report result: %w", err)
		}
		v.Computed = &c
	}
	times, total, err := s.store.VisibilityRefreshes(ctx, p.WorkspaceID, s.now().Add(-refreshWindow).UnixMilli())
	if err != nil {
		return nil, err
	}
	v.RefreshMeta = RefreshMeta{Count: total, UsedLast24h: len(times), LimitPer24h: s.plan(p).RefreshesPer24h}
	if evidence && r.Brands != nil {
		answers, err := s.evidence(ctx, r)
		if err != nil {
			return nil, err
		}
		v.Answers = answers
	}
	return v, nil
}

// evidence reads a report's answers and their stored evidence. A report
// completed before evidence was stored (or still running) gets it
// computed under the current rules; a completed one stores it then, so it
// is computed once.
func (s *Service) evidence(ctx context.Context, r store.VisibilityReport) ([]AnswerEvidence, error) {
	st, err := s.load(ctx, r)
	if err != nil {
		return nil, err
	}
	var list []storedEvidence
	_, body, err := s.store.GetVisibilityEvidence(ctx, r.WorkspaceID, r.ID)
	switch {
	case err == nil:
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			return nil, fmt.Errorf("decode report evidence: %w", err)
		}
	case errors.Is(err, store.ErrNotFound):
		list = st.evidence()
		if StateOf(r) == StateCompleted {
			if err := s.store.SaveVisibilityEvidence(ctx, r.WorkspaceID, r.ID, analysis.ScoringVersion, MustJSON(list)); err != nil {
				return nil, err
			}
		}
	default:
		return nil, err
	}
	byKey := make(map[string]storedEvidence, len(list))
	for _, e := range list {
		byKey[e.Key] = e
	}
	out := make([]AnswerEvidence, len(st.answers))
	for i, a := range st.answers {
		e := byKey[st.keys[i]]
		out[i] = AnswerEvidence{Answer: a, Mentions: e.Mentions, Brands: e.Brands}
		if out[i].Mentions == nil {
			out[i].Mentions = []analysis.Mention{}
		}
		if out[i].Brands == nil {
			out[i].Brands = []analysis.BrandEvidence{}
		}
	}
	return out, nil
}

// History returns one point per completed report of the workspace's
// history in the last days (default 90, 1 to 365), oldest first.
func (s *Service) History(ctx context.Context, p auth.Principal, days int) ([]map[string]any, error) {
	if days == 0 {
		days = defaultHistory
	}
	if days < 1 || days > 365 {
		return nil, apierr.Invalid("days must be between 1 and 365, got %d", days)
	}
	since := s.now().Add(-time.Duration(days) * 24 * time.Hour).UnixMilli()
	reports, err := s.store.CompletedVisibilityReportsSince(ctx, p.WorkspaceID, since)
	if err != nil {
		return nil, err
	}
	points := make([]map[string]any, 0, len(reports))
	for _, r := range reports {
		if r.Result == nil {
			continue
		}
		var c scoring.Computed
		if err := json.Unmarshal([]byte(*r.Result), &c); err != nil {
			return nil, fmt.Errorf("decode report %s result: %w", r.ID, err)
		}
		points = append(points, scoring.HistoryPoint(time.UnixMilli(r.CreatedAt), c))
		if r.TrackerID != nil { // a tracker's run (tracking.go)
			points[len(points)-1]["trackerId"] = *r.TrackerID
		}
	}
	return points, nil
}

// Summary is a one-off report in the list.
type Summary struct {
	ID         string
	WebsiteURL string
	CreatedAt  time.Time
	State      State
	// Scores is nil until the report completes.
	Scores *scoring.Scores
}

// OneOffs lists the workspace's one-off reports, newest first, 20 a page
// from skip.
func (s *Service) OneOffs(ctx context.Context, p auth.Principal, skip int) ([]Summary, error) {
	if skip < 0 {
		return nil, apierr.Invalid("skip must be 0 or more, got %d", skip)
	}
	reports, err := s.store.ListVisibilityReports(ctx, p.WorkspaceID, true, skip, OneOffPageSize)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(reports))
	for _, r := range reports {
		sum := Summary{ID: r.ID, WebsiteURL: r.WebsiteURL, CreatedAt: time.UnixMilli(r.CreatedAt).UTC(), State: StateOf(r)}
		if r.Result != nil {
			var c scoring.Computed
			if json.Unmarshal([]byte(*r.Result), &c) == nil {
				sum.Scores = &c.Scores
			}
		}
		out = append(out, sum)
	}
	return out, nil
}
