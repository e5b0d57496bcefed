package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bridge serves the MCP tools and resources of the host at endpoint (its
// /mcp URL) over transport t (stdio for `herald mcp --stdio`), as a thin
// client: each call is forwarded with the API key, so the host's services,
// plugins, job queue and rules answer it, exactly as over HTTP. It returns
// when the client on t goes away or ctx ends; a wrong key or an unreachable
// host fails at start with the host's message.
func Bridge(ctx context.Context, endpoint, apiKey, version string, t mcp.Transport) error {
	if apiKey == "" {
		return errors.New("HERALD_API_KEY is not set: create a key with `herald keys create --workspace NAME`")
	}
	httpClient := &http.Client{Transport: keyTransport{key: apiKey, next: http.DefaultTransport}}
	// The host's approval questions (approval.go) are passed on to the
	// desktop client that made the call, which shows them to the user, and
	// its answer back (multi round-trip: the bridge relays the question and
	// the repeated call; for a desktop client on an older protocol the
	// local server asks it with an elicitation request). The bridge
	// declares elicitation to the host for that; it never answers itself.
	client := mcp.NewClient(&mcp.Implementation{Name: "herald-stdio", Version: version}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("the stdio bridge relays questions to its client")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	remote, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", endpoint, err)
	}
	defer remote.Close()

	init := remote.InitializeResult()
	local := mcp.NewServer(&mcp.Implementation{Name: "herald", Title: "Herald", Version: init.ServerInfo.Version},
		&mcp.ServerOptions{Instructions: init.Instructions})
	for tool, err := range remote.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("list tools of %s: %w", endpoint, err)
		}
		local.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := remote.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments,
				InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState})
			if err == nil && res.InputRequests != nil && !canAsk(req) {
				return errorResult(strings.Replace(cannotAsk, "%s", req.Params.Name, 1)), nil
			}
			return res, err
		})
	}
	for tmpl, err := range remote.ResourceTemplates(ctx, nil) {
		if err != nil {
			return fmt.Errorf("list resource templates of %s: %w", endpoint, err)
		}
		local.AddResourceTemplate(tmpl, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return remote.ReadResource(ctx, &mcp.ReadResourceParams{URI: req.Params.URI})
		})
	}
	return local.Run(ctx, t)
}

// canAsk reports whether the desktop client that made req declared
// elicitation.
func canAsk(req *mcp.CallToolRequest) bool {
	c := req.ClientCapabilities()
	return c != nil && c.Elicitation != nil
}

// keyTransport sends the API key with every request to the host.
type keyTransport struct {
	key  string
	next http.RoundTripper
}

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("api-key", k.key)
	return k.next.RoundTrip(r)
}
