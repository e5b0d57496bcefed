package traffic_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/integration/loadgen"
)

// BenchmarkCollectVsBare sends the same beacons through integration/loadgen
// to herald's collect route (SQLite, group commit, 202 after commit) and to
// a bare net/http handler that answers 202 without work, in the same run,
// then checks that no accepted beacon is missing from the store. It runs
// at two fixed concurrencies: 64 and 256 keep-alive clients sending back to
// back. Group commit shares a transaction among the beacons that arrive
// while the previous one commits, so its cost per beacon depends on how
// many senders are in flight.
//
//	go test -run '^$' -bench CollectVsBare -benchtime 1x ./host/internal/traffic/
func BenchmarkCollectVsBare(b *testing.B) {
	for _, clients := range []int{64, 256} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) { collectVsBare(b, clients) })
	}
}

func collectVsBare(b *testing.B, concurrency int) {
	const requests = 30000
	st := storetest.SQLite(b)
	tb := setup(b, st)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	b.Cleanup(bare.Close)
	key := tb.siteKey()
	referrers := []string{"https://chatgpt.com/", "https://www.google.com/", "", "https://www.perplexity.ai/"}
	run := func(base string, accepted *atomic.Int64) (loadgen.Result, time.Duration) {
		client := loadgen.Client(concurrency)
		cpu0 := processCPU(b)
		r := loadgen.Run(context.Background(), client, loadgen.Options{
			Concurrency: concurrency, Requests: requests,
			New: func(i int) (*http.Request, error) {
				body := fmt.Sprintf(`{"siteKey":%q,"path":"/docs/%d","referrer":%q,"sessionId":"b%d","title":"Docs","utmSource":""}`,
					key, i%50, referrers[i%len(referrers)], i)
				req, err := http.NewRequest("POST", base+"/v1/ai-traffic/collect", strings.NewReader(body))
				if err == nil {
					req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
					req.Header.Set("User-Agent", browserUA)
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
		return r, processCPU(b) - cpu0
	}
	for b.Loop() {
		var bareOK, heraldOK atomic.Int64
		rb, cpuBare := run(bare.URL, &bareOK)
		rh, cpuHerald := run(tb.url, &heraldOK)
		site, _ := st.TrafficSiteByKey(context.Background(), key)
		stored, err := st.TrafficEventCount(context.Background(), site.ID, store.TrafficPageview)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("bare:   %s", rb)
		b.Logf("herald: %s", rh)
		perReq := func(d time.Duration) float64 { return float64(d.Microseconds()) / requests }
		b.Logf("herald/bare req/s: %.2f; accepted %d, stored %d", rh.RPS/rb.RPS, heraldOK.Load(), stored)
		b.Logf("process CPU per request (server and load generator): bare %.0f µs, herald %.0f µs; bare/herald %.2f",
			perReq(cpuBare), perReq(cpuHerald), perReq(cpuBare)/perReq(cpuHerald))
		if rh.Errors > 0 || stored < heraldOK.Load() {
			b.Fatalf("%d errors (first: %v); %d accepted beacons missing", rh.Errors, rh.FirstError, heraldOK.Load()-stored)
		}
		b.ReportMetric(rb.RPS, "bare-req/s")
		b.ReportMetric(rh.RPS, "herald-req/s")
		b.ReportMetric(rh.RPS/rb.RPS, "ratio")
		b.ReportMetric(perReq(cpuBare), "bare-cpu-µs/req")
		b.ReportMetric(perReq(cpuHerald), "herald-cpu-µs/req")
		b.ReportMetric(float64(rb.P99.Microseconds())/1000, "bare-p99-ms")
		b.ReportMetric(float64(rh.P99.Microseconds())/1000, "herald-p99-ms")
	}
}

// BenchmarkStats10M reads a year of stats for one site holding 10 million
// events. The events are generated in memory and aggregated with the same
// TrafficRollups that RecordTraffic uses; only their rollups are written
// (AddTrafficRollups), not 10 million raw rows, since stats never read
// those.
//
//	go test -run '^$' -bench Stats10M -benchtime 1x ./host/internal/traffic/
func BenchmarkStats10M(b *testing.B) {
	const events = 10_000_000
	st := storetest.SQLite(b)
	tb := setup(b, st)
	site, _ := st.TrafficSiteByKey(context.Background(), tb.siteKey())
	today := store.Day(st.Now())
	r := store.NewTrafficRollups()
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, 4999) // 5000 pages
	aiSources := []string{"chatgpt", "chatgpt", "chatgpt", "chatgpt", "perplexity", "perplexity", "claude", "gemini", "copilot", "deepseek", "grok", "meta"}
	bots := []string{"GPTBot", "ClaudeBot", "PerplexityBot", "Bytespider", "CCBot", "ChatGPT-User"}
	seed := time.Now()
	for i := 0; i < events; i++ {
		day := today - int64(rng.IntN(365))
		if rng.IntN(20) == 0 { // 5% AI crawler hits
			r.AddCrawler(site.ID, day, bots[rng.IntN(len(bots))], 1)
			continue
		}
		source := ""
		if rng.IntN(10) == 0 { // 10% of visits from AI assistants
			source = aiSources[rng.IntN(len(aiSources))]
		}
		path := fmt.Sprintf("/page/%d", zipf.Uint64())
		visit := rng.IntN(5) < 2 // 2.5 pageviews per visit
		dur := int64(5000 + rng.IntN(60000))
		d := store.TrafficDailyDelta{Pageviews: 1, DurationMs: dur, ScrollSum: int64(rng.IntN(101)), ScrollCount: 1}
		p := store.TrafficPageDelta{AIPageviews: 1, AIDurationMs: dur}
		if visit {
			d.Visits, p.AIVisits = 1, 1
			if rng.IntN(2) == 0 {
				d.EngagedVisits = 1
			}
		}
		r.AddDaily(site.ID, day, source, d)
		if source != "" {
			r.AddPage(site.ID, day, path, p)
		}
	}
	if err := st.AddTrafficRollups(context.Background(), r); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded rollups of %d events in %s", events, time.Since(seed).Round(time.Millisecond))

	for b.Loop() {
		for _, days := range []int{365, 30} {
			res := loadgen.Run(context.Background(), loadgen.Client(1), loadgen.Options{
				Concurrency: 1, Requests: 200,
				New: func(int) (*http.Request, error) {
					req, err := http.NewRequest("GET", fmt.Sprintf("%s/v1/ai-traffic/stats?days=%d", tb.url, days), nil)
					if err == nil {
						req.Header.Set("api-key", tb.key)
					}
					return req, err
				},
				Check: func(_ int, res *http.Response, body []byte) error {
					if res.StatusCode != 200 {
						return fmt.Errorf("status %d: %s", res.StatusCode, body)
					}
					return nil
				},
			})
			if res.Errors > 0 {
				b.Fatalf("stats failed: %v", res.FirstError)
			}
			b.Logf("stats days=%d: %s", days, res)
			b.ReportMetric(float64(res.P50.Microseconds())/1000, fmt.Sprintf("p50-ms-%dd", days))
			b.ReportMetric(float64(res.P99.Microseconds())/1000, fmt.Sprintf("p99-ms-%dd", days))
		}
	}
}

// processCPU is the user and system CPU time this process has used. CPU
// per request moves far less between runs on a shared machine than
// requests per second do.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
