package interval

import (
	"math"
	"math/rand/v2"
	"slices"
)

// A combined figure is a weighted sum of ratios over the same prompts:
// the impact of a post, (after − before on the targeted prompts) −
// (after − before on the other prompts), is four ratios with weights +1,
// −1, −1, +1, each over the prompts of its group (a prompt outside a group
// has zeros in that group's columns). It is resampled like every other
// figure: the prompts with replacement, each with all its answers, 2,000
// resamples seeded by the caller; its own are the interval's ends, set from
// the sizes of the groups it compares (groupPercentiles), and the way the
// resampled prompts are drawn (bulkIndices: two prompts from
// each 64-bit draw), because an impact view bootstraps every post of a
// tracker on each read.

// Term is one ratio of a combined figure: Weight × Scale × ΣCols[Num] /
// ΣCols[Den].
type Term struct {
	Num, Den int
	Weight   float64
	Scale    float64
}

// Combined is a figure that is a sum of terms.
type Combined []Term

// value is the combined figure from the column sums acc, ok false when a
// term's denominator is 0.
func (c Combined) value(acc []float64) (float64, bool) {
	v := 0.0
	for _, t := range c {
		if acc[t.Den] == 0 {
			return 0, false
		}
		v += t.Weight * t.Scale * acc[t.Num] / acc[t.Den]
	}
	return v, true
}

// Value is the combined figure over all n prompts, ok false when a term
// has no value.
func (c Combined) Value(cols [][]float64) (float64, bool) {
	acc := make([]float64, len(cols))
	for k, col := range cols {
		for _, v := range col {
			acc[k] += v
		}
	}
	return c.value(acc)
}

// bulkIndices draws uniform prompt indices in [0, n) from a PCG stream:
// each 64-bit output gives two 32-bit halves, low half first, and each
// half one index by Lemire's multiply-shift (the high 32 bits of half × n).
// A half whose low product falls under 2³² mod n is rejected (replaced by
// the low half of a fresh output), so that every index is exactly equally
// likely. Half the generator calls of one 64-bit draw per index, and no
// call through an interface.
type bulkIndices struct {
	pcg    *rand.PCG
	n      uint64
	thresh uint32 // 2³² mod n: low products below it are rejected
	spare  uint64 // the last output, its high half not used yet when has
	has    bool
}

func newBulkIndices(seed uint64, n int) *bulkIndices {
	return &bulkIndices{pcg: rand.NewPCG(seed, seed^0x9e3779b97f4a7c15), n: uint64(n), thresh: uint32(-uint32(n) % uint32(n))}
}

// fill draws len(idx) indices into idx.
func (g *bulkIndices) fill(idx []int) {
	spare, has, n, thresh := g.spare, g.has, g.n, g.thresh
	for i := range idx {
		var h uint32
		if has {
			h, has = uint32(spare>>32), false
		} else {
			spare, has = g.pcg.Uint64(), true
			h = uint32(spare)
		}
		m := uint64(h) * n
		for uint32(m) < thresh {
			m = uint64(uint32(g.pcg.Uint64())) * n
		}
		idx[i] = int(m >> 32)
	}
	g.spare, g.has = spare, has
}

// next is the next index.
func (g *bulkIndices) next() int {
	var one [1]int
	g.fill(one[:])
	return one[0]
}

// BootstrapCombined gives each combined figure its interval over n prompts
// (cols[c][p]: column c summed over prompt p's answers): 2,000 resamples of
// the n prompts with replacement drawn by bulkIndices seeded by seed, so
// the same seed gives the same interval. A resample in which a term has no
// value (none of its group's prompts drawn) is left out. Fewer than
// MinPrompts prompts: no interval and NoteFewPrompts. groups are the sizes
// of the groups of prompts the figure compares (the targets and the other
// prompts; they sum to n), which set the interval's ends (groupPercentiles).
func BootstrapCombined(seed uint64, n int, groups []int, cols [][]float64, figs []Combined) []Result {
	out := make([]Result, len(figs))
	for i := range out {
		out[i].Prompts = n
	}
	if n < MinPrompts {
		for i := range out {
			out[i].Note = NoteFewPrompts
		}
		return out
	}
	lo, hi := groupPercentiles(n, groups)
	live := make([]bool, len(figs))
	for f, fig := range figs {
		if _, ok := fig.Value(cols); ok {
			live[f] = true
		} else {
			out[f].Note = NoteNoValue
		}
	}
	// A resample's column sums are dot products of the prompts' draw
	// counts with the columns. The prompts are ordered by the first column
	// they have a value in (a prompt has zeros in the columns of the
	// groups it is not in, and the columns of a group are side by side),
	// so each column's non-zero values lie in one short range of the order
	// and its dot product runs over that range only. Ordering the prompts
	// relabels them and changes nothing else: each draw is still uniform
	// over all n prompts.
	order := make([]int, n)
	firstCol := make([]int, n)
	for p := range order {
		order[p] = p
		firstCol[p] = len(cols)
		for k, col := range cols {
			if col[p] != 0 {
				firstCol[p] = k
				break
			}
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return firstCol[a] - firstCol[b] })
	sorted := make([][]float64, len(cols))
	from, to := make([]int, len(cols)), make([]int, len(cols))
	for k, col := range cols {
		sorted[k] = make([]float64, n)
		from[k], to[k] = n, 0
		for i, p := range order {
			sorted[k][i] = col[p]
			if col[p] != 0 {
				from[k], to[k] = min(from[k], i), i+1
			}
		}
	}
	vals := make([]float64, len(figs)*Resamples)
	got := make([]int, len(figs)) // resampled values kept per figure
	acc := make([]float64, len(cols))
	idx := make([]int, n)
	count := make([]float64, n)
	draw := newBulkIndices(seed, n)
	for b := 0; b < Resamples; b++ {
		draw.fill(idx)
		clear(count)
		for _, p := range idx {
			count[p]++
		}
		for k, col := range sorted {
			acc[k] = dot(count[from[k]:max(from[k], to[k])], col[from[k]:max(from[k], to[k])])
		}
		for f, fig := range figs {
			if !live[f] {
				continue
			}
			if v, ok := fig.value(acc); ok {
				vals[f*Resamples+got[f]] = v
				got[f]++
			}
		}
	}
	for f := range figs {
		if !live[f] {
			continue
		}
		if got[f] == 0 {
			out[f].Note = NoteNoValue
			continue
		}
		low, high := quantiles(vals[f*Resamples:f*Resamples+got[f]], lo, hi)
		out[f].Interval = &Interval{Low: low, High: high}
	}
	return out
}

// dot is Σ a[i]·b[i] (len(a) == len(b)), two sums in turn so that the
// additions do not all wait on each other.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1 float64
	i := 0
	for ; i+1 < len(a); i += 2 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
	}
	if i < len(a) {
		s0 += a[i] * b[i]
	}
	return s0 + s1
}

// groupPercentiles are the levels read as a combined figure's ends. The
// figure compares groups of prompts (a post's targets and the tracker's
// other prompts), and its spread is that of a difference of group means:
// with few prompts in one group, the expanded percentile levels over all
// n prompts (percentiles) are too narrow, as they would be for a
// two-sample t interval given n − 1 degrees of freedom. The levels here
// are those of the expanded percentile interval for a difference of means
// with a common variance (Welch–Satterthwaite): z = t(ν) / √b, with
// weights w_g = 1/n_g, ν = (Σ w_g)² / Σ w_g²/(n_g − 1) degrees of freedom
// (rounded down) and b = Σ w_g (n_g − 1)/n_g / Σ w_g the bias of the
// resampled variance. A group of one prompt adds no spread (every
// resample that draws it gives it the same value) and is left out; with
// one group left this is percentiles(n_g). Over 10 targets and 10 others
// the ends are at about 1.3% and 98.7%; over 4 and 16 at about 0.09% and
// 99.91%, near the extremes of the 2,000 resampled values.
func groupPercentiles(n int, groups []int) (lo, hi float64) {
	var sw, sw2, sb float64
	used := 0
	for _, g := range groups {
		if g < 2 {
			continue
		}
		w, ng := 1/float64(g), float64(g)
		sw += w
		sw2 += w * w / (ng - 1)
		sb += w * (ng - 1) / ng
		used++
	}
	if used == 0 {
		return percentiles(n)
	}
	df := int(sw * sw / sw2)
	z := studentT975(max(df, 1)) / math.Sqrt(sb/sw)
	lo = 0.5 * math.Erfc(z/math.Sqrt2)
	return lo, 1 - lo
}
