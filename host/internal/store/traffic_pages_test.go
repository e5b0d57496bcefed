package store

import (
	"math/rand/v2"
	"testing"
)

// TestPageCoverCountsEachDayOfTheWindowOnce expands covers into per-day
// coefficients: every day of the window must count once and every other
// day not at all, except after the window when it is open (nothing is
// stored after today).
func TestPageCoverCountsEachDayOfTheWindowOnce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(from, to int64, open bool) {
		t.Helper()
		coef := map[int64]int64{}
		for _, sl := range pageCover(from, to, open) {
			for p := sl.from; p <= sl.to; p++ {
				for d := p * sl.span; d < (p+1)*sl.span; d++ {
					coef[d] += sl.coef
				}
			}
		}
		for d := from - 600; d <= to+600; d++ {
			want := int64(0)
			if d >= from && d <= to {
				want = 1
			}
			if d > to && open {
				continue
			}
			if coef[d] != want {
				t.Fatalf("window %d..%d (open %v): day %d counted %d times", from, to, open, d, coef[d])
			}
		}
	}
	for _, to := range []int64{20735, 20736, 20737, 20782, 20799, 20800} {
		for days := int64(1); days <= 365; days++ {
			check(to-days+1, to, true)
			check(to-days+1, to, false)
		}
	}
	for i := 0; i < 2000; i++ {
		to := 20000 + rng.Int64N(2000)
		check(to-rng.Int64N(365), to, rng.IntN(2) == 0)
	}
}

// TestPageCoverReadsFewBlocks bounds the blocks a window up to a year
// reads, so that the top-pages statement's fixed slots suffice.
func TestPageCoverReadsFewBlocks(t *testing.T) {
	t.Parallel()
	worst, worstSlots := 0, 0
	for to := int64(20480); to < 20480+512; to++ {
		for _, days := range []int64{1, 7, 30, 90, 365} {
			for _, open := range []bool{true, false} {
				slots := pageCover(to-days+1, to, open)
				blocks := 0
				for _, sl := range slots {
					blocks += int(sl.to - sl.from + 1)
				}
				worst, worstSlots = max(worst, blocks), max(worstSlots, len(slots))
				if days == 1 && blocks != 1 {
					t.Errorf("one day %d (open %v) reads %d blocks: %+v", to, open, blocks, slots)
				}
			}
		}
	}
	if worstSlots > pageQuerySlots {
		t.Errorf("a window needs %d slots, the statement has %d", worstSlots, pageQuerySlots)
	}
	t.Logf("at most %d blocks in %d slots", worst, worstSlots)
}
