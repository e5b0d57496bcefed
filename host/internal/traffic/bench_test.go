package traffic_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/integration/loadgen"
)

// BenchmarkCollectVsBare sends the same beacons through integration/loadgen
// to herald's collect route (SQLite, group commit, 202 after commit) and to
// a bare net/http handler that answers 202 without work, in the same run.
// Both get a warm-up pass first; then each iteration runs four halves in
// ABBA order (bare, herald, herald, bare; the order flips on odd
// iterations), so neither side always runs first on a cooler or warmer
// machine. Each herald half checks that every beacon it had accepted is in
// the store. It runs at two fixed concurrencies: 64 and 256 keep-alive
// clients sending back to back. Group commit shares a transaction among the
// beacons that arrive while the previous one commits, so its cost per
// beacon depends on how many senders are in flight.
//
//	go test -run '^$' -bench CollectVsBare -benchtime 1x ./host/internal/traffic/
func BenchmarkCollectVsBare(b *testing.B) {
	for _, clients := range []int{64, 256} {
		for _, mode := range []string{"inbox", "direct"} {
			b.Run(fmt.Sprintf("clients=%d/writer=%s", clients, mode), func(b *testing.B) { collectVsBare(b, clients, mode == "direct") })
		}
	}
}

// beaconRequest is a beacon POSTed to base's collect route the way
// navigator.sendBeacon sends it (text/plain).
func beaconRequest(base, body string) (*http.Request, error) {
	req, err := http.NewRequest("POST", base+"/v1/ai-traffic/collect", strings.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	}
	return req, err
}

// countAccepted is a loadgen Check that counts in n the beacons answered
// 202 and fails any other answer.
func countAccepted(n *atomic.Int64) func(int, *http.Response, []byte) error {
	return func(_ int, res *http.Response, body []byte) error {
		if res.StatusCode != http.StatusAccepted {
			return fmt.Errorf("status %d: %s", res.StatusCode, body)
		}
		n.Add(1)
		return nil
	}
}

// side is one handler under load: its base URL and totals over its halves.
type side struct {
	base     string
	requests int
	elapsed  time.Duration
	cpu      time.Duration
	p99      time.Duration // the larger of its halves' p99
	errors   int
	first    error
	drain    time.Duration // after the last 202, until every accepted beacon is in the tables
}

func collectVsBare(b *testing.B, concurrency int, direct bool) {
	const (
		requests = 30000 // per side and iteration, in two halves
		warmup   = 3000
	)
	st := storetest.SQLite(b)
	tb := setupWith(b, st, traffic.WriterOptions{Direct: direct})
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	b.Cleanup(bare.Close)
	key := tb.siteKey()
	site, err := st.TrafficSiteByKey(context.Background(), key)
	if err != nil {
		b.Fatal(err)
	}
	stored := func() int64 {
		n, err := st.TrafficEventCount(context.Background(), site.ID, store.TrafficPageview)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	referrers := []string{"https://chatgpt.com/", "https://www.google.com/", "", "https://www.perplexity.ai/"}
	runs := 0
	var drained time.Duration
	// run sends n beacons to base, each a new session (ids never repeat
	// across runs), and returns the result, the process CPU it took (on
	// herald until every accepted beacon is in the tables) and how many
	// were answered 202.
	run := func(base string, n int) (loadgen.Result, time.Duration, int64) {
		runs++
		prefix := fmt.Sprintf("r%d-", runs)
		var accepted atomic.Int64
		client := loadgen.Client(concurrency)
		cpu0 := processCPU(b)
		r := loadgen.Run(context.Background(), client, loadgen.Options{
			Concurrency: concurrency, Requests: n,
			New: func(i int) (*http.Request, error) {
				body := fmt.Sprintf(`{"siteKey":%q,"path":"/docs/%d","referrer":%q,"sessionId":"%s%d","title":"Docs","utmSource":""}`,
					key, i%50, referrers[i%len(referrers)], prefix, i)
				req, err := beaconRequest(base, body)
				if err == nil {
					req.Header.Set("User-Agent", browserUA)
				}
				return req, err
			},
			Check: countAccepted(&accepted),
		})
		if base == tb.srv.URL {
			start := time.Now()
			tb.synced(b)
			drained = time.Since(start)
		}
		return r, processCPU(b) - cpu0, accepted.Load()
	}
	// half runs one half on s; on herald it checks that every accepted
	// beacon of the half was stored.
	half := func(s *side, herald bool) {
		before := stored()
		r, cpu, accepted := run(s.base, requests/2)
		if herald {
			s.drain += drained
			if got := stored() - before; got < accepted {
				b.Fatalf("herald accepted %d beacons and stored %d: %d accepted beacons missing", accepted, got, accepted-got)
			}
		}
		s.requests += r.Requests
		s.elapsed += r.Duration
		s.cpu += cpu
		s.p99 = max(s.p99, r.P99)
		s.errors += r.Errors
		if s.first == nil {
			s.first = r.FirstError
		}
	}
	run(bare.URL, warmup)
	run(tb.srv.URL, warmup)
	i := 0
	for b.Loop() {
		sb, sh := &side{base: bare.URL}, &side{base: tb.srv.URL}
		order := []*side{sb, sh, sh, sb}
		if i%2 == 1 {
			order = []*side{sh, sb, sb, sh}
		}
		i++
		for _, s := range order {
			half(s, s == sh)
		}
		if sh.errors > 0 || sb.errors > 0 {
			b.Fatalf("errors: herald %d (first: %v), bare %d (first: %v)", sh.errors, sh.first, sb.errors, sb.first)
		}
		rps := func(s *side) float64 { return float64(s.requests) / s.elapsed.Seconds() }
		perReq := func(s *side) float64 { return float64(s.cpu.Microseconds()) / float64(s.requests) }
		b.Logf("bare:   %d req, %.0f req/s, p99 %s", sb.requests, rps(sb), sb.p99)
		b.Logf("herald: %d req, %.0f req/s, p99 %s; %s after the last 202 until all were in the tables", sh.requests, rps(sh), sh.p99, sh.drain)
		b.Logf("herald/bare req/s: %.2f; process CPU per request (server and load generator): bare %.0f µs, herald %.0f µs",
			rps(sh)/rps(sb), perReq(sb), perReq(sh))
		b.ReportMetric(rps(sb), "bare-req/s")
		b.ReportMetric(rps(sh), "herald-req/s")
		b.ReportMetric(rps(sh)/rps(sb), "ratio")
		b.ReportMetric(perReq(sb), "bare-cpu-µs/req")
		b.ReportMetric(perReq(sh), "herald-cpu-µs/req")
		b.ReportMetric(float64(sb.p99.Microseconds())/1000, "bare-p99-ms")
		b.ReportMetric(float64(sh.p99.Microseconds())/1000, "herald-p99-ms")
		b.ReportMetric(float64(sh.drain.Microseconds())/1000, "herald-drain-ms")
		stored := float64(sh.requests) / (sh.elapsed + sh.drain).Seconds()
		b.ReportMetric(stored/rps(sb), "stored-ratio")
	}
}

// BenchmarkStats10M reads a year of stats for one site holding 10 million
// events. The events are generated in memory and aggregated with the same
// TrafficRollups that RecordTraffic uses; only their rollups are written
// (AddTrafficRollups), not 10 million raw rows, since stats never read
// those. The baseline, in the same run and the same order of windows, is
// the store reads alone: the site lookup and the three rollup queries the
// report makes (ListTrafficSites, TrafficDaily, TrafficTopPages,
// TrafficCrawlers), called in process with no HTTP, auth or report building; herald's p50 over the baseline's p50 is
// what the API adds to the SQL.
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

	// storeReads times n sequential runs of the report's store reads for
	// the window: the site lookup and the three rollup reads.
	storeReads := func(days, n int) []time.Duration {
		ctx := context.Background()
		to := store.Day(st.Now())
		from := to - int64(days) + 1
		lat := make([]time.Duration, n)
		for i := range lat {
			t0 := time.Now()
			// The site lookup the report makes for a request without siteKey.
			if _, err := st.ListTrafficSites(ctx, tb.ws.ID); err != nil {
				b.Fatal(err)
			}
			if _, err := st.TrafficDaily(ctx, site.ID, from, to); err != nil {
				b.Fatal(err)
			}
			if _, err := st.TrafficTopPages(ctx, site.ID, from, to, 20); err != nil {
				b.Fatal(err)
			}
			if _, err := st.TrafficCrawlers(ctx, site.ID, from, to); err != nil {
				b.Fatal(err)
			}
			lat[i] = time.Since(t0)
		}
		return lat
	}

	stats := func(days, n int) loadgen.Result {
		return loadgen.Run(context.Background(), loadgen.Client(1), loadgen.Options{
			Concurrency: 1, Requests: n,
			New: func(int) (*http.Request, error) {
				req, err := http.NewRequest("GET", fmt.Sprintf("%s/v1/ai-traffic/stats?days=%d", tb.srv.URL, days), nil)
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
	}
	// Warm both sides (statement caches, page cache) before measuring.
	for _, days := range []int{365, 30} {
		storeReads(days, 20)
		stats(days, 20)
	}

	for b.Loop() {
		for _, days := range []int{365, 30} {
			// The baseline runs half before and half after herald's 200
			// requests, so neither side always runs on a warmer cache.
			lat := storeReads(days, 100)
			res := stats(days, 200)
			lat = append(lat, storeReads(days, 100)...)
			slices.Sort(lat)
			baseP50, baseP99 := lat[len(lat)/2], lat[len(lat)*99/100]
			b.Logf("store reads alone, days=%d: p50 %s, p99 %s", days, baseP50, baseP99)
			if res.Errors > 0 {
				b.Fatalf("stats failed: %v", res.FirstError)
			}
			b.Logf("stats days=%d: %s", days, res)
			b.ReportMetric(float64(res.P50.Microseconds())/1000, fmt.Sprintf("p50-ms-%dd", days))
			b.ReportMetric(float64(res.P99.Microseconds())/1000, fmt.Sprintf("p99-ms-%dd", days))
			b.ReportMetric(float64(baseP50.Microseconds())/1000, fmt.Sprintf("store-p50-ms-%dd", days))
			b.ReportMetric(float64(res.P50)/float64(baseP50), fmt.Sprintf("ratio-p50-%dd", days))
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
