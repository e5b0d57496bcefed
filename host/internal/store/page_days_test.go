package store_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Batches hitting the same page and day append an entry each; a read sums
// them and writes nothing; once the row outgrows its bound the writer that
// appends compacts it to one entry per day, and the sums stay the same.
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
