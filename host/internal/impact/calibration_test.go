package impact

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/tracker"
)

// The effect's calibration: a scripted tracker of 20 (or 10) prompts,
// some of them targeted, asked daily on 2 engines for 14 days before
// publishing and 14 after; each prompt's answers name the brand with a
// known probability of its own (seeded), the targets' raised by shift
// after publishing. The real Compute reads each of 800 simulated posts per
// design, and the test fails outside what docs/IMPACT.md promises of every
// interval and significance:
//   - coverage: the 95% interval holds the true effect (100 × shift: the
//     targets' expected change less the controls', which is 0) in ≥ 93%
//     of posts;
//   - false alarms: with nothing changed (shift 0) the effect is marked
//     significant in ≤ 6% of posts;
//   - detection: a true 20-point rise on 10 targets of 20 is marked
//     significant in ≥ 80% of posts (fewer targets detect less: reported).
//
// The designs with few targets (4 of 20, 3 of 10) are the ones the
// interval's ends must be set from the groups for: with the ends set from
// all the prompts they gave 92% and 90% coverage, 8% and 10% false alarms.
// It fails with the plain 2.5%/97.5% ends and with draws that miss a
// tenth of the prompts.
var calPosts = 800

var calDesigns = []struct{ prompts, targets int }{{20, 10}, {20, 4}, {10, 3}}

// calPost is one simulated post's tracker data: prompts prompts, the
// first targets of them tagged "target", one run a day on 2 engines from
// 14 days before publishing to 13 days after.
func calPost(r *rand.Rand, prompts, targets int, shift float64) tracker.ImpactData {
	data := tracker.ImpactData{TrackerID: "tr", Domain: "acme.com"}
	p := make([]float64, prompts)
	for i := range p {
		p[i] = 0.1 + 0.6*r.Float64() // ≤ 0.7, so a 20-point rise stays one
		pr := tracker.ImpactPrompt{ID: fmt.Sprintf("p_%d", i)}
		if i < targets {
			pr.Tags = []string{"target"}
		}
		data.Prompts = append(data.Prompts, pr)
	}
	for d := -BaselineDays; d < 14; d++ {
		run := tracker.ImpactRun{At: pub.AddDate(0, 0, d).Add(time.Hour)}
		for i, pr := range data.Prompts {
			q := p[i]
			if d >= 0 && i < targets {
				q += shift
			}
			for _, engine := range []string{"openai", "perplexity"} {
				a := tracker.ImpactAnswer{Prompt: pr.ID, Engine: engine}
				if r.Float64() < q {
					a.Weight, a.Mentioned = 1, true
				}
				run.Answers = append(run.Answers, a)
			}
		}
		data.Runs = append(data.Runs, run)
	}
	return data
}

func TestEffectCalibration(t *testing.T) {
	for _, d := range calDesigns {
		for _, c := range []struct {
			name  string
			shift float64
		}{{"unchanged", 0}, {"a 20-point rise", 0.2}} {
			t.Run(fmt.Sprintf("%d of %d targeted, %s", d.targets, d.prompts, c.name), func(t *testing.T) {
				r := rand.New(rand.NewPCG(41, uint64(c.shift*100)+uint64(d.targets)<<8))
				covered, significant, total := 0, 0, 0
				for k := range calPosts {
					data := calPost(r, d.prompts, d.targets, c.shift)
					f := Compute(data, Post{ScheduleID: fmt.Sprintf("cal-%d", k), PublishedAt: pub, Targets: []string{"target"}}, pub.AddDate(0, 0, 14).Add(-time.Minute))
					for _, e := range f.Effects {
						if e.Figure != FigMentionRate {
							continue
						}
						if e.Interval == nil {
							t.Fatalf("post %d: no interval (%s)", k, e.Note)
						}
						total++
						if e.Interval.Low <= 100*c.shift && 100*c.shift <= e.Interval.High {
							covered++
						}
						if e.Significant {
							significant++
						}
					}
				}
				cov, sig := float64(covered)/float64(total), float64(significant)/float64(total)
				t.Logf("interval holds the true effect in %.1f%% of %d posts, significant in %.1f%%", 100*cov, total, 100*sig)
				if cov < 0.93 {
					t.Errorf("coverage %.1f%%, want ≥ 93%%", 100*cov)
				}
				if c.shift == 0 && sig > 0.06 {
					t.Errorf("false alarms %.1f%%, want ≤ 6%%", 100*sig)
				}
				if c.shift > 0 && d.targets == 10 && sig < 0.80 {
					t.Errorf("detection %.1f%%, want ≥ 80%%", 100*sig)
				}
			})
		}
	}
}
