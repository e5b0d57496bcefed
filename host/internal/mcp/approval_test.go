package mcp_test

import (
	"context"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heraldhq/herald/host/internal/auth"
)

func month() string { return time.Now().UTC().Format("2006-01") }

// asker is an MCP client that supports elicitation and answers every
// question with action, recording the questions.
type asker struct {
	mu        sync.Mutex
	action    string
	questions []string
}

func (a *asker) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.questions = append(a.questions, req.Params.Message)
	return &mcp.ElicitResult{Action: a.action}, nil
}

func (a *asker) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.questions...)
}

func (b *bundle) askingSession(t *testing.T, key string, a *asker, mrtr *mcp.MultiRoundTripOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := b.connectWith(t, http.Header{"Api-Key": {key}}, &mcp.ClientOptions{ElicitationHandler: a.handle, MultiRoundTrip: mrtr})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// post is a draft (a pending post needs a connected destination; the
// approval rule is the same for both).
var post = map[string]any{"exportTo": "linkedin", "text": "Our spring launch is live", "status": "draft", "confirm": true}

// Every tool carries hints, and the hints say what it does.
func TestToolAnnotations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res, err := b.session(t, b.acme).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{"list_schedules": true, "list_brand_voices": true, "calculate_seo_score": true,
		"get_visibility_report": true, "get_ai_traffic_stats": true}
	for _, tool := range res.Tools {
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		if a.ReadOnlyHint != readOnly[tool.Name] {
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		}
		if !a.ReadOnlyHint && a.DestructiveHint == nil {
			t.Errorf("%s: a write tool without destructiveHint", tool.Name)
		}
		if a.OpenWorldHint == nil {
			t.Errorf("%s: no openWorldHint", tool.Name)
		}
		switch tool.Name {
		case "cancel_schedule":
			if !*a.DestructiveHint || !a.IdempotentHint {
				t.Errorf("cancel_schedule: %+v", a)
			}
		case "schedule_content", "generate_text", "generate_image":
			if *a.DestructiveHint || a.IdempotentHint {
				t.Errorf("%s: %+v", tool.Name, a)
			}
		case "ensure_tracking_site":
			if *a.DestructiveHint || !a.IdempotentHint {
				t.Errorf("ensure_tracking_site: %+v", a)
			}
		}
	}
}

// A client that cannot ask the user (no elicitation) is refused every
// write tool, and nothing is written or spent; read tools still answer.
func TestWriteToolsRefusedWithoutElicitation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.session(t, b.acmeAsk)
	ctx := context.Background()
	id := ok(t, "schedule_content", call(t, b.session(t, b.acme), "schedule_content",
		map[string]any{"exportTo": "linkedin", "text": "draft", "status": "draft", "confirm": true}))["schedule"].(map[string]any)["id"].(string)
	before := b.schedules(t, b.acmeID)
	credits, err := creditstore.New(b.store).CreditsUsed(ctx, b.acmeID, month())
	if err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]map[string]any{
		"schedule_content": post,
		"cancel_schedule":  {"id": id},
		"generate_text":    {"text": "write a tagline"},
		"generate_image":   {"text": "a lighthouse"},
	} {
		msg := toolErr(t, name, call(t, cs, name, args))
		if !strings.Contains(msg, "cannot ask the user") || !strings.Contains(msg, "--mcp-unattended") {
			t.Errorf("%s: %q", name, msg)
		}
	}
	if n := b.schedules(t, b.acmeID); n != before {
		t.Fatalf("schedules %d, want %d: a refused call wrote", n, before)
	}
	if st, _ := b.rest(t, "GET", "/v1/scheduler/"+id, b.acme, ""); st != 200 {
		t.Fatalf("the draft is gone after a refused cancel: %d", st)
	}
	if after, _ := creditstore.New(b.store).CreditsUsed(ctx, b.acmeID, month()); after != credits {
		t.Fatalf("credits used %d → %d: a refused call spent", credits, after)
	}
	ok(t, "list_schedules", call(t, cs, "list_schedules", nil))
}

// A client that asks: the user sees the post and accepts (it is
// scheduled), declines or dismisses (nothing is).
func TestWriteToolsAskTheUser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		action string
		want   string // the tool error, or "" for success
	}{{"accept", ""}, {"decline", "the user declined"}, {"cancel", "dismissed"}} {
		a := &asker{action: tc.action}
		cs := b.askingSession(t, b.acmeAsk, a, nil)
		before := b.schedules(t, b.acmeID)
		res := call(t, cs, "schedule_content", post)
		q := a.asked()
		if len(q) != 1 || !strings.Contains(q[0], "Our spring launch is live") || !strings.Contains(q[0], "linkedin") ||
			!strings.Contains(q[0], "draft") {
			t.Fatalf("%s: questions %q", tc.action, q)
		}
		after := b.schedules(t, b.acmeID)
		if tc.want == "" {
			ok(t, "schedule_content", res)
			if after != before+1 {
				t.Fatalf("accepted: schedules %d → %d", before, after)
			}
			continue
		}
		if msg := toolErr(t, "schedule_content", res); !strings.Contains(msg, tc.want) {
			t.Fatalf("%s: %q", tc.action, msg)
		}
		if after != before {
			t.Fatalf("%s: schedules %d → %d", tc.action, before, after)
		}
	}
	// cancel_schedule asks too, naming the post.
	id := ok(t, "schedule_content", call(t, b.session(t, b.acme), "schedule_content",
		map[string]any{"exportTo": "linkedin", "text": "draft", "status": "draft", "confirm": true}))["schedule"].(map[string]any)["id"].(string)
	a := &asker{action: "decline"}
	toolErr(t, "cancel_schedule", call(t, b.askingSession(t, b.acmeAsk, a, nil), "cancel_schedule", map[string]any{"id": id}))
	if q := a.asked(); len(q) != 1 || !strings.Contains(q[0], id) {
		t.Fatalf("cancel questions %q", q)
	}
	if st, _ := b.rest(t, "GET", "/v1/scheduler/"+id, b.acme, ""); st != 200 {
		t.Fatalf("declined cancel removed the draft: %d", st)
	}
	// Read tools never ask.
	ok(t, "list_schedules", call(t, b.askingSession(t, b.acmeAsk, a, nil), "list_schedules", nil))
	if n := len(a.asked()); n != 1 {
		t.Fatalf("a read tool asked: %d questions", n)
	}
}

// The answer is bound to the question: an accept sent with another call's
// arguments, with no request state, or with a forged one, runs nothing.
func TestApprovalBoundToTheCall(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := &asker{action: "accept"}
	cs := b.askingSession(t, b.acmeAsk, a, &mcp.MultiRoundTripOptions{Disabled: true})
	ctx := context.Background()
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "schedule_content", Arguments: post})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || first.RequestState == "" || len(first.InputRequests) != 1 {
		t.Fatalf("first call: needs input %v, state %q, requests %v", first.NeedsInput(), first.RequestState, first.InputRequests)
	}
	var id string
	for k := range first.InputRequests {
		id = k
	}
	accept := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}
	other := map[string]any{"exportTo": "linkedin", "text": "something the user never saw", "status": "draft", "confirm": true}
	before := b.schedules(t, b.acmeID)
	for name, p := range map[string]*mcp.CallToolParams{
		"other arguments": {Name: "schedule_content", Arguments: other, InputResponses: accept, RequestState: first.RequestState},
		"no state":        {Name: "schedule_content", Arguments: post, InputResponses: accept},
		"forged state":    {Name: "schedule_content", Arguments: post, InputResponses: accept, RequestState: first.RequestState[:len(first.RequestState)-4] + "AAAA"},
	} {
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if msg := toolErr(t, name, res); !strings.Contains(msg, "does not match") {
			t.Fatalf("%s: %q", name, msg)
		}
	}
	// Another key of the same workspace cannot use the answer either.
	key2, err := auth.CreateKey(ctx, b.store, "acme", "business", "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.askingSession(t, key2, a, &mcp.MultiRoundTripOptions{Disabled: true}).CallTool(ctx,
		&mcp.CallToolParams{Name: "schedule_content", Arguments: post, InputResponses: accept, RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if msg := toolErr(t, "another key", res); !strings.Contains(msg, "does not match") {
		t.Fatalf("another key: %q", msg)
	}
	if n := b.schedules(t, b.acmeID); n != before {
		t.Fatalf("schedules %d → %d", before, n)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "schedule_content", Arguments: post, InputResponses: accept, RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, "schedule_content", res)
	if n := b.schedules(t, b.acmeID); n != before+1 {
		t.Fatalf("the matching answer: schedules %d → %d", before, n)
	}
}

// The operator's opt-out: an unattended key's write tools run without a
// question, from a client that cannot ask as from one that can.
func TestUnattendedKeyDoesNotAsk(t *testing.T) {
	t.Parallel()
	b := setup(t)
	before := b.schedules(t, b.acmeID)
	ok(t, "schedule_content", call(t, b.session(t, b.acme), "schedule_content", post))
	a := &asker{action: "decline"}
	ok(t, "schedule_content", call(t, b.askingSession(t, b.acme, a, nil), "schedule_content", post))
	if q := a.asked(); len(q) != 0 {
		t.Fatalf("an unattended key asked: %q", q)
	}
	if n := b.schedules(t, b.acmeID); n != before+2 {
		t.Fatalf("schedules %d → %d", before, n)
	}
}
