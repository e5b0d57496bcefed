package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Writers appending to the same page_days rows in batches of opposite page
// orders, and readers of the pages view, run together on PostgreSQL for a
// bounded number of rounds: no statement fails (no deadlock, no lock wait
// past a statement's patience), and the view's sums are exactly the hits
// written.
func TestPageDaysWritersAndReadersDoNotDeadlock(t *testing.T) {
	t.Parallel()
	s := storetest.Postgres(t)
	ctx := context.Background()
	now := s.Now()
	today := store.Day(now)
	const pages, rounds, writers, readers = 200, 40, 4, 4
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
	errs := make(chan error, writers*rounds+readers*rounds)
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
	hits, _, err := s.PageActivity(ctx, "site", today-30, today)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2*pages {
		t.Fatalf("%d rows, want %d", len(hits), 2*pages)
	}
	for _, h := range hits {
		if h.Verified != writers*rounds || h.Claimed != 0 {
			t.Fatalf("%s %s: %d verified %d claimed, want %d and 0", h.Path, h.Operator, h.Verified, h.Claimed, writers*rounds)
		}
	}
}
