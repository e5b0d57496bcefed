// Package interval says how sure a figure measured over a set of prompts
// is: a bootstrap over prompts (resample the prompts with replacement,
// each with all of its answers) gives a 95% interval for a figure of one
// run, and a paired bootstrap over the prompts two runs share gives a 95%
// interval for the change between them; a change is significant when its
// interval excludes 0 (docs/METRICS.md, "Samples, intervals and real
// change").
//
// Every figure Herald reports is a ratio of two sums over answers
// (visibility: position weights over answers; average position: positions
// over mentions; ...), so a figure is given here as, per prompt, the sum
// of the numerator and of the denominator over that prompt's answers. The
// package is pure: no store, no clock, no global randomness; the seed
// comes from the run's id, so an interval reproduces.
package interval

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// Defaults of a bootstrap.
const (
	// Resamples is how many times the prompts are resampled.
	Resamples = 2000
	// MinPrompts is the fewest prompts an interval is given for.
	MinPrompts = 5
	// Level is the interval's coverage.
	Level = 0.95
)

// Notes of a figure without an interval.
const (
	NoteFewPrompts = "no interval: fewer than 5 prompts were answered; with so few prompts the spread over prompts says nothing reliable"
	NoteNoValue    = "no interval: the figure has no value in this run"
	NoteFewShared  = "no interval: the two runs share fewer than 5 answered prompts"
)

// Interval is a 95% interval [Low, High].
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Excludes0 reports whether the interval lies wholly above or below 0.
func (iv Interval) Excludes0() bool { return iv.Low > 0 || iv.High < 0 }

// Ratio is one figure of a run: per prompt (the same prompt order for
// every Ratio of a Sample), the sums over that prompt's answers of the
// numerator and of the denominator; the figure is Scale × ΣNum / ΣDen.
type Ratio struct {
	Num, Den []float64
	Scale    float64
}

// Result is a figure's interval, or why it has none.
type Result struct {
	// Interval is nil when the figure has no interval; Note says why.
	Interval *Interval
	Note     string
	// Prompts is how many prompts the bootstrap resampled.
	Prompts int
}

// Seed derives a bootstrap's seed from a run's id (FNV-1a), so that
// reading a run twice gives the same interval.
func Seed(id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return h.Sum64()
}

// draws are the resamples: Resamples rows of n prompt indices.
type draws struct {
	n   int
	idx []int32
}

func newDraws(seed uint64, n int) draws {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	d := draws{n: n, idx: make([]int32, Resamples*n)}
	for i := range d.idx {
		d.idx[i] = int32(r.IntN(n))
	}
	return d
}

// Figure is a figure given by columns: Scale × ΣCols[Num] / ΣCols[Den]
// over the prompts. Figures of one run share columns (the answers are
// the denominator of several), which is what makes BootstrapColumns
// cheaper than one Ratio per figure.
type Figure struct {
	Num, Den int
	Scale    float64
}

// Bootstrap gives each figure its interval over n prompts, every figure
// resampled with the same draws (seeded by seed). Fewer than MinPrompts
// prompts: no interval and NoteFewPrompts.
func Bootstrap(seed uint64, n int, figs []Ratio) []Result {
	cols, fs := ratioColumns(figs)
	return BootstrapColumns(seed, n, cols, fs)
}

// Paired gives each figure's change (cur − prev) its interval over the
// n prompts both runs share, cur[i] and prev[i] the same figure of the
// two runs over those prompts in the same order: each resample draws the
// same prompts for both runs. Fewer than MinPrompts shared prompts: no
// interval and NoteFewShared.
func Paired(seed uint64, n int, cur, prev []Ratio) []Result {
	cc, fs := ratioColumns(cur)
	pc, _ := ratioColumns(prev)
	return PairedColumns(seed, n, cc, pc, fs)
}

func ratioColumns(figs []Ratio) ([][]float64, []Figure) {
	cols := make([][]float64, 0, 2*len(figs))
	fs := make([]Figure, len(figs))
	for i, r := range figs {
		fs[i] = Figure{Num: len(cols), Den: len(cols) + 1, Scale: r.Scale}
		cols = append(cols, r.Num, r.Den)
	}
	return cols, fs
}

// BootstrapColumns is Bootstrap over columns: cols[c][p] is column c's sum
// over prompt p's answers (n prompts).
func BootstrapColumns(seed uint64, n int, cols [][]float64, figs []Figure) []Result {
	out := make([]Result, len(figs))
	if n < MinPrompts {
		for i := range out {
			out[i] = Result{Note: NoteFewPrompts, Prompts: n}
		}
		return out
	}
	return newDraws(seed, n).run(cols, nil, figs, out)
}

// PairedColumns is Paired over columns: cur and prev hold the same
// columns of the two runs over the n shared prompts.
func PairedColumns(seed uint64, n int, cur, prev [][]float64, figs []Figure) []Result {
	out := make([]Result, len(figs))
	if n < MinPrompts {
		for i := range out {
			out[i] = Result{Note: NoteFewShared, Prompts: n}
		}
		return out
	}
	return newDraws(seed, n).run(cur, prev, figs, out)
}

// value is a figure over every prompt, ok false when its denominator is 0.
func (f Figure) value(cols [][]float64) (float64, bool) {
	var n, d float64
	for p := range cols[f.Num] {
		n += cols[f.Num][p]
		d += cols[f.Den][p]
	}
	if d == 0 {
		return 0, false
	}
	return f.Scale * n / d, true
}

// run resamples every figure (the change against prev when prev is not
// nil) and reads the interval off each figure's resampled values. The
// columns are laid out prompt by prompt, so one resample adds each drawn
// prompt's row (times its count) into one accumulator per column: the
// cost is resamples × distinct prompts drawn × columns, with no scattered
// reads.
func (d draws) run(cols, prev [][]float64, figs []Figure, out []Result) []Result {
	lo, hi := percentiles(d.n)
	var live []int // the figures with a value
	for f, fig := range figs {
		out[f].Prompts = d.n
		_, ok := fig.value(cols)
		if ok && prev != nil {
			_, ok = fig.value(prev)
		}
		if !ok {
			out[f].Note = NoteNoValue
			continue
		}
		live = append(live, f)
	}
	all := cols
	if prev != nil {
		all = append(slices.Clip(cols), prev...) // prev's column c is len(cols)+c
	}
	width := len(all)
	rows := make([]float64, d.n*width)
	for c, col := range all {
		for p := 0; p < d.n; p++ {
			rows[p*width+c] = col[p]
		}
	}
	vals := make([][]float64, len(live))
	for j := range vals {
		vals[j] = make([]float64, 0, Resamples)
	}
	acc := make([]float64, width)
	count := make([]float64, d.n)
	off := len(cols)
	for b := 0; b < Resamples; b++ {
		clear(count)
		for _, i := range d.idx[b*d.n : (b+1)*d.n] {
			count[i]++
		}
		clear(acc)
		for p, c := range count {
			if c == 0 {
				continue
			}
			row := rows[p*width : (p+1)*width]
			a := acc[:len(row)]
			for k, v := range row {
				a[k] += c * v
			}
		}
		for j, f := range live {
			fig := figs[f]
			if acc[fig.Den] == 0 || (prev != nil && acc[off+fig.Den] == 0) {
				continue
			}
			v := fig.Scale * acc[fig.Num] / acc[fig.Den]
			if prev != nil {
				v -= fig.Scale * acc[off+fig.Num] / acc[off+fig.Den]
			}
			vals[j] = append(vals[j], v)
		}
	}
	for j, f := range live {
		if len(vals[j]) == 0 {
			out[f].Note = NoteNoValue
			continue
		}
		low, high := quantiles(vals[j], lo, hi)
		out[f].Interval = &Interval{Low: low, High: high}
	}
	return out
}

// percentiles are the levels of the resampled values read as the
// interval's ends. The plain percentile interval (2.5% and 97.5%) is too
// narrow over few prompts: it behaves like a normal interval whose spread
// is divided by n instead of n − 1, so over 25 prompts a "95%" interval
// covers about 93%. The expanded percentile interval (Hesterberg, "What
// teachers should know about the bootstrap", 2015) reads the levels
// Φ(±√(n/(n−1))·t) instead, t the 97.5% quantile of Student's t with n − 1
// degrees of freedom: about 1.8% and 98.2% over 25 prompts, tending to
// 2.5% and 97.5% as prompts grow.
func percentiles(n int) (lo, hi float64) {
	z := math.Sqrt(float64(n)/float64(n-1)) * studentT975(n-1)
	lo = 0.5 * math.Erfc(z/math.Sqrt2)
	return lo, 1 - lo
}

// studentT975 is the 97.5% quantile of Student's t with df degrees of
// freedom: exact values up to 4, the Cornish–Fisher expansion beyond
// (within 0.001 from 4 on).
func studentT975(df int) float64 {
	switch df {
	case 1:
		return 12.7062
	case 2:
		return 4.3027
	case 3:
		return 3.1824
	}
	const z = 1.959963984540054
	v := float64(df)
	z3, z5, z7, z9 := z*z*z, math.Pow(z, 5), math.Pow(z, 7), math.Pow(z, 9)
	return z + (z3+z)/(4*v) + (5*z5+16*z3+3*z)/(96*v*v) + (3*z7+19*z5+17*z3-15*z)/(384*v*v*v) +
		(79*z9+776*z7+1482*z5-1920*z3-945*z)/(92160*v*v*v*v)
}

// quantile is the p-quantile of vals (linear between order statistics,
// the "type 7" definition).
func quantile(vals []float64, p float64) float64 {
	lo, hi := quantiles(vals, p, p)
	if p < 0.5 {
		return lo
	}
	return hi
}

// quantiles are the pLo- and pHi-quantiles of vals (pLo < 0.5 < pHi or
// equal), read in one pass from the few smallest and largest values kept
// sorted: the interval's ends are far in the tails, so this is much less
// work than selecting twice over all the values.
func quantiles(vals []float64, pLo, pHi float64) (float64, float64) {
	n := len(vals)
	if n == 1 {
		return vals[0], vals[0]
	}
	hLo, hHi := pLo*float64(n-1), pHi*float64(n-1)
	kLo, kHi := int(math.Floor(hLo)), int(math.Floor(hHi))
	// The kLo+2 smallest values ascending, the n-kHi+1 largest descending.
	small := make([]float64, 0, min(n, kLo+2))
	large := make([]float64, 0, min(n, n-kHi+1))
	for _, v := range vals {
		// Most values enter neither list once both are full: that test
		// inline, keep for the rest.
		if len(small) < cap(small) || v < small[len(small)-1] {
			small = keep(small, v, func(a, b float64) bool { return a < b })
		}
		if len(large) < cap(large) || v > large[len(large)-1] {
			large = keep(large, v, func(a, b float64) bool { return a > b })
		}
	}
	at := func(k int) float64 { // the k-th smallest (0-based)
		if k < len(small) {
			return small[k]
		}
		return large[n-1-k]
	}
	interp := func(h float64, k int) float64 {
		if k+1 >= n {
			return at(k)
		}
		return at(k) + (h-float64(k))*(at(k+1)-at(k))
	}
	return interp(hLo, kLo), interp(hHi, kHi)
}

// keep inserts v into list, kept ordered by before and no longer than its
// capacity (the values that come first).
func keep(list []float64, v float64, before func(a, b float64) bool) []float64 {
	if len(list) == cap(list) {
		if len(list) == 0 || !before(v, list[len(list)-1]) {
			return list
		}
		list = list[:len(list)-1]
	}
	i := len(list)
	list = append(list, v)
	for i > 0 && before(v, list[i-1]) {
		list[i] = list[i-1]
		i--
	}
	list[i] = v
	return list
}
