package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkListSchedules measures what the MCP face costs over the REST
// route it wraps, for two tools: list_schedules (a page of 20 schedules,
// GET /v1/scheduler) and get_ai_traffic_stats (30 days of a site,
// GET /v1/ai-traffic/stats). Each iteration makes one REST call and one
// tool call with each of two MCP clients, in rotating order, same process,
// same store, same keep-alive HTTP transport: the SDK's client (stateless
// Streamable HTTP, JSON responses) and a plain net/http post of the same
// JSON-RPC request the SDK's client sends, decoded with encoding/json, as
// the REST side is. Reported: each side's p50, the ratios to REST, and the
// process CPU per call of each side (client and server both run in it).
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
			sdk := func() { ok(b, c.tool, call(b, cs, c.tool, c.args)) }
			plain := plainCall(b, h.url+"/mcp", h.acme, c.tool, c.args)
			benchSides(b, []string{"rest", "sdk", "plain"}, rest, sdk, plain)
		})
	}
}

// plainCall is a tool call as a client without the SDK makes it: the
// JSON-RPC request the SDK's client sends (protocol 2026-07-28: its
// headers and _meta), posted with net/http, the answer decoded.
func plainCall(b *testing.B, url, key, tool string, args map[string]any) func() {
	if args == nil {
		args = map[string]any{}
	}
	a, _ := json.Marshal(args)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{`+
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"plain","version":"1"},`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":%q,"arguments":%s}}`, tool, a)
	return func() {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("api-key", key)
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var out struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
				IsError           bool           `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &out); err != nil || res.StatusCode != 200 || out.Result.IsError || out.Result.StructuredContent == nil {
			b.Fatalf("%s: %d %v %s", tool, res.StatusCode, err, raw)
		}
	}
}

// benchSides times each side once per iteration, rotating which goes
// first, after a warm-up of all, and reports each side's p50 and process
// CPU per call, and their ratios to the first side (the baseline).
func benchSides(b *testing.B, names []string, sides ...func()) {
	for range 50 {
		for _, f := range sides {
			f()
		}
	}
	n := len(sides)
	times := make([][]time.Duration, n)
	cpu := make([]time.Duration, n)
	i := 0
	for b.Loop() {
		for k := range n {
			j := (i + k) % n
			c0 := processCPU()
			t0 := time.Now()
			sides[j]()
			times[j] = append(times[j], time.Since(t0))
			cpu[j] += processCPU() - c0
		}
		i++
	}
	p50 := make([]float64, n)
	for j := range n {
		slices.Sort(times[j])
		p50[j] = float64(times[j][len(times[j])/2].Microseconds())
		b.ReportMetric(p50[j], names[j]+"-p50-µs")
		c := float64(cpu[j].Microseconds()) / float64(len(times[j]))
		b.ReportMetric(c, names[j]+"-cpu-µs/call")
		if j > 0 {
			b.ReportMetric(p50[j]/p50[0], names[j]+"/"+names[0])
		}
	}
}

// processCPU is the user + system CPU time of the process so far (client
// and server both run in it).
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
