package visibility

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Each report state written by an update reads back as itself through
// StateOf, on both backends; a new report is queued.
func TestReportStatesRoundTripThroughTheStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := &store.VisibilityReport{WorkspaceID: "acme", WebsiteURL: "https://acme.test/", Input: `{}`, Engines: `[]`, CreditsMonth: "2026-12"}
		if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetVisibilityReport(ctx, "acme", r.ID)
		if err != nil || StateOf(got) != StateQueued {
			t.Fatalf("a new report: %q %v, want %q", got.State, err, StateQueued)
		}
		for _, st := range []State{StateRunning, StateFailed, StateCompleted} {
			if err := s.UpdateVisibilityReport(ctx, "acme", r.ID, store.ReportUpdate{State: st.stored()}); err != nil {
				t.Fatal(err)
			}
			if got, err := s.GetVisibilityReport(ctx, "acme", r.ID); err != nil || StateOf(got) != st {
				t.Errorf("after an update to %q: %q %v", st, got.State, err)
			}
		}
		// The store's completed-report queries see the completed state.
		if latest, err := s.LatestVisibilityReport(ctx, "acme", false); err != nil || latest.ID != r.ID {
			t.Errorf("latest completed report: %q %v", latest.ID, err)
		}
	})
}
