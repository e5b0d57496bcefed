package visibility

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// Rescored is one stored report recomputed under the current rules.
type Rescored struct {
	ReportID    string
	WorkspaceID string
	// From and To are the scoring versions before and after.
	From, To int
	// Before and After are scores.aiVisibility.score.
	Before, After float64
}

// Rescore recomputes every completed report of a workspace (every
// workspace when workspaceID is empty) from its stored answers, site and
// judge verdicts under the current mention rules: brands rebuilt from the
// stored input, result and evidence replaced, scoringVersion set. No
// engine and no judge is asked: an occurrence the judge never decided
// does not count, and the report says so.
func Rescore(ctx context.Context, st *store.Store, workspaceID string, log hclog.Logger) ([]Rescored, error) {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	s := &Service{store: st, log: log}
	reports, err := st.CompletedVisibilityReports(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]Rescored, 0, len(reports))
	for _, r := range reports {
		res, err := s.rescore(ctx, r)
		if err != nil {
			return out, fmt.Errorf("report %s: %w", r.ID, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func (s *Service) rescore(ctx context.Context, r store.VisibilityReport) (Rescored, error) {
	res := Rescored{ReportID: r.ID, WorkspaceID: r.WorkspaceID, From: 1, To: analysis.ScoringVersion}
	if r.Result != nil {
		var old scoring.Computed
		if err := json.Unmarshal([]byte(*r.Result), &old); err == nil {
			res.From, res.Before = old.Version(), old.Scores.AIVisibility.Score
		}
	}
	st, err := s.load(ctx, r)
	if err != nil {
		return res, err
	}
	// Brands under the current rules ("Name (domain)", selfAliases, the
	// site's category), from the stored input and site.
	st.brands = buildBrands(st.site, st.input)
	brands := MustJSON(st.brands)
	if err := s.store.SaveVisibilityEvidence(ctx, r.WorkspaceID, r.ID, analysis.ScoringVersion, MustJSON(st.evidence())); err != nil {
		return res, err
	}
	c := st.compute()
	// The tracking figures from the stored sentiments, as at completion.
	if err := s.extend(ctx, r, st, &c); err != nil {
		return res, err
	}
	result := MustJSON(c)
	if err := s.store.UpdateVisibilityReport(ctx, r.WorkspaceID, r.ID, store.ReportUpdate{Brands: &brands, Result: &result}); err != nil {
		return res, err
	}
	res.After = c.Scores.AIVisibility.Score
	return res, nil
}
