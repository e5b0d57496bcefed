package visibility_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"net/http"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// race sends n identical report requests at once and counts the answers
// by status.
func race(t *testing.T, b *bundle, n int, key, body string) map[int]int {
	t.Helper()
	var (
		mu  sync.Mutex
		got = map[int]int{}
		wg  sync.WaitGroup
	)
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report", key, body)
			mu.Lock()
			got[res.Status]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return got
}

// The free audit is counted in the transaction that writes the
// report, under the workspace's row lock, so 40 concurrent requests of a
// free workspace (2 audits in testPlans) queue exactly 2, on SQLite and
// PostgreSQL, and the refused ones reserve no credit.
func TestConcurrentFreeAuditsQueueExactlyThePlansNumber(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt"}})
		// gpt is held at the gate until the end, so no report completes
		// (a second identical question is answered from the cache, and its
		// credit given back) before the credits are counted.
		gate := make(chan struct{})
		t.Cleanup(func() { close(gate) })
		b.engines.gate, b.engines.gateOnly = gate, "gpt"
		got := race(t, b, 40, b.free, body(`["best widget supplier"]`, ""))
		if got[http.StatusAccepted] != 2 || got[http.StatusForbidden] != 38 {
			t.Fatalf("answers by status: %v, want 2 × 202 and 38 × 403", got)
		}
		if n, _ := s.CountVisibilityReports(context.Background(), b.freeID); n != 2 {
			t.Fatalf("%d reports stored, want 2", n)
		}
		month := b.clock.now().UTC().Format("2006-01")
		if used, _ := creditstore.New(s).CreditsUsed(context.Background(), b.freeID, month); used != 2 {
			t.Fatalf("%d credits reserved, want 2 (one prompt × one engine × two reports)", used)
		}
	})
}

// 30 concurrent refreshes on a plan with 3 per 24 hours
// (business in testPlans) queue exactly 3; the rest are 429.
func TestConcurrentRefreshesStayWithinTheWindow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt"}})
		b.report(t, b.business, body(`["best widget supplier"]`, ""))
		got := race(t, b, 30, b.business, `{"refresh":true}`)
		if got[http.StatusAccepted] != 3 || got[http.StatusTooManyRequests] != 27 {
			t.Fatalf("answers by status: %v, want 3 × 202 and 27 × 429", got)
		}
	})
}
