package mcp_test

import (
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkListSchedules measures what the MCP face costs over the REST
// route it wraps, for two tools: list_schedules (a page of 20 schedules,
// GET /v1/scheduler) and get_ai_traffic_stats (30 days of a site,
// GET /v1/ai-traffic/stats). Each iteration makes one REST call and one MCP
// tool call over Streamable HTTP (the SDK's client, stateless, JSON
// responses), in alternating order, same process, same store, same
// keep-alive HTTP transport; each side's p50 and the ratio mcp/rest are
// reported.
func BenchmarkListSchedules(b *testing.B) {
	h := setup(b)
	cs := h.session(b, h.acme)
	for range 20 {
		ok(b, "schedule_content", call(b, cs, "schedule_content", map[string]any{"exportTo": "linkedin", "text": "bench", "status": "draft", "confirm": true}))
	}
	ok(b, "ensure_tracking_site", call(b, cs, "ensure_tracking_site", nil))
	for _, c := range []struct {
		name, path, tool string
		args             map[string]any
	}{
		{"list_schedules", "/v1/scheduler", "list_schedules", nil},
		{"get_ai_traffic_stats", "/v1/ai-traffic/stats?days=30", "get_ai_traffic_stats", map[string]any{"days": 30}},
	} {
		b.Run(c.name, func(b *testing.B) {
			rest := func() {
				if status, _ := h.rest(b, "GET", c.path, h.acme, ""); status != 200 {
					b.Fatal(status)
				}
			}
			tool := func() { ok(b, c.tool, call(b, cs, c.tool, c.args)) }
			benchPair(b, rest, tool)
		})
	}
}

// benchPair times base and x once per iteration each, alternating which
// goes first, after a warm-up of both, and reports their p50s and ratio.
func benchPair(b *testing.B, base, x func()) {
	for range 50 {
		base()
		x()
	}
	var tb, tx []time.Duration
	var cpu [2]time.Duration // process CPU (user + system) during base, x
	timed := func(f func(), into *[]time.Duration, side int) {
		c0 := processCPU()
		t0 := time.Now()
		f()
		*into = append(*into, time.Since(t0))
		cpu[side] += processCPU() - c0
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			timed(base, &tb, 0)
			timed(x, &tx, 1)
		} else {
			timed(x, &tx, 1)
			timed(base, &tb, 0)
		}
		i++
	}
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds())
	}
	rb, rx := p50(tb), p50(tx)
	b.ReportMetric(rb, "rest-p50-µs")
	b.ReportMetric(rx, "mcp-p50-µs")
	b.ReportMetric(rx/rb, "ratio")
	n := float64(len(tb))
	cb, cx := float64(cpu[0].Microseconds())/n, float64(cpu[1].Microseconds())/n
	b.ReportMetric(cb, "rest-cpu-µs/call")
	b.ReportMetric(cx, "mcp-cpu-µs/call")
	b.ReportMetric(cx/cb, "cpu-ratio")
}

// processCPU is the user + system CPU time of the process so far (client
// and server both run in it).
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
