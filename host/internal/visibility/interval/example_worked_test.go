package interval_test

import (
	"fmt"

	"github.com/heraldhq/herald/host/internal/visibility/interval"
)

// The worked example of docs/METRICS.md: a brand's mention rate over 6
// prompts asked 3 times each, and its change in the next run.
func Example() {
	answers := []float64{3, 3, 3, 3, 3, 3}
	before := interval.Ratio{Num: []float64{3, 2, 0, 1, 3, 2}, Den: answers, Scale: 100}
	after := interval.Ratio{Num: []float64{3, 3, 1, 2, 3, 3}, Den: answers, Scale: 100}
	iv := interval.Bootstrap(interval.Seed("run-1"), 6, []interval.Ratio{before})[0].Interval
	fmt.Printf("run 1: 61.1, interval %.1f to %.1f\n", iv.Low, iv.High)
	ch := interval.Paired(interval.Seed("run-2/change"), 6, []interval.Ratio{after}, []interval.Ratio{before})[0].Interval
	fmt.Printf("change +22.2, interval %.1f to %.1f, significant %v\n", ch.Low, ch.High, ch.Excludes0())
	small := interval.Ratio{Num: []float64{3, 2, 1, 2, 3, 3}, Den: answers, Scale: 100}
	ch = interval.Paired(interval.Seed("run-3/change"), 6, []interval.Ratio{small}, []interval.Ratio{after})[0].Interval
	fmt.Printf("change -5.6, interval %.1f to %.1f, significant %v\n", ch.Low, ch.High, ch.Excludes0())
	// Output:
	// run 1: 61.1, interval 22.2 to 94.4
	// change +22.2, interval 5.6 to 33.3, significant true
	// change -5.6, interval -22.2 to 0.0, significant false
}
