package interval

// A combined figure is a weighted sum of ratios over the same prompts:
// the impact of a post, (after − before on the targeted prompts) −
// (after − before on the other prompts), is four ratios with weights +1,
// −1, −1, +1, each over the prompts of its group (a prompt outside a group
// has zeros in that group's columns). It is resampled like every other
// figure: the prompts with replacement, each with all its answers, with the
// same draws and the same interval ends.

// Term is one ratio of a combined figure: Weight × Scale × ΣCols[Num] /
// ΣCols[Den].
type Term struct {
	Num, Den int
	Weight   float64
	Scale    float64
}

// Combined is a figure that is a sum of terms.
type Combined []Term

// value is the combined figure over every prompt, ok false when a term's
// denominator is 0.
func (c Combined) value(cols [][]float64, acc []float64) (float64, bool) {
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
	return c.value(cols, acc)
}

// BootstrapCombined gives each combined figure its interval over n prompts
// (cols[c][p]: column c summed over prompt p's answers), resampled with
// the draws Bootstrap uses for the same seed. A resample in which a term
// has no value (none of its group's prompts drawn) is left out. Fewer than
// MinPrompts prompts: no interval and NoteFewPrompts.
func BootstrapCombined(seed uint64, n int, cols [][]float64, figs []Combined) []Result {
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
	d := newDraws(seed, n)
	lo, hi := percentiles(n)
	vals := make([][]float64, len(figs))
	live := make([]bool, len(figs))
	for f, fig := range figs {
		if _, ok := fig.Value(cols); ok {
			live[f] = true
			vals[f] = make([]float64, 0, Resamples)
		} else {
			out[f].Note = NoteNoValue
		}
	}
	// Each prompt's non-zero columns (a prompt has zeros in the columns
	// of the groups it is not in), so a resample adds only those.
	type cell struct {
		col int
		v   float64
	}
	rows := make([][]cell, n)
	for p := range rows {
		for k, col := range cols {
			if col[p] != 0 {
				rows[p] = append(rows[p], cell{k, col[p]})
			}
		}
	}
	acc := make([]float64, len(cols))
	count := make([]float64, n)
	for b := 0; b < Resamples; b++ {
		clear(count)
		for _, i := range d.idx[b*n : (b+1)*n] {
			count[i]++
		}
		clear(acc)
		for p, c := range count {
			if c == 0 {
				continue
			}
			for _, x := range rows[p] {
				acc[x.col] += c * x.v
			}
		}
		for f, fig := range figs {
			if !live[f] {
				continue
			}
			if v, ok := fig.value(cols, acc); ok {
				vals[f] = append(vals[f], v)
			}
		}
	}
	for f := range figs {
		if !live[f] {
			continue
		}
		if len(vals[f]) == 0 {
			out[f].Note = NoteNoValue
			continue
		}
		low, high := quantiles(vals[f], lo, hi)
		out[f].Interval = &Interval{Low: low, High: high}
	}
	return out
}
