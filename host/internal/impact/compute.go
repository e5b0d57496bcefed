package impact

import (
	"fmt"
	"slices"
	"time"

	"github.com/heraldhq/herald/host/internal/tracker"
	"github.com/heraldhq/herald/host/internal/visibility/interval"
)

// Windows of the impact.
const (
	// BaselineDays is the window before publishing the baseline reads.
	BaselineDays = 14
	// MinAfterDays is how long after publishing the effect is first shown.
	MinAfterDays = 7
)

// Figures an effect is given for.
const (
	FigVisibility  = "visibility"
	FigMentionRate = "mentionRate"
)

// States of a post's impact.
const (
	StateUntargeted  = "untargeted"
	StateUnpublished = "unpublished"
	StatePending     = "pending"
	StateReady       = "ready"
)

// Notes.
const (
	NoteNoControls = "no effect: every answered prompt of the tracker is a target, so there are no control prompts to compare the change against"
	NoteNoTargets  = "no effect: none of the targeted prompts was answered both before and after publishing"
	NoteNoBaseline = "no effect: the tracker has no run in the 14 days before publishing"
	NoteNoAfter    = "no effect: the tracker has no run since publishing"
	NoteNoCausal   = "the effect compares the targeted prompts with the tracker's other prompts over the same days; it is not proof that the post caused the change"
)

// Group is a figure over a group of prompts in both windows; nil when the
// group has no answer in that window.
type Group struct {
	Prompts  int
	Baseline *float64
	After    *float64
}

// Effect is the post's effect on one figure of the brand itself.
type Effect struct {
	Figure   string
	Targets  Group
	Controls Group
	// Value is nil when there is no effect (no control prompts, no
	// targeted prompt answered in both windows).
	Value       *float64
	Interval    *interval.Interval
	Significant bool
	Note        string
	Prompts     int
}

// Post is what compute needs of a published post.
type Post struct {
	ScheduleID  string
	PublishedAt time.Time
	Targets     []string
}

// Figures is the pure part of a post's impact.
type Figures struct {
	State        string
	ReadableAt   time.Time
	BaselineFrom time.Time
	BaselineRuns int
	AfterRuns    int
	DaysAfter    int
	Targets      []tracker.ImpactPrompt
	Controls     int
	Effects      []Effect
	Notes        []string
}

// sums are one prompt's answers in one window: answers, position weights
// and mentions of the brand itself.
type sums struct{ answers, weight, mentions float64 }

// index is a tracker's runs read once for every post of a view: each
// answer's prompt as a slot (one per distinct prompt id of the tracker),
// and per cited page of the tracked domain the answers citing it. Each
// post then sums its windows by slot, in the runs' and answers' order, and
// reads its page's citations from one list.
type index struct {
	data tracker.ImpactData
	// slot is the slot of each of data.Prompts (prompts of the same id
	// share one).
	slot  []int
	slots int
	// prompt is, per run and answer, the slot of the answer's prompt; -1
	// when it is not one of the tracker's prompts.
	prompt [][]int
	// cites are, per page path, the answers citing it (each answer once).
	cites map[string][]cite
}

// cite is one answer citing a page: its run (an index into data.Runs) and
// its engine.
type cite struct {
	run    int
	engine string
}

func newIndex(data tracker.ImpactData) *index {
	ix := &index{data: data, slot: make([]int, len(data.Prompts)), prompt: make([][]int, len(data.Runs)), cites: map[string][]cite{}}
	byID := map[string]int{}
	for i, p := range data.Prompts {
		s, ok := byID[p.ID]
		if !ok {
			s = len(byID)
			byID[p.ID] = s
		}
		ix.slot[i] = s
	}
	ix.slots = len(byID)
	for r, run := range data.Runs {
		ix.prompt[r] = make([]int, len(run.Answers))
		for j, a := range run.Answers {
			s, ok := byID[a.Prompt]
			if !ok {
				s = -1
			}
			ix.prompt[r][j] = s
			for k, path := range a.Pages {
				if !slices.Contains(a.Pages[:k], path) {
					ix.cites[path] = append(ix.cites[path], cite{run: r, engine: a.Engine})
				}
			}
		}
	}
	return ix
}

// Compute reads a post's effect from the tracker's runs at now. Runs
// before the baseline window or after now are ignored.
func Compute(data tracker.ImpactData, post Post, now time.Time) Figures {
	return newIndex(data).compute(post, now)
}

func (ix *index) compute(post Post, now time.Time) Figures {
	data := ix.data
	pub := post.PublishedAt
	f := Figures{ReadableAt: pub.AddDate(0, 0, MinAfterDays), BaselineFrom: pub.AddDate(0, 0, -BaselineDays)}
	targeted := tracker.MatchTargets(data.Prompts, post.Targets)
	for _, p := range data.Prompts {
		if targeted[p.ID] {
			f.Targets = append(f.Targets, p)
		}
	}
	if now.After(pub) {
		f.DaysAfter = int(now.Sub(pub) / (24 * time.Hour))
	}
	before, after := make([]sums, ix.slots), make([]sums, ix.slots)
	for r, run := range data.Runs {
		var into []sums
		switch {
		case run.At.Before(f.BaselineFrom) || run.At.After(now):
			continue
		case run.At.Before(pub):
			into = before
			f.BaselineRuns++
		default:
			into = after
			f.AfterRuns++
		}
		for j, sl := range ix.prompt[r] {
			if sl < 0 {
				continue
			}
			a := &run.Answers[j]
			s := &into[sl]
			s.answers++
			s.weight += a.Weight
			if a.Mentioned {
				s.mentions++
			}
		}
	}
	if now.Before(f.ReadableAt) {
		f.State = StatePending
		f.Notes = append(f.Notes, fmt.Sprintf("pending: the effect can first be read on %s, %d days after publishing", f.ReadableAt.UTC().Format(time.DateOnly), MinAfterDays))
		return f
	}
	f.State = StateReady
	f.Notes = append(f.Notes, NoteNoCausal)
	// The prompts compared: the tracker's prompts answered in both windows.
	var cmpBefore, cmpAfter []sums
	var isTarget []bool
	for i, p := range data.Prompts {
		if b, a := before[ix.slot[i]], after[ix.slot[i]]; b.answers > 0 && a.answers > 0 {
			cmpBefore, cmpAfter = append(cmpBefore, b), append(cmpAfter, a)
			isTarget = append(isTarget, targeted[p.ID])
			if !targeted[p.ID] {
				f.Controls++
			}
		}
	}
	nTargets := len(isTarget) - f.Controls
	note := ""
	switch {
	case f.BaselineRuns == 0:
		note = NoteNoBaseline
	case f.AfterRuns == 0:
		note = NoteNoAfter
	case nTargets == 0:
		note = NoteNoTargets
	case f.Controls == 0:
		note = NoteNoControls
	}
	f.Effects = effects(interval.Seed(post.ScheduleID), isTarget, cmpBefore, cmpAfter, note)
	return f
}

// Columns per prompt: for the targets then the controls, baseline then
// after, the answers, the weights and the mentions.
const (
	colAnswers = iota
	colWeight
	colMentions
	colsPerCell
)

func col(target, afterWindow bool, c int) int {
	i := 0
	if !target {
		i += 2
	}
	if afterWindow {
		i++
	}
	return i*colsPerCell + c
}

// effects are the effects on visibility and mention rate over the compared
// prompts (before[i] and after[i] the sums of the i-th); note set: no
// value, only the groups.
func effects(seed uint64, isTarget []bool, before, after []sums, note string) []Effect {
	n := len(isTarget)
	cols := make([][]float64, 4*colsPerCell)
	for c := range cols {
		cols[c] = make([]float64, n)
	}
	for i := range isTarget {
		for _, w := range []struct {
			after bool
			s     sums
		}{{false, before[i]}, {true, after[i]}} {
			cols[col(isTarget[i], w.after, colAnswers)][i] = w.s.answers
			cols[col(isTarget[i], w.after, colWeight)][i] = w.s.weight
			cols[col(isTarget[i], w.after, colMentions)][i] = w.s.mentions
		}
	}
	nt := 0
	for _, t := range isTarget {
		if t {
			nt++
		}
	}
	var out []Effect
	var combined []interval.Combined
	for _, fig := range []struct {
		name string
		num  int
	}{{FigVisibility, colWeight}, {FigMentionRate, colMentions}} {
		e := Effect{Figure: fig.name, Prompts: n, Note: note,
			Targets:  group(cols, true, fig.num, nt),
			Controls: group(cols, false, fig.num, n-nt)}
		term := func(target, afterWindow bool, w float64) interval.Term {
			return interval.Term{Num: col(target, afterWindow, fig.num), Den: col(target, afterWindow, colAnswers), Weight: w, Scale: 100}
		}
		c := interval.Combined{term(true, true, 1), term(true, false, -1), term(false, true, -1), term(false, false, 1)}
		if note == "" {
			if v, ok := c.Value(cols); ok {
				v = round1(v)
				e.Value = &v
			}
		}
		out = append(out, e)
		combined = append(combined, c)
	}
	if note != "" {
		return out
	}
	for i, r := range interval.BootstrapCombined(seed, n, []int{nt, n - nt}, cols, combined) {
		if r.Interval != nil {
			iv := interval.Interval{Low: round1(r.Interval.Low), High: round1(r.Interval.High)}
			out[i].Interval = &iv
			out[i].Significant = r.Interval.Excludes0()
		} else {
			out[i].Note = r.Note
		}
	}
	return out
}

// group is a figure over one group's prompts in both windows.
func group(cols [][]float64, target bool, num, prompts int) Group {
	g := Group{Prompts: prompts}
	for _, afterWindow := range []bool{false, true} {
		var n, d float64
		for p := range cols[0] {
			n += cols[col(target, afterWindow, num)][p]
			d += cols[col(target, afterWindow, colAnswers)][p]
		}
		if d == 0 {
			continue
		}
		v := round1(100 * n / d)
		if afterWindow {
			g.After = &v
		} else {
			g.Baseline = &v
		}
	}
	return g
}

func round1(v float64) float64 {
	if v < 0 {
		return -float64(int64(-v*10+0.5)) / 10
	}
	return float64(int64(v*10+0.5)) / 10
}
