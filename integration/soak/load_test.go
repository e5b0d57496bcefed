package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// site is a traffic site of one workspace: beacons go to its site key,
// log lines to its ingest secret.
type site struct {
	id, key, secret string
}

// counters are what the senders saw accepted; the run compares them with
// what the database holds at the end.
type counters struct {
	beaconsSent, beaconsAccepted, beaconsFailed atomic.Int64
	linesSent, linesAccepted, linesCrawler      atomic.Int64
	logRequests, logFailed                      atomic.Int64
	firstErr                                    atomic.Value // string
}

func (c *counters) fail(format string, args ...any) {
	c.firstErr.CompareAndSwap(nil, fmt.Sprintf(format, args...))
}

// pace calls send rate times a second, spread evenly, from workers
// goroutines, until ctx ends; a send that cannot start because every
// worker is busy waits (the offered rate falls, and the counts say so).
func pace(ctx context.Context, rate float64, workers int, send func(i int64)) *sync.WaitGroup {
	var wg sync.WaitGroup
	if rate <= 0 {
		return &wg
	}
	work := make(chan int64)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				send(i)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		start := time.Now()
		for i := int64(0); ; i++ {
			due := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(due)):
			}
			select {
			case <-ctx.Done():
				return
			case work <- i:
			}
		}
	}()
	return &wg
}

const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"

// gptbotUA with an address in OpenAI's published GPTBot ranges: verified
// from the shipped range file, without a DNS lookup.
const gptbotUA = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"

var referrers = []string{"https://chatgpt.com/", "https://www.perplexity.ai/", "https://www.google.com/", ""}

// beacon sends pageview i to one of the sites through one of the hosts;
// its session id is unique, so the stored pageviews can be matched one to
// one.
func beacon(client *http.Client, hosts []string, sites []site, c *counters, i int64) {
	s := sites[int(i)%len(sites)]
	body := fmt.Sprintf(`{"siteKey":%q,"path":"/p%d","referrer":%q,"sessionId":"soak-%d"}`, s.key, i%50, referrers[i%4], i)
	req, _ := http.NewRequest("POST", hosts[int(i)%len(hosts)]+"/v1/ai-traffic/collect", strings.NewReader(body))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("User-Agent", browserUA)
	c.beaconsSent.Add(1)
	res, err := client.Do(req)
	if err != nil {
		c.beaconsFailed.Add(1)
		c.fail("beacon %d: %v", i, err)
		return
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		c.beaconsFailed.Add(1)
		c.fail("beacon %d: status %d", i, res.StatusCode)
		return
	}
	c.beaconsAccepted.Add(1)
}

// logPaths is how many pages a site's crawler lines spread over (a site
// of a few thousand pages, as crawlers see it).
const logPaths = 2000

// logBatch posts lines crawler lines (Combined Log Format, GPTBot from a
// published address) for one site through one host, with the site's
// ingest secret. Each line's user agent ends with the line's own id, so
// the stored hits can be matched one to one with the lines sent.
func logBatch(client *http.Client, hosts []string, sites []site, c *counters, batch int64, lines int) {
	s := sites[int(batch)%len(sites)]
	var b strings.Builder
	at := time.Now().UTC().Format("02/Jan/2006:15:04:05 -0700")
	for j := range lines {
		fmt.Fprintf(&b, "20.171.206.%d - - [%s] \"GET /docs/%d HTTP/1.1\" 200 5123 \"-\" \"%s line-%d-%d\"\n", 1+j%250, at, (int(batch)*lines+j)%logPaths, gptbotUA, batch, j)
	}
	req, _ := http.NewRequest("POST", hosts[int(batch)%len(hosts)]+"/v1/ai-traffic/logs", strings.NewReader(b.String()))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Authorization", "Bearer "+s.secret)
	c.logRequests.Add(1)
	c.linesSent.Add(int64(lines))
	res, err := client.Do(req)
	if err != nil {
		c.logFailed.Add(1)
		c.fail("log batch %d: %v", batch, err)
		return
	}
	defer res.Body.Close()
	var out struct {
		Accepted    int64 `json:"accepted"`
		Rejected    int64 `json:"rejected"`
		CrawlerHits int64 `json:"crawlerHits"`
	}
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || json.Unmarshal(raw, &out) != nil {
		c.logFailed.Add(1)
		c.fail("log batch %d: status %d %s", batch, res.StatusCode, raw)
		return
	}
	if out.Rejected != 0 || out.Accepted != int64(lines) {
		c.fail("log batch %d: %d accepted, %d rejected of %d: %s", batch, out.Accepted, out.Rejected, lines, raw)
	}
	c.linesAccepted.Add(out.Accepted)
	c.linesCrawler.Add(out.CrawlerHits)
}

// latencies are the read routes' timings, per route, per sample interval.
type latencies struct {
	mu     sync.Mutex
	cur    map[string][]time.Duration
	all    map[string][]time.Duration
	errors map[string]int
}

func newLatencies() *latencies {
	return &latencies{cur: map[string][]time.Duration{}, all: map[string][]time.Duration{}, errors: map[string]int{}}
}

func (l *latencies) add(route string, d time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !ok {
		l.errors[route]++
		return
	}
	l.cur[route] = append(l.cur[route], d)
	l.all[route] = append(l.all[route], d)
}

// cut returns the p99 of each route since the last cut (and the largest).
func (l *latencies) cut() (per map[string]time.Duration, worst time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	per = map[string]time.Duration{}
	for r, ds := range l.cur {
		p := pct(ds, 0.99)
		per[r] = p
		worst = max(worst, p)
	}
	l.cur = map[string][]time.Duration{}
	return per, worst
}

func pct(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// reader is a dashboard user: it asks the API's read routes in turn,
// alternating hosts and workspaces.
type reader struct {
	client   *http.Client
	hosts    []string
	keys     []string // per workspace
	trackers [][]string
	sites    [][]site
	lat      *latencies
}

func (r *reader) read(i int64) {
	w := int(i/5) % len(r.keys)
	host := r.hosts[int(i)%len(r.hosts)]
	var route, path string
	switch i % 5 {
	case 0:
		route, path = "GET /v1/visibility/trackers", "/v1/visibility/trackers"
	case 1:
		if len(r.trackers[w]) == 0 {
			return // a traffic-only run
		}
		route, path = "GET /v1/visibility/trackers/{id}", "/v1/visibility/trackers/"+r.trackers[w][int(i)%len(r.trackers[w])]
	case 2:
		route, path = "GET /v1/ai-traffic/stats", "/v1/ai-traffic/stats?days=30&siteKey="+r.sites[w][0].key
	case 3:
		route, path = "GET /v1/ai/generate/seo-site-report", "/v1/ai/generate/seo-site-report"
	case 4:
		route, path = "GET /v1/ai-traffic/pages", "/v1/ai-traffic/pages?days=30&siteKey="+r.sites[w][0].key
	}
	req, _ := http.NewRequest("GET", host+path, nil)
	req.Header.Set("api-key", r.keys[w])
	start := time.Now()
	res, err := r.client.Do(req)
	if err != nil {
		r.lat.add(route, 0, false)
		return
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	// The latest report is a 404 until the workspace's first run is done.
	ok := res.StatusCode == http.StatusOK || (i%5 == 3 && res.StatusCode == http.StatusNotFound)
	r.lat.add(route, time.Since(start), ok)
}
