package visibility

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/heraldhq/herald/host/internal/store"
)

// extend adds the tracking figures to a report being completed: the
// sentiment stored with its answers, the sources, and for tracker runs
// and refreshes the change since the previous run of the same series.
func (s *Service) extend(ctx context.Context, r store.VisibilityReport, st stored, c *Computed) error {
	stored, err := s.store.ListVisibilityAnswers(ctx, r.WorkspaceID, r.ID, kindPrompt)
	if err != nil {
		return err
	}
	byKey := map[string]map[string]Sentiment{}
	for _, a := range stored {
		byKey[a.Engine+"\x00"+a.Question] = decodeSentiment(a.Sentiment)
	}
	sentiments := make([]map[string]Sentiment, len(st.answers))
	for i, a := range st.answers {
		sentiments[i] = byKey[a.Engine+"\x00"+a.Prompt]
	}
	Extend(c, st.brands, st.engines, st.answers, sentiments)
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
	var pc Computed
	if err := json.Unmarshal([]byte(*prev.Result), &pc); err != nil {
		return fmt.Errorf("decode report %s result: %w", prev.ID, err)
	}
	ApplyChange(c, &pc)
	return nil
}
