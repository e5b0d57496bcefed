package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// pageSums is what the pages view should answer: per path and operator
// (crawler rows) or path and source (landings), the counts written.
type pageSums map[string][2]int64

// pageLoad writes crawler batches and landings of one site and keeps the
// sums they should add up to.
type pageLoad struct {
	t    *testing.T
	s    *store.Store
	site string
	want pageSums
	mu   sync.Mutex
}

func newPageLoad(t *testing.T, s *store.Store, site string) *pageLoad {
	return &pageLoad{t: t, s: s, site: site, want: pageSums{}}
}

// batch records one crawler batch (round r: pages /p0../p9, two operators,
// verified and claimed, today and yesterday) and one landing per page.
func (l *pageLoad) batch(ctx context.Context, r int) error {
	now := l.s.Now()
	today := store.Day(now)
	var hits []store.CrawlerHit
	sums := pageSums{}
	for i := range 10 {
		path := fmt.Sprintf("/p%d", (i+r)%10)
		for j, op := range []string{"OpenAI", "Anthropic"} {
			verified := (i+j+r)%3 != 0
			at := now
			if (i+r)%4 == 0 {
				at -= 86_400_000
			}
			hits = append(hits, store.CrawlerHit{At: at, Bot: op + "Bot", Operator: op, Verified: verified, Method: "GET", Path: path, Status: 200})
			c := sums["crawler "+path+" "+op]
			if verified {
				c[0]++
			} else {
				c[1]++
			}
			sums["crawler "+path+" "+op] = c
		}
	}
	if err := l.s.RecordCrawlerHits(ctx, store.CrawlerBatch{SiteID: l.site, Hits: hits}); err != nil {
		return err
	}
	roll := store.NewTrafficRollups()
	for i := range 3 {
		path := fmt.Sprintf("/p%d", (i*3+r)%10)
		roll.AddLanding(l.site, today, path, "chatgpt")
		c := sums["source "+path+" chatgpt"]
		c[0]++
		sums["source "+path+" chatgpt"] = c
	}
	if err := l.s.AddTrafficRollups(ctx, roll); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, v := range sums {
		w := l.want[k]
		l.want[k] = [2]int64{w[0] + v[0], w[1] + v[1]}
	}
	return nil
}

// view reads the pages view of the last 30 days.
func (l *pageLoad) view(ctx context.Context) (pageSums, error) {
	today := store.Day(l.s.Now())
	hits, visits, err := l.s.PageActivity(ctx, l.site, today-29, today)
	if err != nil {
		return nil, err
	}
	got := pageSums{}
	for _, h := range hits {
		k := "crawler " + h.Path + " " + h.Operator
		if _, dup := got[k]; dup {
			return nil, fmt.Errorf("%s listed twice", k)
		}
		got[k] = [2]int64{h.Verified, h.Claimed}
	}
	for _, v := range visits {
		k := "source " + v.Path + " " + v.Source
		if _, dup := got[k]; dup {
			return nil, fmt.Errorf("%s listed twice", k)
		}
		got[k] = [2]int64{v.Visits, 0}
	}
	return got, nil
}

func (l *pageLoad) check(ctx context.Context, when string) {
	l.t.Helper()
	got, err := l.view(ctx)
	if err != nil {
		l.t.Fatalf("%s: %v", when, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !maps.Equal(got, l.want) {
		l.t.Fatalf("%s: the pages view is\n%v\nwant the sums written\n%v", when, got, l.want)
	}
}

func count(t *testing.T, s *store.Store, table, site string) int64 {
	t.Helper()
	var n int64
	if err := storetest.QueryRow(context.Background(), s, `SELECT COUNT(*) FROM `+table+` WHERE site_id = $1`, site).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The pages view is the sum of every hit and landing written: before any
// fold (all of it in deltas), part-way (one fold transaction took some
// deltas; then a fold, then more batches on the same rows) and after the
// last fold (all of it in page_days).
func TestPagesViewIsExactBeforeDuringAndAfterTheFold(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		l := newPageLoad(t, s, "site-view")
		for r := range 6 {
			if err := l.batch(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if n := count(t, s, "page_days", l.site); n != 0 {
			t.Fatalf("ingest wrote %d page_days rows, want none (deltas only)", n)
		}
		l.check(ctx, "before the fold")
		deltas := count(t, s, "page_day_deltas", l.site)
		if n, err := s.FoldPageDaysOnce(ctx, int(deltas/3)); err != nil || n != deltas/3 {
			t.Fatalf("one fold transaction of %d: %d, %v", deltas/3, n, err)
		}
		if count(t, s, "page_days", l.site) == 0 || count(t, s, "page_day_deltas", l.site) != deltas-deltas/3 {
			t.Fatal("a partial fold left no page_days rows or the wrong deltas")
		}
		l.check(ctx, "part-way through the fold")
		if _, err := s.FoldPageDays(ctx, 0); err != nil {
			t.Fatal(err)
		}
		for r := 6; r < 9; r++ {
			if err := l.batch(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		l.check(ctx, "folded rows and deltas of the same keys")
		if _, err := s.FoldPageDays(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if n := count(t, s, "page_day_deltas", l.site); n != 0 {
			t.Fatalf("%d deltas left after the fold", n)
		}
		l.check(ctx, "after the fold")
		today := store.Day(s.Now())
		one, _, err := s.PathActivity(ctx, l.site, "/p3", today-29, today)
		if err != nil || len(one) != 2 {
			t.Fatalf("PathActivity(/p3) = %+v %v, want its two operators", one, err)
		}
		for _, h := range one {
			if w := l.want["crawler /p3 "+h.Operator]; h.Path != "/p3" || [2]int64{h.Verified, h.Claimed} != w {
				t.Fatalf("PathActivity(/p3) %+v, want %v", h, w)
			}
		}
	})
}

// Folders running at once while batches keep coming take each delta once:
// the view stays the sum of what was written, during and after, and no
// delta is left.
func TestConcurrentFoldersCountEachDeltaOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		l := newPageLoad(t, s, "site-concurrent")
		const writers, rounds, folders = 3, 12, 4
		errs := make(chan error, writers*rounds+folders)
		var wg, folding sync.WaitGroup
		done := make(chan struct{})
		for w := range writers {
			wg.Go(func() {
				for r := range rounds {
					if err := l.batch(ctx, w*rounds+r); err != nil {
						errs <- err
					}
				}
			})
		}
		// The folders take small bites (limit 7) without pause until the
		// writers are done, so their transactions overlap.
		for range folders {
			folding.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
					}
					if _, err := s.FoldPageDays(ctx, 7); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(done)
		folding.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		l.check(ctx, "after concurrent folds")
		var wg2 sync.WaitGroup
		for range folders {
			wg2.Go(func() {
				if _, err := s.FoldPageDays(ctx, 5); err != nil {
					t.Error(err)
				}
			})
		}
		wg2.Wait()
		if n := count(t, s, "page_day_deltas", l.site); n != 0 {
			t.Fatalf("%d deltas left after the last folds", n)
		}
		l.check(ctx, "after the last folds")
	})
}

// A fold whose transaction fails after it took and merged its deltas
// leaves everything as it was: the deltas are still there, page_days
// unchanged, the view exact; the next fold counts them once.
func TestAnInterruptedFoldLosesNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		l := newPageLoad(t, s, "site-interrupted-"+string(s.Dialect))
		if err := l.batch(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FoldPageDays(ctx, 0); err != nil {
			t.Fatal(err)
		}
		for r := 1; r < 4; r++ {
			if err := l.batch(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		deltas, rows := count(t, s, "page_day_deltas", l.site), count(t, s, "page_days", l.site)
		boom := errors.New("host killed mid-fold")
		restore := store.FailFoldsOf(l.site, boom)
		_, err := s.FoldPageDays(ctx, 0)
		restore()
		if !errors.Is(err, boom) {
			t.Fatalf("the interrupted fold answered %v, want %v", err, boom)
		}
		if d, r := count(t, s, "page_day_deltas", l.site), count(t, s, "page_days", l.site); d != deltas || r != rows {
			t.Fatalf("after the interrupted fold: %d deltas and %d page_days rows, want %d and %d", d, r, deltas, rows)
		}
		l.check(ctx, "after the interrupted fold")
		if _, err := s.FoldPageDays(ctx, 0); err != nil {
			t.Fatal(err)
		}
		l.check(ctx, "after the next fold")
	})
}
