package traffic_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/integration/loadgen"
)

// BenchmarkCollectPoisoned measures collect throughput when one beacon in
// ten carries NUL bytes (title, path, userAgent, utm) against clean beacons,
// alternating clean and poisoned rounds in the same run, on SQLite and on
// PostgreSQL (HERALD_TEST_DATABASE_URL), where a NUL that reached the
// store used to fail whole group-commit batches.
//
//	go test -run '^$' -bench CollectPoisoned -benchtime 1x ./host/internal/traffic/
func BenchmarkCollectPoisoned(b *testing.B) {
	b.Run("store=sqlite", func(b *testing.B) { collectPoisoned(b, storetest.SQLite(b)) })
	b.Run("store=postgres", func(b *testing.B) { collectPoisoned(b, storetest.Postgres(b)) })
}

func collectPoisoned(b *testing.B, st *store.Store) {
	const requests, clients, rounds = 2000, 64, 10
	tb := setup(b, st)
	key := tb.siteKey()
	run := func(poisoned bool, round int) loadgen.Result {
		var accepted atomic.Int64
		r := loadgen.Run(context.Background(), loadgen.Client(clients), loadgen.Options{
			Concurrency: clients, Requests: requests,
			New: func(i int) (*http.Request, error) {
				nul := ""
				if poisoned && i%10 == 0 {
					nul = `\u0000`
				}
				body := fmt.Sprintf(`{"siteKey":%q,"path":"/docs/%d%s","referrer":"https://chatgpt.com/","sessionId":"p%t%d-%d","title":"Docs%s","utmSource":"x%s","userAgent":"%s%s"}`,
					key, i%50, nul, poisoned, round, i, nul, nul, browserUA, nul)
				return beaconRequest(tb.srv.URL, body)
			},
			Check: countAccepted(&accepted),
		})
		if r.Errors > 0 {
			b.Fatalf("poisoned=%t: %d errors (first: %v)", poisoned, r.Errors, r.FirstError)
		}
		return r
	}
	for b.Loop() {
		// Many short alternating rounds, the order swapped every round, and
		// the median of the per-round ratios: the machine's load drifts
		// slower than a round, so each pair sees the same conditions.
		var clean, poisoned float64
		ratios := make([]float64, 0, rounds)
		for round := range rounds {
			var rc, rp loadgen.Result
			if round%2 == 0 {
				rc, rp = run(false, round), run(true, round)
			} else {
				rp, rc = run(true, round), run(false, round)
			}
			clean += rc.RPS / rounds
			poisoned += rp.RPS / rounds
			ratios = append(ratios, rp.RPS/rc.RPS)
			b.Logf("round %d: clean %.0f req/s, 10%% NUL %.0f req/s, ratio %.2f", round, rc.RPS, rp.RPS, rp.RPS/rc.RPS)
		}
		sort.Float64s(ratios)
		median := (ratios[rounds/2-1] + ratios[rounds/2]) / 2
		b.Logf("poisoned/clean req/s: median of rounds %.2f, of means %.2f", median, poisoned/clean)
		b.ReportMetric(clean, "clean-req/s")
		b.ReportMetric(poisoned, "poisoned-req/s")
		b.ReportMetric(median, "median-ratio")
	}
}
