package mcp_test

import (
	"testing"
)

// BenchmarkListSchedules measures what the MCP face costs over the REST
// route it wraps: the same list of 20 schedules read with GET /v1/scheduler
// (the baseline) and with the list_schedules tool over Streamable HTTP,
// in the same run. Report the ratio mcp/rest.
func BenchmarkListSchedules(b *testing.B) {
	h := setup(b)
	cs := h.session(b, h.acme)
	for range 20 {
		ok(b, "schedule_content", call(b, cs, "schedule_content", map[string]any{"exportTo": "linkedin", "text": "bench", "status": "draft", "confirm": true}))
	}
	b.Run("rest", func(b *testing.B) {
		for b.Loop() {
			if status, _ := h.rest(b, "GET", "/v1/scheduler", h.acme, ""); status != 200 {
				b.Fatal(status)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		for b.Loop() {
			ok(b, "list_schedules", call(b, cs, "list_schedules", nil))
		}
	})
}
