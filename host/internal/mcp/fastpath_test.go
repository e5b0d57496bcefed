package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	heraldmcp "github.com/heraldhq/herald/host/internal/mcp"
)

// rpc is one JSON-RPC POST to /mcp, as a client would send it.
type rpc struct {
	version string // Mcp-Protocol-Version; "2026-07-28" adds the SDK client's headers and _meta
	id      string // the id's JSON
	tool    string
	args    string // the arguments' JSON; "" leaves them out
	key     string
	header  http.Header // more headers
	body    string      // the whole body, instead of the above
}

func (c rpc) request(t testing.TB, url string) *http.Request {
	t.Helper()
	body := c.body
	if body == "" {
		params := []string{}
		if c.version >= "2026-07-28" {
			params = append(params, `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},`+
				`"io.modelcontextprotocol/clientInfo":{"name":"probe","version":"1"},"io.modelcontextprotocol/protocolVersion":"`+c.version+`"}`)
		}
		params = append(params, fmt.Sprintf(`"name":%q`, c.tool))
		if c.args != "" {
			params = append(params, `"arguments":`+c.args)
		}
		id := c.id
		if id == "" {
			id = "7"
		}
		body = `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + strings.Join(params, ",") + `}}`
	}
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.key != "" {
		req.Header.Set("api-key", c.key)
	}
	if c.version != "" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
	if c.version >= "2026-07-28" {
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", c.tool)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	return req
}

// answer is what a client sees of a response.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func send(t testing.TB, req *http.Request) answer {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, body}
}

// TestFastPathAnswersAsTheSDK sends each request to the handler with the
// tools/call fast path and to the SDK alone, and wants the same status,
// content headers and JSON body: for the read-only tools' results and tool
// errors (a plan rule, another workspace, an API validation), and for what
// the fast path leaves to the SDK (unknown tools, arguments that fail the
// schema, missing or bad keys, other methods). Successful results must be
// byte for byte the SDK's, and the fast path must have answered them.
func TestFastPathAnswersAsTheSDK(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.session(t, b.acme)
	for _, text := range []string{"one <b>&</b>", "two \u2028 \"quoted\""} {
		ok(t, "schedule_content", call(t, cs, "schedule_content", map[string]any{"exportTo": "linkedin", "text": text, "status": "draft", "confirm": true}))
	}
	ok(t, "ensure_tracking_site", call(t, cs, "ensure_tracking_site", nil))
	site := ok(t, "ensure_tracking_site", call(t, cs, "ensure_tracking_site", nil))
	siteKey, _ := site["site"].(map[string]any)["siteKey"].(string)
	if siteKey == "" {
		t.Fatalf("ensure_tracking_site: %v", site)
	}
	if status, body := b.rest(t, "POST", "/v1/ai/generate/brand-voice/text", b.acme, `{"name":"Crisp","content":"Short sentences."}`); status != 201 {
		t.Fatalf("create voice: %d %v", status, body)
	}
	fast := httptest.NewServer(b.mcpServer.Handler())
	t.Cleanup(fast.Close)
	sdk := httptest.NewServer(heraldmcp.SDKHandler(b.mcpServer))
	t.Cleanup(sdk.Close)

	seo := `{"title":"Lighthouses","content":"# Lighthouses\n\nBrittany has many lighthouses.","keywords":["lighthouses"]}`
	results := []rpc{ // answered by the fast path
		{tool: "list_schedules", key: b.acme},
		{tool: "list_schedules", args: `{}`, key: b.acme},
		{tool: "list_schedules", args: `{"skip":1}`, key: b.acme},
		{tool: "list_schedules", args: `{"skip":-1}`, key: b.acme},
		{tool: "list_schedules", args: `{}`, key: b.other},
		{tool: "list_schedules", args: `{}`, key: b.pro},
		{tool: "list_brand_voices", args: `{}`, key: b.acme},
		{tool: "calculate_seo_score", args: seo, key: b.acme},
		{tool: "calculate_seo_score", args: `{"content":""}`, key: b.acme},
		{tool: "get_visibility_report", args: `{"evidence":true}`, key: b.acme},
		{tool: "get_ai_traffic_stats", args: `{"days":30}`, key: b.acme},
		{tool: "get_ai_traffic_stats", args: `{"days":0}`, key: b.acme},
		{tool: "get_ai_traffic_stats", args: `{}`, key: b.other},
		{tool: "get_ai_traffic_stats", args: fmt.Sprintf(`{"siteKey":%q}`, siteKey), key: b.acme},
		{tool: "get_ai_traffic_stats", args: fmt.Sprintf(`{"siteKey":%q}`, siteKey), key: b.other},
		{tool: "get_ai_traffic_stats", args: `{"days":7,"source":"chatgpt"}`, key: b.acme, id: `"req-1"`},
		{tool: "list_schedules", args: `{}`, key: b.acme, header: http.Header{"Authorization": {"Bearer " + b.acme}, "Api-Key": nil}},
	}
	sdkOnly := []rpc{ // left to the SDK
		{tool: "nope", args: `{}`, key: b.acme},
		{tool: "schedule_content", args: `{"exportTo":"linkedin","text":"x","status":"draft"}`, key: b.acme},
		{tool: "ensure_tracking_site", args: `{}`, key: b.acme},
		{tool: "list_schedules", args: `{"skip":"x"}`, key: b.acme},
		{tool: "list_schedules", args: `{"skip":1.5}`, key: b.acme},
		{tool: "list_schedules", args: `{"skip":1.0}`, key: b.acme},
		{tool: "list_schedules", args: `{"skip":99999999999}`, key: b.acme},
		{tool: "list_schedules", args: `{"Skip":1}`, key: b.acme},
		{tool: "list_schedules", args: `{"other":1}`, key: b.acme},
		{tool: "list_schedules", args: `null`, key: b.acme},
		{tool: "get_ai_traffic_stats", args: `{"days":null}`, key: b.acme},
		{tool: "calculate_seo_score", args: `{"title":"x"}`, key: b.acme},
		{tool: "calculate_seo_score", args: `{"content":"x","keywords":["a",1]}`, key: b.acme},
		{tool: "list_schedules", args: `{}`},
		{tool: "list_schedules", args: `{}`, key: "hk_nope"},
		{tool: "list_schedules", args: `{}`, key: b.acme, id: `1.5`},
		{tool: "list_schedules", args: `{}`, key: b.acme, header: http.Header{"Accept": {"application/json"}}},
		{tool: "list_schedules", args: `{}`, key: b.acme, header: http.Header{"Mcp-Session-Id": {"abc"}}},
		{key: b.acme, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{key: b.acme, body: `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_schedules","arguments":{}}}]`},
		{key: b.acme, body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"list_schedules","arguments":{}}}`},
		{key: b.acme, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_schedules","arguments":{}}} x`},
		{key: b.acme, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"list_schedules"}}`},
	}
	compare := func(c rpc, wantFast bool) {
		t.Helper()
		before := heraldmcp.FastCalls(b.mcpServer)
		got := send(t, c.request(t, fast.URL))
		served := heraldmcp.FastCalls(b.mcpServer) - before
		want := send(t, c.request(t, sdk.URL))
		name := fmt.Sprintf("%s %s %s %s", c.version, c.tool, c.args, c.body)
		if wantFast != (served == 1) {
			t.Errorf("%s: fast path answered %d, want fast %v", name, served, wantFast)
		}
		if got.status != want.status {
			t.Errorf("%s: status %d, SDK %d: %s / %s", name, got.status, want.status, got.body, want.body)
			return
		}
		for _, h := range []string{"Content-Type", "Cache-Control", "WWW-Authenticate", "Allow"} {
			if got.header.Get(h) != want.header.Get(h) {
				t.Errorf("%s: %s %q, SDK %q", name, h, got.header.Get(h), want.header.Get(h))
			}
		}
		if !jsonEqual(got.body, want.body) {
			t.Errorf("%s:\nfast %s\nSDK  %s", name, clipped(got.body), clipped(want.body))
		} else if wantFast && !bytes.Equal(got.body, want.body) {
			t.Errorf("%s: not the SDK's bytes:\nfast %s\nSDK  %s", name, clipped(got.body), clipped(want.body))
		}
	}
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18", ""} {
		for _, c := range results {
			c.version = version
			compare(c, true)
		}
		for _, c := range sdkOnly {
			c.version = version
			compare(c, false)
		}
	}
	// The new protocol's _meta and headers are the SDK's to check.
	for _, c := range []rpc{
		{version: "2026-07-28", tool: "list_schedules", args: `{}`, key: b.acme, header: http.Header{"Mcp-Method": nil}},
		{version: "2026-07-28", tool: "list_schedules", args: `{}`, key: b.acme, header: http.Header{"Mcp-Name": {"list_brand_voices"}}},
		{version: "2026-07-28", key: b.acme, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_schedules","arguments":{}}}`},
		{version: "2026-07-28", key: b.acme, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"list_schedules"}}`},
		{version: "2026-07-28", key: b.acme, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18","io.modelcontextprotocol/clientCapabilities":{}},"name":"list_schedules"}}`},
		{version: "2026-07-28", key: b.acme, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":"yes"}}},"name":"list_schedules"}}`},
		{version: "2025-06-18", key: b.acme, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"list_schedules"}}`},
		{version: "1999-01-01", tool: "list_schedules", args: `{}`, key: b.acme},
	} {
		compare(c, false)
	}
	// And the SDK's client gets its answers from the fast path.
	before := heraldmcp.FastCalls(b.mcpServer)
	if out := ok(t, "list_schedules", call(t, cs, "list_schedules", nil)); out["total"] != float64(2) {
		t.Fatalf("list_schedules through the SDK client: %v", out)
	}
	if heraldmcp.FastCalls(b.mcpServer) != before+1 {
		t.Fatal("the SDK client's call did not take the fast path")
	}
}

func clipped(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}
