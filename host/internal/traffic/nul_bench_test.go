package traffic_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
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
	const requests, clients, rounds = 8000, 64, 3
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
				req, err := http.NewRequest("POST", tb.url+"/v1/ai-traffic/collect", strings.NewReader(body))
				if err == nil {
					req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
				}
				return req, err
			},
			Check: func(i int, res *http.Response, body []byte) error {
				if res.StatusCode != http.StatusAccepted {
					return fmt.Errorf("status %d: %s", res.StatusCode, body)
				}
				accepted.Add(1)
				return nil
			},
		})
		if r.Errors > 0 {
			b.Fatalf("poisoned=%t: %d errors (first: %v)", poisoned, r.Errors, r.FirstError)
		}
		return r
	}
	for b.Loop() {
		var clean, poisoned float64
		for round := range rounds {
			rc := run(false, round)
			rp := run(true, round)
			clean += rc.RPS / rounds
			poisoned += rp.RPS / rounds
			b.Logf("round %d: clean %s", round, rc)
			b.Logf("round %d: 10%% NUL %s", round, rp)
		}
		b.Logf("poisoned/clean req/s: %.2f", poisoned/clean)
		b.ReportMetric(clean, "clean-req/s")
		b.ReportMetric(poisoned, "poisoned-req/s")
		b.ReportMetric(poisoned/clean, "ratio")
	}
}
