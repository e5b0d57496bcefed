package traffic

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/lease"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
)

// Two hosts (each its own lease.Limiter on the one database) running
// passes at the same moments never fold at once: the lease lets one in,
// and the other waits its turn or skips.
func TestPageFoldFoldsOnOneHostAtATime(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	var running, most, calls atomic.Int64
	slowFold := func(ctx context.Context, limit int) (int64, error) {
		calls.Add(1)
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond) // a fold's transaction
		return 0, nil
	}
	var folds []*PageFold
	for range 2 {
		l, err := lease.New(lease.Deps{Store: st, TTL: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		folds = append(folds, &PageFold{Store: st, Lease: l, Every: time.Second, fold: slowFold})
	}
	var wg sync.WaitGroup
	for _, f := range folds {
		wg.Go(func() {
			for range 10 {
				if _, _, err := f.FoldOnce(context.Background()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 || calls.Load() < 10 {
		t.Fatalf("%d folds, at most %d at once; want at least 10 and never 2 at once", calls.Load(), most.Load())
	}
}

// The loop folds what ingest wrote without being asked, and stops.
func TestPageFoldLoopFoldsTheDeltas(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	ctx := context.Background()
	l, err := lease.New(lease.Deps{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f := &PageFold{Store: st, Lease: l, Every: 20 * time.Millisecond}
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	now := st.Now()
	hits := []store.CrawlerHit{{At: now, Bot: "GPTBot", Operator: "OpenAI", Verified: true, Method: "GET", Path: "/a", Status: 200}}
	if err := st.RecordCrawlerHits(ctx, store.CrawlerBatch{SiteID: "site", Hits: hits}); err != nil {
		t.Fatal(err)
	}
	rows := func(table string) int64 {
		var n int64
		if err := storetest.QueryRow(ctx, st, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	testwait.For(t, 10*time.Second, "the loop folds the delta", func() bool { return rows("page_day_deltas") == 0 && rows("page_days") == 1 })
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	got, _, err := st.PageActivity(ctx, "site", store.Day(now), store.Day(now))
	if err != nil || len(got) != 1 || got[0].Verified != 1 {
		t.Fatalf("after the fold: %+v %v, want one verified hit", got, err)
	}
}
