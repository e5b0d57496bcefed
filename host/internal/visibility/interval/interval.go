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

// value is the figure over the prompts, ok false when ΣDen is 0.
func (r Ratio) value() (float64, bool) {
	var n, d float64
	for i := range r.Num {
		n += r.Num[i]
		d += r.Den[i]
	}
	if d == 0 {
		return 0, false
	}
	return r.Scale * n / d, true
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

// Bootstrap gives each figure its interval over n prompts, every figure
// resampled with the same draws (seeded by seed). Fewer than MinPrompts
// prompts: no interval and NoteFewPrompts.
func Bootstrap(seed uint64, n int, figs []Ratio) []Result {
	out := make([]Result, len(figs))
	if n < MinPrompts {
		for i := range out {
			out[i] = Result{Note: NoteFewPrompts, Prompts: n}
		}
		return out
	}
	d := newDraws(seed, n)
	return d.run(figs, nil, out)
}

// Paired gives each figure's change (cur − prev) its interval over the
// n prompts both runs share, cur[i] and prev[i] the same figure of the
// two runs over those prompts in the same order: each resample draws the
// same prompts for both runs. Fewer than MinPrompts shared prompts: no
// interval and NoteFewShared.
func Paired(seed uint64, n int, cur, prev []Ratio) []Result {
	out := make([]Result, len(cur))
	if n < MinPrompts {
		for i := range out {
			out[i] = Result{Note: NoteFewShared, Prompts: n}
		}
		return out
	}
	d := newDraws(seed, n)
	return d.run(cur, prev, out)
}

// run resamples every figure (the change against prev when prev is not
// nil) and reads the interval off each figure's resampled values.
func (d draws) run(figs, prev []Ratio, out []Result) []Result {
	lo, hi := percentiles(d.n)
	vals := make([]float64, 0, Resamples)
	for f := range figs {
		out[f].Prompts = d.n
		if _, ok := figs[f].value(); !ok {
			out[f].Note = NoteNoValue
			continue
		}
		if prev != nil {
			if _, ok := prev[f].value(); !ok {
				out[f].Note = NoteNoValue
				continue
			}
		}
		vals = vals[:0]
		for b := 0; b < Resamples; b++ {
			row := d.idx[b*d.n : (b+1)*d.n]
			v, ok := resampled(figs[f], row)
			if !ok {
				continue
			}
			if prev != nil {
				w, ok := resampled(prev[f], row)
				if !ok {
					continue
				}
				v -= w
			}
			vals = append(vals, v)
		}
		if len(vals) == 0 {
			out[f].Note = NoteNoValue
			continue
		}
		out[f].Interval = &Interval{Low: quantile(vals, lo), High: quantile(vals, hi)}
	}
	return out
}

func resampled(r Ratio, row []int32) (float64, bool) {
	var n, d float64
	num, den := r.Num, r.Den
	for _, i := range row {
		n += num[i]
		d += den[i]
	}
	if d == 0 {
		return 0, false
	}
	return r.Scale * n / d, true
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
// the "type 7" definition); vals is reordered.
func quantile(vals []float64, p float64) float64 {
	if len(vals) == 1 {
		return vals[0]
	}
	h := p * float64(len(vals)-1)
	k := int(math.Floor(h))
	a := nth(vals, k)
	if k+1 >= len(vals) {
		return a
	}
	// After nth, the elements above k are ≥ vals[k]: the next order
	// statistic is their minimum.
	b := slices.Min(vals[k+1:])
	return a + (h-float64(k))*(b-a)
}

// nth puts the k-th smallest value at vals[k] (Hoare's selection) and
// returns it.
func nth(vals []float64, k int) float64 {
	lo, hi := 0, len(vals)-1
	for lo < hi {
		p := vals[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for vals[i] < p {
				i++
			}
			for vals[j] > p {
				j--
			}
			if i <= j {
				vals[i], vals[j] = vals[j], vals[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return vals[k]
		}
	}
	return vals[k]
}
