package traffic_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// benchLog writes n Combined Log Format lines of the last days: 10% AI
// crawlers (half from their published ranges, half spoofed), 30% other
// bots, 60% browsers (some from AI assistants), over pages paths.
func benchLog(n, pages int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Now().UTC()
	uas := []string{browserUA, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"}
	bots := []string{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", "curl/8.5.0"}
	crawlerUAs := []struct{ ua, inRange string }{
		{gptbotUA, "20.171.207."},
		{"Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "3.224.62.45"},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "160.79.104."},
	}
	refs := []string{"-", "https://www.google.com/", "https://chatgpt.com/", "https://www.perplexity.ai/"}
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		t := now.Add(-time.Duration(rng.IntN(20*24*3600)) * time.Second)
		ip := fmt.Sprintf("198.51.%d.%d", rng.IntN(256), rng.IntN(256))
		ua, ref := uas[rng.IntN(len(uas))], refs[rng.IntN(len(refs))]
		switch r := rng.IntN(10); {
		case r == 0:
			c := crawlerUAs[rng.IntN(len(crawlerUAs))]
			ua, ref = c.ua, "-"
			if rng.IntN(2) == 0 {
				ip = c.inRange
				if ip[len(ip)-1] == '.' {
					ip += fmt.Sprint(rng.IntN(256))
				}
			}
		case r <= 3:
			ua, ref = bots[rng.IntN(len(bots))], "-"
		}
		fmt.Fprintf(&b, "%s - - [%s] \"GET /p/%d HTTP/1.1\" 200 %d \"%s\" \"%s\"\n", ip, t.Format("02/Jan/2006:15:04:05 -0700"),
			rng.IntN(pages), 500+rng.IntN(20000), ref, ua)
	}
	return b.Bytes()
}

// TestBenchIngestAgainstGoAccess ingests 1,000,000 combined lines (parse,
// classify, verify against the shipped ranges, store) and runs GoAccess on
// the same file into a JSON report; HERALD_BENCH_CRAWLERS=1 runs it
// (docs/BENCHMARKS.md).
func TestBenchIngestAgainstGoAccess(t *testing.T) {
	if os.Getenv("HERALD_BENCH_CRAWLERS") == "" {
		t.Skip("HERALD_BENCH_CRAWLERS=1 runs the ingest benchmark")
	}
	n := 1_000_000
	body := benchLog(n, 5000)
	file := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := exec.Command("goaccess", file, "--log-format=COMBINED", "--no-global-config", "-o", filepath.Join(t.TempDir(), "report.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("goaccess: %v %s", err, out)
	}
	goaccess := time.Since(start)
	t.Logf("GoAccess 1.7: %d lines in %v: %.0f lines/s", n, goaccess.Round(time.Millisecond), float64(n)/goaccess.Seconds())

	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "")
		svc := b.service(t)
		ctx := auth.WithPrincipal(context.Background(), auth.Principal{WorkspaceID: b.workspaceID(t), Plan: "business", Via: auth.ViaAPIKey})
		// Batches of 10,000 lines, as a shipper posts them.
		var batches [][]byte
		for rest := body; len(rest) > 0; {
			cut := 0
			for lines := 0; lines < traffic.MaxLogLines && cut < len(rest); lines++ {
				cut += bytes.IndexByte(rest[cut:], '\n') + 1
			}
			batches = append(batches, rest[:cut])
			rest = rest[cut:]
		}
		start := time.Now()
		var stored int64
		for _, batch := range batches {
			r, err := svc.IngestLogs(ctx, traffic.LogBatch{SiteKey: b.siteKey(), ContentType: "text/plain", Body: batch})
			if err != nil {
				t.Fatal(err)
			}
			stored += r.CrawlerHits
		}
		herald := time.Since(start)
		ratio := goaccess.Seconds() / herald.Seconds()
		t.Logf("Herald (%s): %d lines (%d crawler hits stored) in %v: %.0f lines/s, %.2f× GoAccess", st.Dialect, n, stored,
			herald.Round(time.Millisecond), float64(n)/herald.Seconds(), ratio)

		// The pages view of a site with 5,000 pages over 90 days.
		seedPages(t, st, b)
		b.cites.cites = nil
		for i := 0; i < 5000; i += 3 {
			b.cites.cites = append(b.cites.cites, traffic.PageCitation{Path: fmt.Sprintf("/p/%d", i), Engine: "gpt-4o", Operator: "OpenAI", ReportID: "r", Answer: fmt.Sprint(i % 25)})
		}
		var times []time.Duration
		principal := auth.Principal{WorkspaceID: b.workspaceID(t), Plan: "business"}
		for i := 0; i < 21; i++ {
			s := time.Now()
			r, err := svc.Pages(context.Background(), principal, b.siteKey(), 90)
			if err != nil {
				t.Fatal(err)
			}
			times = append(times, time.Since(s))
			if i == 0 {
				t.Logf("pages view: %d pages", len(r.Pages))
			}
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		t.Logf("Herald (%s): pages view, 5,000 pages over 90 days: p50 %v, max %v", st.Dialect, times[len(times)/2].Round(time.Microsecond), times[len(times)-1].Round(time.Microsecond))
	})
}

// seedPages writes 90 days of crawler hits and AI landings over 5,000
// pages: each page crawled by two operators on 12 of the days.
func seedPages(t *testing.T, st *store.Store, b *logBundle) {
	t.Helper()
	var siteID string
	storetest.QueryRow(context.Background(), st, `SELECT id FROM traffic_sites WHERE site_key = $1`, b.siteKey()).Scan(&siteID)
	rng := rand.New(rand.NewPCG(3, 4))
	now := time.Now().UnixMilli()
	var hits []store.CrawlerHit
	roll := store.NewTrafficRollups()
	for p := 0; p < 5000; p++ {
		path := fmt.Sprintf("/p/%d", p)
		for k := 0; k < 12; k++ {
			at := now - int64(rng.IntN(90))*86_400_000
			hits = append(hits, store.CrawlerHit{At: at, Bot: "GPTBot", Operator: "OpenAI", Verified: true, Method: "GET", Path: path, Status: 200},
				store.CrawlerHit{At: at, Bot: "PerplexityBot", Operator: "Perplexity", Verified: k%2 == 0, Method: "GET", Path: path, Status: 200})
			roll.AddLanding(siteID, store.Day(at), path, "chatgpt")
		}
	}
	for len(hits) > 0 {
		n := min(len(hits), 10000)
		if err := st.RecordCrawlerHits(context.Background(), store.CrawlerBatch{SiteID: siteID, Hits: hits[:n]}); err != nil {
			t.Fatal(err)
		}
		hits = hits[n:]
	}
	if err := st.AddTrafficRollups(context.Background(), roll); err != nil {
		t.Fatal(err)
	}
	// The steady state: the fold has merged the ingest's deltas into page_days.
	if _, err := st.FoldPageDays(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
}
