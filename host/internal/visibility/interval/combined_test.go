package interval

import (
	"math"
	"testing"
)

// Every index is equally likely, including where 2³² is not a multiple
// of n: for n = 3·2³⁰ the multiply-shift alone maps two of every four
// 32-bit values to the indices ≡ 0 (mod 3) and one to each of the
// others (frequencies 1/2, 1/4, 1/4); the rejection of low products
// under 2³² mod n makes them a third each.
func TestBulkIndicesAreUniform(t *testing.T) {
	const draws = 300_000
	for _, n := range []int{5, 7, 20, 3 << 30} {
		g := newBulkIndices(Seed("uniform"), n)
		buckets := min(n, 20)
		count := make([]float64, buckets)
		for range draws {
			i := g.next()
			if i < 0 || i >= n {
				t.Fatalf("n=%d: index %d out of range", n, i)
			}
			if n == 3<<30 {
				count[i%3]++
			} else {
				count[i]++
			}
		}
		if n == 3<<30 {
			buckets, count = 3, count[:3]
		}
		// Pearson's χ² against uniform; the 99.9% point of χ² with 19
		// degrees of freedom is 43.8, with fewer lower still.
		chi := 0.0
		want := float64(draws) / float64(buckets)
		for _, c := range count {
			chi += (c - want) * (c - want) / want
		}
		if chi > 45 {
			t.Errorf("n=%d: χ² = %.1f over %d buckets (%v), not uniform", n, chi, buckets, count)
		}
	}
}

// Two indices come from each 64-bit draw, in order: the low half first.
func TestBulkIndicesUseBothHalves(t *testing.T) {
	g := newBulkIndices(42, 1<<16)
	ref := newBulkIndices(42, 1<<16)
	for range 100 {
		x := ref.pcg.Uint64()
		lo, hi := int(uint32(x)>>16), int(x>>48)
		if a, b := g.next(), g.next(); a != lo || b != hi {
			t.Fatalf("indices %d %d from draw %#x, want %d %d", a, b, x, lo, hi)
		}
	}
}

// effectCols is one post's columns as the impact lays them out: for the
// targets then the controls, baseline then after, answers then mentions.
func effectCols(targets []bool, before, after []float64, answers float64) ([][]float64, []Combined) {
	n := len(targets)
	cols := make([][]float64, 8)
	for c := range cols {
		cols[c] = make([]float64, n)
	}
	for p, isT := range targets {
		g := 0
		if !isT {
			g = 4
		}
		cols[g][p], cols[g+1][p] = answers, before[p]
		cols[g+2][p], cols[g+3][p] = answers, after[p]
	}
	term := func(g int, w float64) Term { return Term{Num: g + 1, Den: g, Weight: w, Scale: 100} }
	return cols, []Combined{{term(2, 1), term(0, -1), term(6, -1), term(4, 1)}}
}

func TestBootstrapCombinedReproducesAndHoldsItsValue(t *testing.T) {
	targets := []bool{true, true, true, false, false, false, false, false, false, false}
	before := []float64{1, 0, 2, 3, 1, 2, 0, 1, 3, 2}
	after := []float64{3, 2, 3, 2, 1, 3, 0, 2, 3, 1}
	cols, figs := effectCols(targets, before, after, 3)
	a := BootstrapCombined(Seed("s1"), 10, nil, cols, figs)[0]
	b := BootstrapCombined(Seed("s1"), 10, nil, cols, figs)[0]
	c := BootstrapCombined(Seed("s2"), 10, nil, cols, figs)[0]
	if a.Interval == nil || b.Interval == nil || *a.Interval != *b.Interval {
		t.Fatalf("same seed, two intervals: %+v %+v", a.Interval, b.Interval)
	}
	if *a.Interval == *c.Interval {
		t.Fatalf("another seed gave the same interval %+v", *c.Interval)
	}
	v, ok := figs[0].Value(cols)
	if !ok || a.Interval.Low > v || a.Interval.High < v {
		t.Fatalf("interval %+v does not hold the value %.2f", *a.Interval, v)
	}
	if r := BootstrapCombined(1, 4, nil, cols, figs)[0]; r.Interval != nil || r.Note != NoteFewPrompts {
		t.Fatalf("4 prompts: %+v", r)
	}
}

// Every prompt moves by exactly the same amount in its group: whatever
// prompts a resample draws, the effect is the same, so the interval is
// that one point. A resample that drew the prompts unevenly across a
// prompt's columns (adding a row at the wrong offset) would spread it.
func TestBootstrapCombinedOfAConstantShiftIsAPoint(t *testing.T) {
	targets := []bool{true, false, true, false, false, true, false, false, false, false, false, false}
	before := []float64{0, 1, 1, 2, 0, 2, 1, 0, 2, 1, 0, 2}
	after := make([]float64, len(before))
	for p := range before {
		after[p] = before[p]
		if targets[p] {
			after[p]++ // +1 of 3 answers on every target, nothing on the controls
		}
	}
	cols, figs := effectCols(targets, before, after, 3)
	r := BootstrapCombined(Seed("point"), len(targets), nil, cols, figs)[0]
	want := 100.0 / 3
	if r.Interval == nil || math.Abs(r.Interval.Low-want) > 1e-9 || math.Abs(r.Interval.High-want) > 1e-9 {
		t.Fatalf("got %+v, want [%.4f, %.4f]", r.Interval, want, want)
	}
}

func BenchmarkBootstrapCombined(b *testing.B) {
	targets := make([]bool, 20)
	before, after := make([]float64, 20), make([]float64, 20)
	for p := range targets {
		targets[p] = p%5 == 0
		before[p], after[p] = float64(p%4), float64((p+1)%4)
	}
	cols, figs := effectCols(targets, before, after, 28)
	figs = append(figs, figs[0])
	for b.Loop() {
		BootstrapCombined(Seed("bench"), 20, []int{10, 10}, cols, figs)
	}
}

// One group gives the expanded percentile levels over its prompts; a
// group of one prompt adds nothing; a small group widens the ends past
// those of all the prompts together.
func TestGroupPercentiles(t *testing.T) {
	for _, n := range []int{5, 9, 25, 200} {
		lo, hi := groupPercentiles(n, []int{n})
		wlo, whi := percentiles(n)
		if math.Abs(lo-wlo) > 1e-12 || math.Abs(hi-whi) > 1e-12 {
			t.Errorf("one group of %d: %g–%g, want %g–%g", n, lo, hi, wlo, whi)
		}
		if glo, _ := groupPercentiles(n+1, []int{1, n}); math.Abs(glo-wlo) > 1e-12 {
			t.Errorf("a single-prompt group beside %d: %g, want %g", n, glo, wlo)
		}
	}
	all, _ := percentiles(20)
	even, _ := groupPercentiles(20, []int{10, 10})
	few, _ := groupPercentiles(20, []int{4, 16})
	if !(few < even && even < all) {
		t.Errorf("lower ends: 4+16 %g, 10+10 %g, all 20 %g; want them in that order", few, even, all)
	}
	if lo, hi := groupPercentiles(7, nil); lo <= 0 || hi >= 1 || math.Abs(lo+hi-1) > 1e-12 {
		t.Errorf("no groups: %g–%g", lo, hi)
	}
}
