package interval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// mentions is a mention-rate figure: per prompt, mentions out of answers.
func mentions(per []float64, answers float64) Ratio {
	den := make([]float64, len(per))
	for i := range den {
		den[i] = answers
	}
	return Ratio{Num: per, Den: den, Scale: 100}
}

func TestBootstrapReproducesFromTheSeed(t *testing.T) {
	per := make([]float64, 40)
	for i := range per {
		per[i] = float64(i * 7 % 11)
	}
	fig := mentions(per, 10)
	a := Bootstrap(Seed("run-1"), 40, []Ratio{fig})
	b := Bootstrap(Seed("run-1"), 40, []Ratio{fig})
	c := Bootstrap(Seed("run-2"), 40, []Ratio{fig})
	if a[0].Interval == nil || *a[0].Interval != *b[0].Interval {
		t.Fatalf("same run, two intervals: %+v %+v", a[0].Interval, b[0].Interval)
	}
	if *a[0].Interval == *c[0].Interval {
		t.Fatalf("another run's seed gave the same interval %+v", *c[0].Interval)
	}
	v, _ := Figure{Num: 0, Den: 1, Scale: 100}.value([][]float64{fig.Num, fig.Den})
	if iv := a[0].Interval; iv.Low > v || iv.High < v || iv.Low < 0 || iv.High > 100 {
		t.Fatalf("interval %+v does not hold the figure %.1f within 0-100", *iv, v)
	}
}

func TestNoIntervalUnderFivePrompts(t *testing.T) {
	for n := 0; n <= 5; n++ {
		per := make([]float64, n)
		for i := range per {
			per[i] = float64(i % 2)
		}
		r := Bootstrap(1, n, []Ratio{mentions(per, 1)})[0]
		if n < MinPrompts && (r.Interval != nil || r.Note != NoteFewPrompts) {
			t.Fatalf("%d prompts: got %+v, want no interval and a note", n, r)
		}
		if n >= MinPrompts && r.Interval == nil {
			t.Fatalf("%d prompts: no interval (%s)", n, r.Note)
		}
	}
	if r := Paired(1, 4, []Ratio{mentions([]float64{1, 1, 1, 1}, 1)}, []Ratio{mentions([]float64{0, 0, 0, 0}, 1)})[0]; r.Interval != nil || r.Note != NoteFewShared {
		t.Fatalf("4 shared prompts: got %+v", r)
	}
}

func TestAFigureWithoutValueHasNoInterval(t *testing.T) {
	// Average position over no mention at all.
	r := Bootstrap(1, 6, []Ratio{{Num: make([]float64, 6), Den: make([]float64, 6), Scale: 1}})[0]
	if r.Interval != nil || r.Note != NoteNoValue {
		t.Fatalf("got %+v", r)
	}
}

func TestPairedChangeIsSignificantOnlyWhenItsIntervalExcludesZero(t *testing.T) {
	same := mentions([]float64{1, 2, 0, 3, 2, 1, 2, 0, 1, 3, 2, 1}, 3)
	r := Paired(Seed("x"), 12, []Ratio{same}, []Ratio{same})[0]
	if r.Interval == nil || r.Interval.Low != 0 || r.Interval.High != 0 || r.Interval.Excludes0() {
		t.Fatalf("a run against itself: %+v", r.Interval)
	}
	up := mentions([]float64{3, 3, 2, 3, 3, 3, 3, 2, 3, 3, 3, 3}, 3)
	r = Paired(Seed("x"), 12, []Ratio{up}, []Ratio{same})[0]
	if r.Interval == nil || !r.Interval.Excludes0() || r.Interval.Low <= 0 {
		t.Fatalf("a clear rise: %+v", r.Interval)
	}
	if (Interval{Low: -1, High: 2}).Excludes0() || !(Interval{Low: -3, High: -0.1}).Excludes0() || (Interval{Low: 0, High: 2}).Excludes0() {
		t.Fatal("Excludes0 is wrong")
	}
}

func TestPairedResamplesBothRunsWithTheSameDraws(t *testing.T) {
	// Prompt-to-prompt spread is large but each prompt moves by exactly
	// +1 mention: resampling the runs apart would give a wide interval,
	// pairing gives exactly +1/3 × 100.
	prev := mentions([]float64{0, 0, 2, 0, 2, 0, 2, 0, 2, 0}, 3)
	cur := mentions([]float64{1, 1, 3, 1, 3, 1, 3, 1, 3, 1}, 3)
	r := Paired(7, 10, []Ratio{cur}, []Ratio{prev})[0]
	want := 100.0 / 3
	if math.Abs(r.Interval.Low-want) > 1e-9 || math.Abs(r.Interval.High-want) > 1e-9 {
		t.Fatalf("got %+v, want [%.4f, %.4f]", *r.Interval, want, want)
	}
}

func TestStudentQuantiles(t *testing.T) {
	for df, want := range map[int]float64{1: 12.706, 4: 2.776, 9: 2.262, 24: 2.064, 49: 2.010, 1000: 1.962} {
		if got := studentT975(df); math.Abs(got-want) > 0.002 {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", df, got, want)
		}
	}
	lo, hi := percentiles(1_000_000)
	if math.Abs(lo-0.025) > 1e-4 || math.Abs(hi-0.975) > 1e-4 {
		t.Errorf("many prompts: levels %.4f %.4f, want 2.5%% and 97.5%%", lo, hi)
	}
	if lo, _ := percentiles(25); lo > 0.02 || lo < 0.015 {
		t.Errorf("25 prompts: lower level %.4f, want the expanded 1.5-2%%", lo)
	}
}

func TestQuantileMatchesSortedOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(300)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(r.IntN(20)) // many ties
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		p := r.Float64()
		h := p * float64(n-1)
		k := int(math.Floor(h))
		want := sorted[k]
		if k+1 < n {
			want += (h - float64(k)) * (sorted[k+1] - sorted[k])
		}
		if got := quantile(vals, p); math.Abs(got-want) > 1e-9 {
			t.Fatalf("n=%d p=%.3f: got %v want %v", n, p, got, want)
		}
	}
}
