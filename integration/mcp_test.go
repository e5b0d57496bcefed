package integration_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heraldhq/herald/integration/harness"
)

// TestMCPOverStdioAndHTTP runs a real host and reaches its MCP tools the
// two ways assistants do: a desktop client starting `herald mcp --stdio`
// (key in HERALD_API_KEY), and a client over Streamable HTTP at /mcp with
// Authorization: Bearer <api key>. Both act on the same workspace. The
// desktop client asks its user (elicitation) when a write tool needs
// approval; the user accepts.
func TestMCPOverStdioAndHTTP(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cmd := exec.Command(harness.Binary(t), "mcp", "--stdio")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "HERALD_API_KEY=" + p.Key, "HERALD_URL=" + p.URL}
	cmd.Stderr = os.Stderr
	var asked []string
	desktop, err := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("herald mcp --stdio: %v", err)
	}
	defer desktop.Close()
	// Ten tools, the trackers' list_trackers and get_tracker, the events'
	// list_event_subscriptions and list_recent_events, get_ai_pages, and
	// the impact's get_post_impact, list_tracker_impact and draft_for_gap.
	tools, err := desktop.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 18 {
		t.Fatalf("tools over stdio: %v %v", tools, err)
	}
	draft := map[string]any{"exportTo": "linkedin", "text": "From the desktop", "status": "draft"}
	res, err := desktop.CallTool(ctx, &mcp.CallToolParams{Name: "schedule_content", Arguments: draft})
	if err != nil || !res.IsError {
		t.Fatalf("schedule_content without confirm: %v %v", res, err)
	}
	draft["confirm"] = true
	if res, err = desktop.CallTool(ctx, &mcp.CallToolParams{Name: "schedule_content", Arguments: draft}); err != nil || res.IsError {
		t.Fatalf("schedule_content with confirm: %v %v", res, err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "From the desktop") {
		t.Fatalf("the desktop user was asked %q", asked)
	}

	httpClient := &http.Client{Transport: bearer(p.Key)}
	web, err := mcp.NewClient(&mcp.Implementation{Name: "web", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.URL + "/mcp", HTTPClient: httpClient, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("HTTP client: %v", err)
	}
	defer web.Close()
	list, err := web.CallTool(ctx, &mcp.CallToolParams{Name: "list_schedules", Arguments: map[string]any{}})
	if err != nil || list.IsError {
		t.Fatalf("list_schedules: %v %v", list, err)
	}
	if text := list.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"total":1`) || !strings.Contains(text, "From the desktop") {
		t.Fatalf("list_schedules over HTTP: %s", text)
	}
	if status, _ := call(t, "POST", p.URL+"/mcp", "", `{}`); status != http.StatusUnauthorized {
		t.Fatalf("/mcp without a key: %d", status)
	}
}

type bearer string

func (k bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(k))
	return http.DefaultTransport.RoundTrip(r)
}
