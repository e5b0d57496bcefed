package impact

import (
	"context"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/tracker"
)

// A page's citations are the answers of the runs in its two windows that
// cite its path, each answer once, per engine; runs before the baseline
// window or after now, and other pages, do not count.
func TestPageCitationsCountAnswersInTheWindows(t *testing.T) {
	data := tracker.ImpactData{TrackerID: "tr", Domain: "acme.com"}
	cites := func(at time.Time, answers ...tracker.ImpactAnswer) {
		data.Runs = append(data.Runs, tracker.ImpactRun{At: at, Answers: answers})
	}
	page, other := "/blog/launch/", "/pricing/"
	cites(pub.AddDate(0, 0, -20), tracker.ImpactAnswer{Engine: "openai", Pages: []string{page}})             // before the window
	cites(pub.AddDate(0, 0, -3), tracker.ImpactAnswer{Engine: "openai", Pages: []string{other, page, page}}, // once
		tracker.ImpactAnswer{Engine: "perplexity", Pages: []string{other}})
	cites(pub, tracker.ImpactAnswer{Engine: "openai", Pages: []string{page}}, tracker.ImpactAnswer{Engine: "perplexity", Pages: []string{page}}) // the day of publishing is after
	cites(pub.AddDate(0, 0, 2), tracker.ImpactAnswer{Engine: "perplexity", Pages: []string{page}})
	now := pub.AddDate(0, 0, 3)
	cites(now.Add(time.Hour), tracker.ImpactAnswer{Engine: "openai", Pages: []string{page}}) // after now
	pg, err := (&Service{}).page(context.Background(), "ws", newIndex(data), "https://acme.com"+page, pub, now)
	if err != nil {
		t.Fatal(err)
	}
	c := pg.Citations
	if !pg.OnTrackedSite || c.Before != 1 || c.After != 3 || c.BeforeBy["openai"] != 1 || c.AfterBy["openai"] != 1 || c.AfterBy["perplexity"] != 2 {
		t.Fatalf("citations %+v (on tracked site %v), want 1 before (openai) and 3 after (openai 1, perplexity 2)", c, pg.OnTrackedSite)
	}
}
