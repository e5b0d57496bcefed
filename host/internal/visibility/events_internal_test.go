package visibility

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
)

func TestATrackerRunReportsAChangeOnlyAtTheThreshold(t *testing.T) {
	t.Parallel()
	tracker := "tk1"
	r := store.VisibilityReport{ID: "r1", WorkspaceID: "acme", WebsiteURL: "https://acme.test/", TrackerID: &tracker}
	for _, tc := range []struct {
		change *float64
		want   []string
	}{
		{nil, []string{catalog.ReportCompleted, catalog.TrackerRunCompleted}},
		{ptrFloat(9.9), []string{catalog.ReportCompleted, catalog.TrackerRunCompleted}},
		{ptrFloat(-10), []string{catalog.ReportCompleted, catalog.TrackerRunCompleted, catalog.TrackerChanged}},
		{ptrFloat(12.5), []string{catalog.ReportCompleted, catalog.TrackerRunCompleted, catalog.TrackerChanged}},
	} {
		var c Computed
		c.Scores.AIVisibility.Score, c.Scores.AIVisibility.Change = 40, tc.change
		got := completionEvents(r, c)
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
	if got := completionEvents(store.VisibilityReport{ID: "r2", WorkspaceID: "acme"}, Computed{}); len(got) != 1 || got[0].Type != catalog.ReportCompleted {
		t.Fatalf("one-off report: %v", got)
	}
}

func ptrFloat(f float64) *float64 { return &f }
