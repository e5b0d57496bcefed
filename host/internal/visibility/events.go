package visibility

import (
	"math"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
)

// SignificantChangePoints is the change of a tracker run's AI visibility
// score (in points, either way) that makes tracker.changed, until changes
// carry their own significance mark: then trackerChangeIsSignificant
// reads that mark instead.
const SignificantChangePoints = 10

// trackerChangeIsSignificant is the one rule that decides whether a
// tracker run's change is worth telling: today a change of at least
// SignificantChangePoints in the AI visibility score.
func trackerChangeIsSignificant(c Computed) bool {
	ch := c.Scores.AIVisibility.Change
	return ch != nil && math.Abs(*ch) >= SignificantChangePoints
}

// completionEvents are the events a report's completion writes with it:
// report.completed and, for a tracker's run, tracker.run.completed and,
// when the change is significant, tracker.changed.
func completionEvents(r store.VisibilityReport, c Computed) []catalog.Event {
	vis, ent := c.Scores.AIVisibility.Score, c.Scores.EntityUnderstanding.Score
	out := []catalog.Event{catalog.ReportDone(r.WorkspaceID, false, catalog.Report{
		ReportID: r.ID, WebsiteURL: r.WebsiteURL, TrackerID: r.TrackerID, AIVisibility: &vis, EntityUnderstanding: &ent,
	})}
	if r.TrackerID == nil {
		return out
	}
	run := catalog.TrackerRun{TrackerID: *r.TrackerID, ReportID: r.ID, AIVisibility: vis, Change: c.Scores.AIVisibility.Change}
	out = append(out, catalog.TrackerRunDone(r.WorkspaceID, run))
	if trackerChangeIsSignificant(c) {
		run.Threshold = SignificantChangePoints
		out = append(out, catalog.TrackerChange(r.WorkspaceID, run))
	}
	return out
}

// failureEvents are the events a report's failure writes with it.
func failureEvents(r store.VisibilityReport, msg string) []catalog.Event {
	return []catalog.Event{catalog.ReportDone(r.WorkspaceID, true, catalog.Report{
		ReportID: r.ID, WebsiteURL: r.WebsiteURL, TrackerID: r.TrackerID, Error: msg,
	})}
}
