package impact

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/tracker"
)

var pub = time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)

// fixture is a tracker of 10 prompts, the first targets of them tagged
// "target", with one run a day from 14 days before publishing to days
// after; mention(prompt, after) says whether the brand is named (at the
// first position) in that prompt's answer.
func fixture(targets, days int, mention func(p int, after bool, day int) bool) tracker.ImpactData {
	data := tracker.ImpactData{TrackerID: "tr", Domain: "acme.com"}
	for i := 0; i < 10; i++ {
		p := tracker.ImpactPrompt{ID: fmt.Sprintf("p_%d", i), Text: fmt.Sprintf("prompt %d", i)}
		if i < targets {
			p.Tags = []string{"target"}
		}
		data.Prompts = append(data.Prompts, p)
	}
	for d := -BaselineDays; d < days; d++ {
		run := tracker.ImpactRun{ReportID: fmt.Sprintf("r%d", d), At: pub.AddDate(0, 0, d).Add(time.Hour)}
		for i, p := range data.Prompts {
			for _, engine := range []string{"openai", "perplexity"} {
				a := tracker.ImpactAnswer{Prompt: p.ID, Engine: engine}
				if mention(i, d >= 0, d) {
					a.Weight, a.Mentioned = 1, true
				}
				run.Answers = append(run.Answers, a)
			}
		}
		data.Runs = append(data.Runs, run)
	}
	return data
}

func post() Post { return Post{ScheduleID: "s1", PublishedAt: pub, Targets: []string{"target"}} }

// The control prompts are the tracker's prompts the post does not target:
// the targets' rise must not show up in the controls' figures, and the
// effect is the targets' change minus the controls'.
func TestControlPromptsExcludeTargets(t *testing.T) {
	// Targets (p0..p2) go from never named to always named; the controls
	// are named on odd prompts throughout.
	data := fixture(3, 10, func(p int, after bool, _ int) bool {
		if p < 3 {
			return after
		}
		return p%2 == 1
	})
	f := Compute(data, post(), pub.AddDate(0, 0, 10))
	if f.State != StateReady || f.Controls != 7 || len(f.Targets) != 3 {
		t.Fatalf("state %s, %d targets, %d controls; want ready, 3, 7", f.State, len(f.Targets), f.Controls)
	}
	for _, e := range f.Effects {
		// 4 of the 7 controls (p3, p5, p7, p9) are named: 57.1 before and after.
		if e.Controls.Prompts != 7 || *e.Controls.Baseline != 57.1 || *e.Controls.After != 57.1 {
			t.Errorf("%s controls = %+v (baseline %v, after %v), want 7 prompts at 57.1 both", e.Figure, e.Controls, *e.Controls.Baseline, *e.Controls.After)
		}
		if e.Targets.Prompts != 3 || *e.Targets.Baseline != 0 || *e.Targets.After != 100 {
			t.Errorf("%s targets baseline %v after %v, want 0 and 100", e.Figure, *e.Targets.Baseline, *e.Targets.After)
		}
		if e.Value == nil || *e.Value != 100 || !e.Significant || e.Interval == nil {
			t.Errorf("%s effect %v significant %v interval %v, want +100, significant", e.Figure, e.Value, e.Significant, e.Interval)
		}
	}
}

// Before 7 days after publishing the impact is pending, with the date it
// can first be read, and no effect; from the 7th day it is read.
func TestPendingBeforeSevenDays(t *testing.T) {
	data := fixture(3, 10, func(p int, after bool, _ int) bool { return p < 3 && after })
	f := Compute(data, post(), pub.AddDate(0, 0, 7).Add(-time.Minute))
	if f.State != StatePending || len(f.Effects) != 0 {
		t.Fatalf("6 days 23 hours after: state %s with %d effects, want pending and none", f.State, len(f.Effects))
	}
	if want := pub.AddDate(0, 0, 7); !f.ReadableAt.Equal(want) || !strings.Contains(strings.Join(f.Notes, " "), want.Format(time.DateOnly)) {
		t.Errorf("readable at %s, notes %q; want %s named", f.ReadableAt, f.Notes, want)
	}
	if f = Compute(data, post(), pub.AddDate(0, 0, 7)); f.State != StateReady || len(f.Effects) != 2 {
		t.Errorf("7 days after: state %s with %d effects, want ready and 2", f.State, len(f.Effects))
	}
}

// A post targeting every prompt has nothing to compare against: no
// effect, a note saying why.
func TestNoControlPromptsNoEffect(t *testing.T) {
	data := fixture(10, 10, func(p int, after bool, _ int) bool { return after })
	f := Compute(data, post(), pub.AddDate(0, 0, 10))
	if f.Controls != 0 || len(f.Effects) != 2 {
		t.Fatalf("%d controls, %d effects", f.Controls, len(f.Effects))
	}
	for _, e := range f.Effects {
		if e.Value != nil || e.Interval != nil || e.Significant || e.Note != NoteNoControls {
			t.Errorf("%s: value %v interval %v significant %v note %q; want no effect and the note", e.Figure, e.Value, e.Interval, e.Significant, e.Note)
		}
	}
}

// Engines that do not change: the effect's interval covers 0 and it is
// not significant; the same seed gives the same interval.
func TestUnchangedEnginesNotSignificant(t *testing.T) {
	// Each prompt is named on a fixed pattern of days, the same before
	// and after publishing.
	data := fixture(3, 14, func(p int, _ bool, day int) bool { return (p+day+BaselineDays)%3 == 0 })
	f := Compute(data, post(), pub.AddDate(0, 0, 14))
	for _, e := range f.Effects {
		if e.Value == nil || e.Interval == nil || e.Significant {
			t.Errorf("%s: value %v interval %v significant %v; want a value, an interval and not significant", e.Figure, e.Value, e.Interval, e.Significant)
		}
	}
	again := Compute(data, post(), pub.AddDate(0, 0, 14))
	if *again.Effects[0].Interval != *f.Effects[0].Interval {
		t.Errorf("interval not reproduced: %v then %v", *f.Effects[0].Interval, *again.Effects[0].Interval)
	}
}
