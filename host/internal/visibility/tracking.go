package visibility

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// extend adds the tracking figures to a report being completed: the
// sentiment stored with its answers, the sources, every figure's interval,
// and for tracker runs and refreshes the change since the previous run of
// the same series, with its paired interval.
func (s *Service) extend(ctx context.Context, r store.VisibilityReport, st stored, c *scoring.Computed) error {
	sentiments, err := s.sentimentsOf(ctx, r, st)
	if err != nil {
		return err
	}
	scoring.Extend(c, st.brands, st.engines, st.answers, sentiments)
	table := scoring.BuildPromptTable(st.brands, st.engines, st.answers, c.Mentions, sentiments)
	scoring.ApplyIntervals(c, table.Intervals(r.ID))
	if r.TrackerID == nil && !r.Refresh {
		return nil
	}
	prev, err := s.store.PreviousCompletedReport(ctx, r)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if prev.Result == nil {
		return nil
	}
	var pc scoring.Computed
	if err := json.Unmarshal([]byte(*prev.Result), &pc); err != nil {
		return fmt.Errorf("decode report %s result: %w", prev.ID, err)
	}
	prevTable, err := s.tableOf(ctx, prev)
	if err != nil {
		return err
	}
	scoring.ApplyChange(c, &pc, table.ChangesSince(prevTable, r.ID))
	if rec, ok := changeRecommendation(c); ok {
		c.Recommendations = append(c.Recommendations, rec)
		order := map[string]int{"high": 0, "medium": 1, "low": 2}
		sort.SliceStable(c.Recommendations, func(i, j int) bool {
			return order[c.Recommendations[i].Priority] < order[c.Recommendations[j].Priority]
		})
	}
	return nil
}

// changeRecommendation says how visibility moved since the previous run,
// in the only words the interval allows: a fall whose interval excludes 0
// is a high-priority finding, anything not significant is "no significant
// change".
func changeRecommendation(c *scoring.Computed) (scoring.Recommendation, bool) {
	ch := c.Scores.AIVisibility.Change
	if ch == nil {
		return scoring.Recommendation{}, false
	}
	rec := scoring.Recommendation{ID: "visibility-change", Priority: "low", Title: "Visibility since the previous run: " + ch.Says(),
		Detail:   "Answers vary from run to run; only a change whose 95% interval excludes 0 is a real change. Keep watching the trend before acting on it.",
		Evidence: []string{fmt.Sprintf("visibility %.1f, previous run %.1f; change over the %d prompts both runs answered: %s", c.Scores.AIVisibility.Score, c.Scores.AIVisibility.Score-ch.Value, ch.Prompts, ch.Says())}}
	if ch.Significant && ch.Value < 0 {
		rec.Priority = "high"
		rec.Detail = "Engines name you less than in the previous run, by more than answers vary: look at the prompts where competitors now appear and you do not."
	}
	if ch.Significant && ch.Value > 0 {
		rec.Detail = "Engines name you more than in the previous run, by more than answers vary: what changed since is working."
	}
	return rec, true
}

// sentimentsOf is the judged sentiment stored with each of st's answers
// (same order; nil: not judged).
func (s *Service) sentimentsOf(ctx context.Context, r store.VisibilityReport, st stored) ([]map[string]analysis.Sentiment, error) {
	rows, err := s.store.ListVisibilityAnswers(ctx, r.WorkspaceID, r.ID, KindPrompt)
	if err != nil {
		return nil, err
	}
	// By engine and item: samples of one prompt share its text.
	byKey := map[string]map[string]analysis.Sentiment{}
	for _, a := range rows {
		byKey[a.Engine+"/"+a.Item] = analysis.DecodeSentiment(a.Sentiment)
	}
	out := make([]map[string]analysis.Sentiment, len(st.answers))
	for i := range st.answers {
		out[i] = byKey[st.keys[i]]
	}
	return out, nil
}

// tableOf recomputes a stored run's per-prompt table from its stored
// answers, verdicts and sentiment (the previous run of a change).
func (s *Service) tableOf(ctx context.Context, r store.VisibilityReport) (scoring.PromptTable, error) {
	st, err := s.load(ctx, r)
	if err != nil {
		return scoring.PromptTable{}, err
	}
	sentiments, err := s.sentimentsOf(ctx, r, st)
	if err != nil {
		return scoring.PromptTable{}, err
	}
	mentions := scoring.ScoreMentions(st.brands, st.engines, st.answers).Mentions
	return scoring.BuildPromptTable(st.brands, st.engines, st.answers, mentions, sentiments), nil
}
