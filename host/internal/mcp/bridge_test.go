package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	heraldmcp "github.com/heraldhq/herald/host/internal/mcp"
)

// TestStdioBridge runs the bridge of `herald mcp --stdio` over an
// in-memory pipe (stdio's stand-in) to the real host over HTTP: the desktop
// client sees the host's tools and resources and acts as the key's
// workspace.
func TestStdioBridge(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serverT, clientT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- heraldmcp.Bridge(ctx, b.url+"/mcp", b.acme, "test", serverT) }()

	// A bridge that fails before serving leaves the client's initialize
	// unanswered: wait for whichever comes first.
	type result struct {
		cs  *mcp.ClientSession
		err error
	}
	connected := make(chan result, 1)
	go func() {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, nil).Connect(ctx, clientT, nil)
		connected <- result{cs, err}
	}()
	var cs *mcp.ClientSession
	select {
	case err := <-done:
		t.Fatalf("the bridge ended before serving: %v", err)
	case r := <-connected:
		if r.err != nil {
			t.Fatal(r.err)
		}
		cs = r.cs
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(allTools) {
		t.Fatalf("bridged tools: %v %v", tools, err)
	}
	msg := toolErr(t, "schedule_content", call(t, cs, "schedule_content", map[string]any{"exportTo": "linkedin", "text": "x", "status": "draft"}))
	if !strings.Contains(msg, "ask them to approve") {
		t.Errorf("bridged confirm rule: %q", msg)
	}
	ok(t, "schedule_content", call(t, cs, "schedule_content", map[string]any{"exportTo": "linkedin", "text": "x", "status": "draft", "confirm": true}))
	if n := b.schedules(t, b.acmeID); n != 1 {
		t.Fatalf("%d schedules in the key's workspace, want 1", n)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 {
		t.Fatalf("bridged resource templates: %v %v", tmpl, err)
	}
	cs.Close()
	<-done // the bridge ends when its client goes away
}

// The bridge passes the host's approval question on to the desktop client
// (which accepts or declines), and refuses for a desktop client that
// cannot ask, with a key whose write tools ask.
func TestStdioBridgeAsksTheDesktopUser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		name string
		a    *asker // nil: the desktop client cannot ask
		want string // tool error, or "" for success
	}{
		{"accept", &asker{action: "accept"}, ""},
		{"decline", &asker{action: "decline"}, "the user declined"},
		{"cannot ask", nil, "cannot ask the user"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		serverT, clientT := mcp.NewInMemoryTransports()
		done := make(chan error, 1)
		go func() { done <- heraldmcp.Bridge(ctx, b.url+"/mcp", b.acmeAsk, "test", serverT) }()
		opts := &mcp.ClientOptions{}
		if tc.a != nil {
			opts.ElicitationHandler = tc.a.handle
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, opts).Connect(ctx, clientT, nil)
		if err != nil {
			t.Fatal(err)
		}
		before := b.schedules(t, b.acmeID)
		res := call(t, cs, "schedule_content", post)
		after := b.schedules(t, b.acmeID)
		if tc.want == "" {
			ok(t, tc.name, res)
			if after != before+1 || len(tc.a.asked()) != 1 || !strings.Contains(tc.a.asked()[0], "Our spring launch is live") {
				t.Fatalf("%s: schedules %d → %d, questions %q", tc.name, before, after, tc.a.asked())
			}
		} else if msg := toolErr(t, tc.name, res); !strings.Contains(msg, tc.want) || after != before {
			t.Fatalf("%s: %q, schedules %d → %d", tc.name, msg, before, after)
		}
		cs.Close()
		<-done
		cancel()
	}
}

func TestStdioBridgeRefusesABadKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	serverT, _ := mcp.NewInMemoryTransports()
	err := heraldmcp.Bridge(context.Background(), b.url+"/mcp", "hk_wrong", "test", serverT)
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("bad key: %v", err)
	}
	if err := heraldmcp.Bridge(context.Background(), b.url+"/mcp", "", "test", serverT); err == nil || !strings.Contains(err.Error(), "HERALD_API_KEY") {
		t.Fatalf("no key: %v", err)
	}
}
