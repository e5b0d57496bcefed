package scoring_test

import (
	"fmt"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// tableOf is a one-engine run: per prompt, how many of its 3 answers name
// Acme.
func tableOf(named map[string]int) scoring.PromptTable {
	var answers []analysis.Answer
	var mentions [][]analysis.Mention
	for p := 'A'; p <= 'Z'; p++ {
		n, ok := named[string(p)]
		if !ok {
			continue
		}
		for k := 0; k < 3; k++ {
			a := analysis.Answer{Engine: "gpt", Prompt: string(p), Sample: k, Text: "It depends."}
			var ms []analysis.Mention
			if k < n {
				a.Text = "Try Acme."
				ms = []analysis.Mention{{Brand: "acme", Self: true, Position: 1, Weight: 1}}
			}
			answers = append(answers, a)
			mentions = append(mentions, ms)
		}
	}
	return scoring.BuildPromptTable(analysis.BuildBrands(analysis.SelfBrand("Acme", "example.com"), []analysis.CompetitorInput{{Name: "Globex", Domain: "globex.com"}}), []string{"gpt"}, answers, mentions, nil)
}

// A change is paired over the prompts both runs answered only: a prompt
// new in this run or gone since the last is left out of its interval.
func TestChangeIsPairedOverSharedPromptsOnly(t *testing.T) {
	prev := tableOf(map[string]int{"A": 0, "B": 1, "C": 0, "D": 1, "E": 0, "F": 1, "H": 3})
	cur := tableOf(map[string]int{"A": 1, "B": 2, "C": 1, "D": 2, "E": 1, "F": 2, "G": 0})
	ch := cur.ChangesSince(prev, "run")[""]["acme"][scoring.FigMentionRate]
	// Every shared prompt gained exactly one of three answers: the paired
	// change is +33.3 on every resample, whatever prompts G and H say.
	if ch.Prompts != 6 || ch.Interval == nil || fmt.Sprintf("%.1f %.1f", ch.Interval.Low, ch.Interval.High) != "33.3 33.4" || !ch.Significant {
		t.Fatalf("change over %d prompts, interval %+v, significant %v; want 6 shared prompts, [33.3, 33.4], significant", ch.Prompts, ch.Interval, ch.Significant)
	}
	// An interval that holds 0 is no significant change.
	if same := prev.ChangesSince(prev, "run")[""]["acme"][scoring.FigMentionRate]; same.Interval == nil || same.Significant {
		t.Fatalf("a run against itself: %+v, want an interval and not significant", same)
	}
	// Four shared prompts are too few.
	few := tableOf(map[string]int{"A": 1, "B": 2, "C": 1, "D": 2, "X": 3, "Y": 3})
	if ch := few.ChangesSince(prev, "run")[""]["acme"][scoring.FigMentionRate]; ch.Interval != nil || ch.Significant || ch.Prompts != 4 {
		t.Fatalf("4 shared prompts: %+v, want no interval and not significant", ch)
	}
}

// The same run read twice has the same intervals; another run's id
// resamples differently.
func TestIntervalsReproduceFromTheRunID(t *testing.T) {
	named := map[string]int{}
	for i, p := range "ABCDEFGHIJKLMNOPQRST" {
		named[string(p)] = i % 4
	}
	tab := tableOf(named)
	a := tab.Intervals("run-1")[""]["acme"][scoring.FigMentionRate]
	b := tableOf(named).Intervals("run-1")[""]["acme"][scoring.FigMentionRate]
	c := tab.Intervals("run-2")[""]["acme"][scoring.FigMentionRate]
	if a.Interval == nil || *a.Interval != *b.Interval || a.N != 60 || a.Prompts != 20 {
		t.Fatalf("run-1 twice: %+v %+v", a, b)
	}
	if *a.Interval == *c.Interval {
		t.Logf("run-2 happened to give the same interval %+v", *c.Interval)
	}
}
