package store

import (
	"fmt"
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
	for _, to := range []int64{-513, -1, 0, 300} { // before the epoch too: floorDiv, not /
		for days := int64(1); days <= 365; days += 7 {
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

// TestPageCoverPicksTheCheapestCover pins the covers of a few windows: the
// cheapest signed sum of blocks (a block of a longer span, less a few days,
// rather than every day), the first of equal cost, whole blocks past today
// when the window is open, slots sorted by span and period with runs of
// adjacent blocks merged.
func TestPageCoverPicksTheCheapestCover(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		from, to int64
		open     bool
		want     []pageSlot
	}{
		{20480, 20480, false, []pageSlot{{1, 20480, 20480, 1}}},
		{20474, 20480, false, []pageSlot{{1, 20472, 20473, -1}, {1, 20480, 20480, 1}, {8, 2559, 2559, 1}}},
		{20476, 20482, true, []pageSlot{{1, 20476, 20479, 1}, {8, 2560, 2560, 1}}},
		{20476, 20482, false, []pageSlot{{1, 20476, 20482, 1}}},
		{20451, 20480, false, []pageSlot{{1, 20451, 20455, 1}, {1, 20480, 20480, 1}, {8, 2557, 2559, 1}}},
		{20391, 20480, true, []pageSlot{{1, 20391, 20391, 1}, {1, 20480, 20480, 1}, {8, 2549, 2551, 1}, {64, 319, 319, 1}}},
		{20116, 20480, false, []pageSlot{{1, 20112, 20115, -1}, {1, 20480, 20480, 1}, {8, 2512, 2513, -1}, {64, 312, 313, -1}, {512, 39, 39, 1}}},
		{20000, 20600, false, []pageSlot{{1, 20600, 20600, 1}, {8, 2496, 2499, -1}, {8, 2575, 2575, -1}, {64, 320, 321, 1}, {512, 39, 39, 1}}},
		{20600, 20964, true, []pageSlot{{8, 2575, 2575, 1}, {64, 320, 321, -1}, {512, 40, 40, 1}}},
		{20600, 20964, false, []pageSlot{{1, 20965, 20967, -1}, {8, 2575, 2575, 1}, {8, 2621, 2623, -1}, {64, 320, 321, -1}, {512, 40, 40, 1}}},
		// Equal-cost covers: the first found (rounding down first) is kept.
		{19866, 20000, false, []pageSlot{{1, 19864, 19865, -1}, {1, 20000, 20000, 1}, {8, 2480, 2482, -1}, {8, 2496, 2499, 1}, {64, 310, 311, 1}}},
		{19866, 20000, true, []pageSlot{{1, 19864, 19865, -1}, {8, 2480, 2482, -1}, {64, 310, 312, 1}}},
		{-10, 5, false, []pageSlot{{1, -10, -9, 1}, {1, 6, 7, -1}, {8, -1, 0, 1}}},
		{-700, -400, false, []pageSlot{{1, -704, -701, -1}, {1, -400, -400, 1}, {8, -50, -49, -1}, {64, -11, -7, 1}}},
		{-515, -1, true, []pageSlot{{1, -515, -513, 1}, {512, -1, -1, 1}}},
	} {
		if got := pageCover(c.from, c.to, c.open); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("pageCover(%d, %d, %v) =\n %v\nwant\n %v", c.from, c.to, c.open, got, c.want)
		}
	}
}
