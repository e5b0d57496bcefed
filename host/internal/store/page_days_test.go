package store_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Folds of batches hitting the same page and day append an entry each; a
// read sums them and writes nothing; once the row outgrows its bound the
// fold that appends compacts it to one entry per day, and the sums stay
// the same.
func TestPageDaysSumAndCompactWithoutLosingAppends(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := s.Now()
		today := store.Day(now)
		hit := func(at int64, verified bool) store.CrawlerHit {
			return store.CrawlerHit{At: at, Bot: "GPTBot", Operator: "OpenAI", Verified: verified, Method: "GET", Path: "/a", Status: 200}
		}
		record := func(b ...store.CrawlerHit) {
			t.Helper()
			if err := s.RecordCrawlerHits(ctx, store.CrawlerBatch{SiteID: "site", Hits: b}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.FoldPageDays(ctx, 0); err != nil {
				t.Fatal(err)
			}
		}
		days := func() string {
			var d string
			storetest.QueryRow(ctx, s, `SELECT days FROM page_days WHERE site_id = 'site' AND path = '/a'`).Scan(&d)
			return d
		}
		want := func(from int64, verified, claimed int64) {
			t.Helper()
			hits, _, err := s.PageActivity(ctx, "site", from, today)
			if err != nil || len(hits) != 1 || hits[0].Verified != verified || hits[0].Claimed != claimed {
				t.Fatalf("from %d: hits %v %v, want %d verified %d claimed", from, hits, err, verified, claimed)
			}
		}
		record(hit(now, true), hit(now-86_400_000, false))
		record(hit(now, true))
		before := days()
		want(today, 2, 0)
		want(today-1, 2, 1)
		if got := days(); got != before {
			t.Fatalf("a read rewrote days %q to %q", before, got)
		}
		verified := int64(2)
		for n := 0; ; n++ {
			if n > 200 {
				t.Fatalf("days never compacted: %d bytes", len(days()))
			}
			record(hit(now, true))
			verified++
			if len(days()) <= len(before) {
				break
			}
		}
		if got, w := days(), strconv.FormatInt(today-1, 10)+":0:1;"+strconv.FormatInt(today, 10)+":"+strconv.FormatInt(verified, 10)+":0;"; got != w {
			t.Fatalf("compacted days %q, want %q", got, w)
		}
		want(today, verified, 0)
		record(hit(now, false))
		want(today-1, verified, 2)
		want(today, verified, 1)
	})
}

// PathActivity reads one page's rows only: another page of the same site
// on the same day is left out.
func TestPathActivityReadsOnePage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := s.Now()
		today := store.Day(now)
		var hits []store.CrawlerHit
		for _, path := range []string{"/a", "/b", "/b"} {
			hits = append(hits, store.CrawlerHit{At: now, Bot: "GPTBot", Operator: "OpenAI", Verified: true, Method: "GET", Path: path, Status: 200})
		}
		if err := s.RecordCrawlerHits(ctx, store.CrawlerBatch{SiteID: "site", Hits: hits}); err != nil {
			t.Fatal(err)
		}
		got, _, err := s.PathActivity(ctx, "site", "/b", today, today)
		if err != nil || len(got) != 1 || got[0].Path != "/b" || got[0].Verified != 2 {
			t.Fatalf("PathActivity(/b) = %+v %v, want /b with 2 verified hits", got, err)
		}
		if all, _, _ := s.PageActivity(ctx, "site", today, today); len(all) != 2 {
			t.Fatalf("PageActivity = %+v, want both pages", all)
		}
	})
}

// Writers of crawler batches in opposite page orders, folders merging
// their deltas into the same page_days rows, and readers of the pages view,
// run together on PostgreSQL for a bounded number of rounds: no statement
// fails (no deadlock, no lock wait past a statement's patience), and the
// view's sums are exactly the hits written, before and after the last fold.
func TestPageDaysWritersAndReadersDoNotDeadlock(t *testing.T) {
	t.Parallel()
	s := storetest.Postgres(t)
	ctx := context.Background()
	now := s.Now()
	today := store.Day(now)
	const pages, rounds, writers, readers, folders = 200, 40, 4, 4, 2
	paths := make([]string, pages)
	for i := range paths {
		paths[i] = fmt.Sprintf("/p%02d", i)
	}
	batch := func(w, round int) []store.CrawlerHit {
		order := slices.Clone(paths)
		if (w+round)%2 == 1 {
			slices.Reverse(order)
		}
		hits := make([]store.CrawlerHit, 0, 2*len(order))
		for _, p := range order {
			for _, op := range []string{"OpenAI", "Anthropic"} {
				hits = append(hits, store.CrawlerHit{At: now, Bot: op + "Bot", Operator: op, Verified: true, Method: "GET", Path: p, Status: 200})
			}
		}
		return hits
	}
	errs := make(chan error, writers*rounds+readers*rounds+folders*rounds)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for round := range rounds {
				if err := s.RecordCrawlerHits(ctx, store.CrawlerBatch{SiteID: "site", Hits: batch(w, round)}); err != nil {
					errs <- fmt.Errorf("writer %d round %d: %w", w, round, err)
				}
			}
		})
	}
	for f := range folders {
		wg.Go(func() {
			for round := range rounds {
				if _, err := s.FoldPageDays(ctx, 1000); err != nil {
					errs <- fmt.Errorf("folder %d round %d: %w", f, round, err)
				}
			}
		})
	}
	for r := range readers {
		wg.Go(func() {
			for round := range rounds {
				if _, _, err := s.PageActivity(ctx, "site", today-30, today); err != nil {
					errs <- fmt.Errorf("reader %d round %d: %w", r, round, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, when := range []string{"before the last fold", "after the last fold"} {
		hits, _, err := s.PageActivity(ctx, "site", today-30, today)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2*pages {
			t.Fatalf("%s: %d rows, want %d", when, len(hits), 2*pages)
		}
		for _, h := range hits {
			if h.Verified != writers*rounds || h.Claimed != 0 {
				t.Fatalf("%s: %s %s: %d verified %d claimed, want %d and 0", when, h.Path, h.Operator, h.Verified, h.Claimed, writers*rounds)
			}
		}
		if _, err := s.FoldPageDays(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
}
