package visibility

import (
	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// trackerChangeIsSignificant is the one rule that decides whether a
// tracker run's change is worth telling: the AI visibility score's change
// is significant (its paired interval excludes 0, docs/METRICS.md), never
// a difference alone.
func trackerChangeIsSignificant(c scoring.Computed) bool {
	ch := c.Scores.AIVisibility.Change
	return ch != nil && ch.Significant
}

// completionEvents are the events a report's completion writes with it:
// report.completed and, for a tracker's run, tracker.run.completed and,
// when the change is significant, tracker.changed.
func completionEvents(r store.VisibilityReport, c scoring.Computed) []catalog.Event {
	vis, ent := c.Scores.AIVisibility.Score, c.Scores.EntityUnderstanding.Score
	out := []catalog.Event{catalog.ReportDone(r.WorkspaceID, false, catalog.Report{
		ReportID: r.ID, WebsiteURL: r.WebsiteURL, TrackerID: r.TrackerID, AIVisibility: &vis, EntityUnderstanding: &ent,
	})}
	if r.TrackerID == nil {
		return out
	}
	run := catalog.TrackerRun{TrackerID: *r.TrackerID, ReportID: r.ID, AIVisibility: vis}
	if ch := c.Scores.AIVisibility.Change; ch != nil {
		v := ch.Value
		run.Change, run.Significant = &v, ch.Significant
		if ch.Interval != nil {
			run.ChangeInterval = &catalog.Range{Low: ch.Interval.Low, High: ch.Interval.High}
		}
	}
	out = append(out, catalog.TrackerRunDone(r.WorkspaceID, run))
	if trackerChangeIsSignificant(c) {
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
