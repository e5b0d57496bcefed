package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var allTools = []string{
	"calculate_seo_score", "cancel_schedule", "ensure_tracking_site", "generate_image", "generate_text",
	"get_ai_traffic_stats", "get_visibility_report", "list_brand_voices", "list_schedules", "schedule_content",
}

func TestInitializeAndToolsList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.session(t, b.acme)
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "herald" || init.Capabilities.Tools == nil || init.Capabilities.Resources == nil {
		t.Fatalf("initialize: %+v, capabilities %+v", init.ServerInfo, init.Capabilities)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 40 {
			t.Errorf("%s: description too thin: %q", tool.Name, tool.Description)
		}
		schema, _ := tool.InputSchema.(map[string]any)
		if schema["type"] != "object" {
			t.Errorf("%s: input schema %v", tool.Name, tool.InputSchema)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Fatalf("tools %v, want %v", names, allTools)
	}
	sc := res.Tools[slices.IndexFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "schedule_content" })]
	props := sc.InputSchema.(map[string]any)["properties"].(map[string]any)
	for _, p := range []string{"exportTo", "contentToExport", "whenToExport", "imageBase64", "image", "confirm"} {
		if _, ok := props[p]; !ok {
			t.Errorf("schedule_content schema lacks %s: %v", p, props)
		}
	}
	if !strings.Contains(sc.Description, "confirm") {
		t.Errorf("schedule_content description does not tell about confirm: %q", sc.Description)
	}
	tmpl, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "herald://brand-voices/{id}" {
		t.Fatalf("resource templates %v, %v", tmpl, err)
	}
}

func TestUnauthenticatedIs401(t *testing.T) {
	t.Parallel()
	b := setup(t)
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for name, h := range map[string]http.Header{
		"no key":           {},
		"bad key":          {"Api-Key": {"hk_nope"}},
		"bearer not a key": {"Authorization": {"Bearer eyJhbGciOiJIUzI1NiJ9.e30.x"}},
		"basic":            {"Authorization": {"Basic " + b.acme}},
	} {
		req, _ := http.NewRequest("POST", b.url+"/mcp", strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			req.Header[k] = v
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, res.StatusCode)
		}
	}
	// Behind a reverse proxy on the same machine the Host header is the
	// public name: with a key, the request is served.
	req, _ := http.NewRequest("POST", b.url+"/mcp", strings.NewReader(initBody))
	req.Host = "herald.example.com"
	req.Header.Set("api-key", b.acme)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("initialize through a proxy: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	// Stateless: no standalone stream to GET, with a key.
	req, _ = http.NewRequest("GET", b.url+"/mcp", nil)
	req.Header.Set("api-key", b.acme)
	req.Header.Set("Accept", "text/event-stream")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	if _, err := b.connect(t, http.Header{"Api-Key": {"hk_nope"}}); err == nil {
		t.Fatal("the SDK client connected with a bad key")
	}
	// Clients that only send Authorization: Bearer <api key> get in.
	cs, err := b.connect(t, http.Header{"Authorization": {"Bearer " + b.acme}})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, "list_brand_voices", call(t, cs, "list_brand_voices", nil))
}

func TestScheduleContentNeedsConfirm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.session(t, b.acme)
	args := map[string]any{"exportTo": "linkedin", "text": "Launch day!", "status": "draft"}
	for _, confirm := range []any{nil, false} {
		a := map[string]any{"confirm": confirm}
		for k, v := range args {
			a[k] = v
		}
		if confirm == nil {
			delete(a, "confirm")
		}
		msg := toolErr(t, "schedule_content", call(t, cs, "schedule_content", a))
		if !strings.Contains(msg, "ask them to approve") || !strings.Contains(msg, "confirm: true") {
			t.Errorf("confirm %v: message does not tell the assistant to ask the user: %q", confirm, msg)
		}
	}
	if n := b.schedules(t, b.acmeID); n != 0 {
		t.Fatalf("%d schedules created without confirm", n)
	}
	args["confirm"] = true
	out := ok(t, "schedule_content", call(t, cs, "schedule_content", args))
	if out["message"] != "Draft saved" {
		t.Errorf("response %v", out)
	}
	if n := b.schedules(t, b.acmeID); n != 1 {
		t.Fatalf("%d schedules after one confirmed call, want 1", n)
	}
	// The REST face sees the same schedule.
	status, body := b.rest(t, "GET", "/v1/scheduler", b.acme, "")
	if status != 200 || body["total"] != float64(1) {
		t.Fatalf("GET /v1/scheduler: %d %v", status, body)
	}
}

func TestScheduleContentFollowsTheAPIRules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.session(t, b.acme)
	// The API's own messages come back as tool errors.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"exportTo": "linkedin", "text": "x", "whenToExport": "tomorrow", "confirm": true}, "whenToExport \"tomorrow\" is not an ISO-8601 time"},
		{map[string]any{"exportTo": "myspace", "text": "x", "status": "draft", "confirm": true}, "exportTo \"myspace\" is not a configured destination"},
		{map[string]any{"exportTo": "linkedin", "confirm": true, "status": "draft"}, "contentToExport is required"},
		{map[string]any{"exportTo": "linkedin", "text": "x", "status": "later", "confirm": true}, "status must be pending or draft"},
	} {
		msg := toolErr(t, "schedule_content", call(t, cs, "schedule_content", c.args))
		if !strings.Contains(msg, c.want) {
			t.Errorf("%v: message %q, want %q", c.args, msg, c.want)
		}
		// Word for word what POST /v1/scheduler/create answers.
		body, _ := json.Marshal(c.args)
		if status, rest := b.rest(t, "POST", "/v1/scheduler/create", b.acme, string(body)); status != 400 || rest["message"] != msg {
			t.Errorf("%v: REST says %d %q, MCP %q", c.args, status, rest["message"], msg)
		}
	}
	// The scheduler's api-key plan rule.
	msg := toolErr(t, "schedule_content", call(t, b.session(t, b.pro), "schedule_content",
		map[string]any{"exportTo": "linkedin", "text": "x", "status": "draft", "confirm": true}))
	if !strings.Contains(msg, "business plan") {
		t.Errorf("pro plan: %q", msg)
	}
	if n := b.schedules(t, b.acmeID); n != 0 {
		t.Fatalf("%d schedules created by refused calls", n)
	}
	// Image handling: base64 is stored and a durable imageUrl written.
	out := ok(t, "schedule_content", call(t, cs, "schedule_content", map[string]any{
		"exportTo": "linkedin", "text": "with image", "status": "draft", "confirm": true,
		"imageBase64": base64.StdEncoding.EncodeToString(pngBytes), "imageFileName": "launch.png",
	}))
	sc := out["schedule"].(map[string]any)
	url, _ := sc["contentToExport"].(map[string]any)["imageUrl"].(string)
	if !strings.HasPrefix(url, b.blobBase+"/v1/blobs/") {
		t.Fatalf("imageUrl %q is not a stored blob: %v", url, sc)
	}
}

func TestListAndCancelSchedulesStayInTheWorkspace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	acme, other := b.session(t, b.acme), b.session(t, b.other)
	created := ok(t, "schedule_content", call(t, acme, "schedule_content",
		map[string]any{"exportTo": "linkedin", "text": "hello", "status": "draft", "confirm": true}))
	id := created["schedule"].(map[string]any)["id"].(string)

	list := ok(t, "list_schedules", call(t, acme, "list_schedules", nil))
	if list["total"] != float64(1) {
		t.Fatalf("acme list: %v", list)
	}
	// The tool's result is the REST route's body.
	if _, rest := b.rest(t, "GET", "/v1/scheduler", b.acme, ""); !reflect.DeepEqual(rest, list) {
		t.Fatalf("list_schedules %v\nGET /v1/scheduler %v", list, rest)
	}
	if l := ok(t, "list_schedules", call(t, other, "list_schedules", nil)); l["total"] != float64(0) || len(l["schedulers"].([]any)) != 0 {
		t.Fatalf("other workspace sees acme's schedules: %v", l)
	}
	msg := toolErr(t, "cancel_schedule", call(t, other, "cancel_schedule", map[string]any{"id": id}))
	if !strings.Contains(strings.ToLower(msg), "not found") {
		t.Errorf("other workspace cancel: %q", msg)
	}
	if n := b.schedules(t, b.acmeID); n != 1 {
		t.Fatalf("other workspace removed acme's schedule (%d left)", n)
	}
	res := ok(t, "cancel_schedule", call(t, acme, "cancel_schedule", map[string]any{"id": id}))
	if res["id"] != id {
		t.Fatalf("cancel: %v", res)
	}
	if n := b.schedules(t, b.acmeID); n != 0 {
		t.Fatalf("the draft was not removed (%d left)", n)
	}
}

func TestBrandVoicesToolAndResource(t *testing.T) {
	t.Parallel()
	b := setup(t)
	status, body := b.rest(t, "POST", "/v1/ai/generate/brand-voice/text", b.acme, `{"name":"Crisp","content":"Short sentences. No jargon. Warm."}`)
	if status != 201 {
		t.Fatalf("create voice: %d %v", status, body)
	}
	id := body["data"].(map[string]any)["id"].(string)
	acme, other := b.session(t, b.acme), b.session(t, b.other)
	list := ok(t, "list_brand_voices", call(t, acme, "list_brand_voices", nil))
	if !strings.Contains(text(call(t, acme, "list_brand_voices", nil)), id) {
		t.Fatalf("acme's list lacks %s: %v", id, list)
	}
	if strings.Contains(text(call(t, other, "list_brand_voices", nil)), id) {
		t.Fatal("another workspace lists acme's voice")
	}
	uri := "herald://brand-voices/" + id
	res, err := acme.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" || !strings.Contains(res.Contents[0].Text, "No jargon") {
		t.Fatalf("resource: %+v", res.Contents)
	}
	if _, err := other.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("another workspace reads acme's voice: %v", err)
	}
}

func TestGenerationAndScoringTools(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.session(t, b.acme)
	txt := ok(t, "generate_text", call(t, cs, "generate_text", map[string]any{"text": "Write a tagline", "model": "gpt-4o"}))
	if !strings.Contains(text(call(t, cs, "generate_text", map[string]any{"text": "Write a tagline", "model": "gpt-4o"})), "echo: ") {
		t.Fatalf("generate_text: %v", txt)
	}
	msg := toolErr(t, "generate_text", call(t, cs, "generate_text", map[string]any{"text": "", "model": "gpt-4o"}))
	if !strings.Contains(msg, "text") {
		t.Errorf("empty prompt: %q", msg)
	}
	img := ok(t, "generate_image", call(t, cs, "generate_image", map[string]any{"text": "a lighthouse"}))
	if url, _ := img["data"].(map[string]any)["url"].(string); !strings.HasPrefix(url, b.blobBase) {
		t.Fatalf("generate_image: %v", img)
	}
	seo := ok(t, "calculate_seo_score", call(t, cs, "calculate_seo_score", map[string]any{
		"title": "Lighthouses of Brittany", "content": "# Lighthouses of Brittany\n\nBrittany has more lighthouses than any other region of France.", "keywords": []any{"lighthouses"},
	}))
	if _, ok := seo["data"]; !ok {
		t.Fatalf("calculate_seo_score: %v", seo)
	}
	if msg := toolErr(t, "calculate_seo_score", call(t, cs, "calculate_seo_score", map[string]any{"content": ""})); !strings.Contains(msg, "content") {
		t.Errorf("empty content: %q", msg)
	}
	rep := ok(t, "get_visibility_report", call(t, cs, "get_visibility_report", nil))
	if rep["isEmpty"] != true {
		t.Fatalf("get_visibility_report without a report: %v", rep)
	}
}

func TestTrafficTools(t *testing.T) {
	t.Parallel()
	b := setup(t)
	acme, other := b.session(t, b.acme), b.session(t, b.other)
	site := ok(t, "ensure_tracking_site", call(t, acme, "ensure_tracking_site", nil))
	if !strings.Contains(text(call(t, acme, "ensure_tracking_site", nil)), "acme.example") {
		t.Fatalf("ensure_tracking_site: %v", site)
	}
	if o := ok(t, "ensure_tracking_site", call(t, other, "ensure_tracking_site", nil)); o["needsDomain"] != true {
		t.Fatalf("other workspace (no website): %v", o)
	}
	stats := ok(t, "get_ai_traffic_stats", call(t, acme, "get_ai_traffic_stats", map[string]any{"days": 7}))
	if !strings.Contains(text(call(t, acme, "get_ai_traffic_stats", map[string]any{"days": 7})), "acme.example") {
		t.Fatalf("stats: %v", stats)
	}
	if msg := toolErr(t, "get_ai_traffic_stats", call(t, acme, "get_ai_traffic_stats", map[string]any{"days": 0})); !strings.Contains(msg, "days") {
		t.Errorf("days 0: %q", msg)
	}
}
