// Package loadgen is the HTTP load generator of Herald's benchmarks: a fixed
// number of workers send a fixed number of requests and it reports
// throughput and latency percentiles. Every benchmark that compares Herald
// with a bare net/http handler runs both through this same generator in the
// same process, so the ratio holds on a noisy shared machine.
package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Options describe one run.
type Options struct {
	// Concurrency is the number of workers, each with its own requests in flight one at a time.
	Concurrency int
	// Requests is the total number of requests.
	Requests int
	// New builds request i.
	New func(i int) (*http.Request, error)
	// Check, if set, judges a response (the body is already read); a
	// returned error counts the request as failed.
	Check func(i int, res *http.Response, body []byte) error
}

// Result is the outcome of a run.
type Result struct {
	Requests int
	Errors   int
	Duration time.Duration
	RPS      float64
	P50, P90 time.Duration
	P99, Max time.Duration
	Statuses map[int]int
	// FirstError is the first failure, for diagnosis.
	FirstError error
}

func (r Result) String() string {
	return fmt.Sprintf("%d req in %s: %.0f req/s, p50 %s, p90 %s, p99 %s, max %s, errors %d, statuses %v",
		r.Requests, r.Duration.Round(time.Millisecond), r.RPS, r.P50, r.P90, r.P99, r.Max, r.Errors, r.Statuses)
}

// Client returns an HTTP client tuned for load: keep-alive connections, one
// per worker.
func Client(concurrency int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        concurrency * 2,
			MaxIdleConnsPerHost: concurrency * 2,
			IdleConnTimeout:     60 * time.Second,
		},
	}
}

// Run sends the requests and measures them. It stops early when ctx ends.
func Run(ctx context.Context, client *http.Client, o Options) Result {
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	latencies := make([]time.Duration, o.Requests)
	var next atomic.Int64
	var errs atomic.Int64
	var mu sync.Mutex
	statuses := map[int]int{}
	var firstErr error
	fail := func(err error) {
		errs.Add(1)
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < o.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[int]int{}
			defer func() {
				mu.Lock()
				for k, v := range local {
					statuses[k] += v
				}
				mu.Unlock()
			}()
			for {
				i := int(next.Add(1) - 1)
				if i >= o.Requests || ctx.Err() != nil {
					return
				}
				req, err := o.New(i)
				if err != nil {
					fail(err)
					continue
				}
				t0 := time.Now()
				res, err := client.Do(req.WithContext(ctx))
				if err != nil {
					latencies[i] = time.Since(t0)
					fail(err)
					continue
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				latencies[i] = time.Since(t0)
				local[res.StatusCode]++
				if err != nil {
					fail(err)
					continue
				}
				if o.Check != nil {
					if err := o.Check(i, res, body); err != nil {
						fail(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	done := int(next.Load())
	if done > o.Requests {
		done = o.Requests
	}
	lat := append([]time.Duration(nil), latencies[:done]...)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		idx := int(p*float64(len(lat))+0.5) - 1
		if idx < 0 {
			idx = 0
		}
		if idx >= len(lat) {
			idx = len(lat) - 1
		}
		return lat[idx]
	}
	r := Result{Requests: done, Errors: int(errs.Load()), Duration: elapsed, Statuses: statuses, FirstError: firstErr,
		P50: pct(0.50), P90: pct(0.90), P99: pct(0.99), Max: pct(1)}
	if elapsed > 0 {
		r.RPS = float64(done) / elapsed.Seconds()
	}
	return r
}
