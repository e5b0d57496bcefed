package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/integration/loadgen"
)

// BenchmarkListBrandVoices measures GET /v1/ai/brand-voice/ (10 voices, a
// valid api-key) against a bare net/http handler answering the same bytes,
// both through the same load generator in the same run. Run with
//
//	go test -run '^$' -bench ListBrandVoices -benchtime 1x ./host/internal/api
//
// (HERALD_TEST_DATABASE_URL adds the PostgreSQL case).
func BenchmarkListBrandVoices(b *testing.B) {
	backends := map[string]func(testing.TB) *store.Store{"sqlite": storetest.SQLite}
	if os.Getenv("HERALD_TEST_DATABASE_URL") != "" {
		backends["postgres"] = storetest.Postgres
	}
	for _, name := range []string{"sqlite", "postgres"} {
		open, ok := backends[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			s := open(b)
			tb := setup(b, s)
			for i := range 10 {
				tb.Do(b, "POST", "/v1/ai/generate/brand-voice/text", tb.alice, fmt.Sprintf(`{"content":"voice number %d, written plainly"}`, i)).WantMessage(b, 201)
			}
			body := []byte(tb.Do(b, "GET", "/v1/ai/brand-voice/", tb.alice, "").Raw)
			bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.Write(body)
			}))
			defer bare.Close()

			const concurrency, requests = 16, 20000
			client := loadgen.Client(concurrency)
			run := func(url, key string) loadgen.Result {
				return loadgen.Run(context.Background(), client, loadgen.Options{
					Concurrency: concurrency, Requests: requests,
					New: func(int) (*http.Request, error) {
						req, err := http.NewRequest("GET", url+"/v1/ai/brand-voice/", nil)
						req.Header.Set("api-key", key)
						return req, err
					},
					Check: func(_ int, res *http.Response, _ []byte) error {
						if res.StatusCode != 200 {
							return fmt.Errorf("status %d", res.StatusCode)
						}
						return nil
					},
				})
			}
			var bareRes, heraldRes loadgen.Result
			for b.Loop() {
				run(bare.URL, tb.alice) // warm both
				run(tb.URL, tb.alice)
				bareRes = run(bare.URL, tb.alice)
				heraldRes = run(tb.URL, tb.alice)
			}
			if heraldRes.Errors > 0 || bareRes.Errors > 0 {
				b.Fatalf("errors: herald %v, bare %v", heraldRes.FirstError, bareRes.FirstError)
			}
			b.ReportMetric(bareRes.RPS, "bare_req/s")
			b.ReportMetric(heraldRes.RPS, "herald_req/s")
			b.ReportMetric(heraldRes.RPS/bareRes.RPS*100, "%_of_bare")
			b.ReportMetric(float64(heraldRes.P50.Microseconds()), "herald_p50_µs")
			b.ReportMetric(float64(heraldRes.P99.Microseconds()), "herald_p99_µs")
			b.ReportMetric(float64(bareRes.P50.Microseconds()), "bare_p50_µs")
			b.ReportMetric(float64(bareRes.P99.Microseconds()), "bare_p99_µs")
		})
	}
}
