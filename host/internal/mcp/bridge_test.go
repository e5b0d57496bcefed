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
