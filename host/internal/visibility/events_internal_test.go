package visibility

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/interval"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
)

func TestATrackerRunReportsOnlyASignificantChange(t *testing.T) {
	t.Parallel()
	tracker := "tk1"
	r := store.VisibilityReport{ID: "r1", WorkspaceID: "acme", WebsiteURL: "https://acme.test/", TrackerID: &tracker}
	for _, tc := range []struct {
		change *scoring.Change
		want   []string
	}{
		{nil, []string{catalog.ReportCompleted, catalog.TrackerRunCompleted}},
		// a large difference that is noise is not a change
		{&scoring.Change{Value: -25, Interval: &interval.Interval{Low: -40, High: 2}, Prompts: 25}, []string{catalog.ReportCompleted, catalog.TrackerRunCompleted}},
		{&scoring.Change{Value: 4, Significant: true, Interval: &interval.Interval{Low: 0.5, High: 8}, Prompts: 25}, []string{catalog.ReportCompleted, catalog.TrackerRunCompleted, catalog.TrackerChanged}},
		{&scoring.Change{Value: -12.5, Significant: true, Interval: &interval.Interval{Low: -20, High: -3}, Prompts: 25}, []string{catalog.ReportCompleted, catalog.TrackerRunCompleted, catalog.TrackerChanged}},
	} {
		var c scoring.Computed
		c.Scores.AIVisibility.Score, c.Scores.AIVisibility.Change = 40, tc.change
		got := completionEvents(r, c)
		if tc.change != nil {
			run := got[1].Data.(catalog.TrackerRun)
			if run.Change == nil || *run.Change != tc.change.Value || run.Significant != tc.change.Significant || run.ChangeInterval == nil || run.ChangeInterval.Low != tc.change.Interval.Low {
				t.Fatalf("change %v: payload %+v", tc.change, run)
			}
		}
		if len(got) != len(tc.want) {
			t.Fatalf("change %v: %d events, want %v", tc.change, len(got), tc.want)
		}
		for i := range got {
			if got[i].Type != tc.want[i] {
				t.Fatalf("change %v: event %d is %s, want %s", tc.change, i, got[i].Type, tc.want[i])
			}
		}
	}
	// A report that is not a tracker's run reports only its completion.
	if got := completionEvents(store.VisibilityReport{ID: "r2", WorkspaceID: "acme"}, scoring.Computed{}); len(got) != 1 || got[0].Type != catalog.ReportCompleted {
		t.Fatalf("one-off report: %v", got)
	}
}
