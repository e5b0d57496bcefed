package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jsonenc"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Deps are the API handlers the tools call. A nil handler leaves its tools
// out (a feature that is not wired has no tool).
type Deps struct {
	Auth   *auth.Authenticator
	Logger hclog.Logger
	// Version is reported to clients in the initialize result.
	Version string
	// MaxBodyBytes caps a request body, as on the API (413 above it;
	// zero: the SDK's 4 MiB).
	MaxBodyBytes int64
	// ApprovalKey signs the request state of approval questions, so that
	// any host with the same key accepts the answer (derive it from the
	// host's secret key). Empty: a random key per process.
	ApprovalKey []byte

	Scheduler  apiv1connect.SchedulerServiceHandler
	Generate   apiv1connect.GenerateServiceHandler
	Voices     apiv1connect.BrandVoiceServiceHandler
	Content    apiv1connect.ContentServiceHandler
	Visibility apiv1connect.VisibilityServiceHandler
	Traffic    apiv1connect.AITrafficServiceHandler
	// Crawlers gives get_ai_pages (citations, crawler hits, AI visits per
	// page).
	Crawlers apiv1connect.AICrawlerServiceHandler
	// Trackers gives list_trackers and get_tracker.
	Trackers apiv1connect.TrackerServiceHandler
	// Events gives list_event_subscriptions and list_recent_events.
	Events apiv1connect.EventServiceHandler
	// Impact gives get_post_impact and list_tracker_impact.
	Impact apiv1connect.ImpactServiceHandler
}

// Server is the MCP server over the API handlers.
type Server struct {
	d    Deps
	log  hclog.Logger
	srv  *mcp.Server
	impl *mcp.Implementation
	// serverMeta is the _meta of a new-protocol result: the server's info.
	serverMeta  []byte
	approvalKey []byte
	// fast is the fast path's rows by tool name (fastpath.go), fastCalls
	// the calls it answered.
	fast      map[string]fastRow
	fastCalls atomic.Int64
}

// New returns the MCP server with the tools and resources its Deps allow.
func New(d Deps) *Server {
	if d.Logger == nil {
		d.Logger = hclog.NewNullLogger()
	}
	if d.Version == "" {
		d.Version = "dev"
	}
	s := &Server{d: d, log: d.Logger.Named("mcp"), approvalKey: d.ApprovalKey}
	if len(s.approvalKey) == 0 {
		s.approvalKey = make([]byte, 32)
		rand.Read(s.approvalKey)
	}
	s.impl = &mcp.Implementation{Name: "herald", Title: "Herald", Version: d.Version}
	s.serverMeta, _ = json.Marshal(mcp.Meta{mcp.MetaKeyServerInfo: s.impl})
	s.srv = mcp.NewServer(s.impl, &mcp.ServerOptions{
		Instructions: "Herald schedules posts to CMSs and social networks, generates text and images in a brand voice, " +
			"scores content for SEO and reports how AI assistants see and send traffic to the user's site. " +
			"Never call schedule_content with confirm: true before the user has approved that exact post.",
	})
	s.fast = map[string]fastRow{}
	for _, t := range s.toolTable() {
		t.add(s)
		if t.fast != nil {
			s.fast[t.tool.Name] = t.fast
		}
	}
	s.addResources()
	return s
}

// Handler serves Streamable HTTP (mount it at /mcp). Every request must
// carry the api-key header, or "Authorization: Bearer <api key>" for
// clients that can only send that; anything else is a 401 before the SDK
// sees the request. The handler is stateless (no Mcp-Session-Id), so any
// host behind a load balancer answers any request. A tools/call of a
// read-only tool is answered by the fast path (fastpath.go), with the
// answer the SDK would give; every other request by the SDK.
func (s *Server) Handler() http.Handler { return s.handler(true) }

// handler is Handler, with the tools/call fast path (fastpath.go) or
// without it (the SDK answers every request; for tests).
func (s *Server) handler(fast bool) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: s.d.MaxBodyBytes,
		// The SDK's DNS-rebinding guard refuses localhost connections whose
		// Host is another name, which is every request through a reverse
		// proxy on the same machine. It protects servers without
		// credentials; here every request must carry the API key, which a
		// rebinding page does not have.
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := keyHeader(r.Header)
		if _, _, err := s.d.Auth.Authenticate(r.Context(), header, auth.APIKey); err != nil {
			msg := "send the api-key header (or Authorization: Bearer <api key>)"
			if ce := new(connect.Error); errors.As(err, &ce) && ce.Code() == connect.CodeUnauthenticated {
				msg = ce.Message()
			} else {
				s.log.Error("authenticate MCP request", "error", err)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("WWW-Authenticate", `Bearer realm="herald"`)
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]string{"message": msg})
			return
		}
		r = r.Clone(r.Context())
		r.Header = header
		if fast && s.serveFast(w, r) {
			return
		}
		h.ServeHTTP(w, r)
	})
}

// keyHeader returns h with the api-key header set from "Authorization:
// Bearer hk_..." when the client sent only that. h itself is not changed.
func keyHeader(h http.Header) http.Header {
	if h.Get("api-key") != "" {
		return h
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(h.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(strings.TrimSpace(token), auth.KeyPrefix) {
		return h
	}
	out := h.Clone()
	out.Set("api-key", strings.TrimSpace(token))
	return out
}

// caller authenticates the HTTP request a tool call or resource read came
// in (its header), and returns ctx carrying the principal, as the API's own
// routes do. Each call is authenticated on its own: a session id proves
// nothing.
func (s *Server) caller(ctx context.Context, header http.Header) (context.Context, auth.Principal, error) {
	if header == nil {
		return ctx, auth.Principal{}, errors.New("missing api-key header")
	}
	p, _, err := s.d.Auth.Authenticate(ctx, keyHeader(header), auth.APIKey)
	if err != nil {
		return ctx, p, err
	}
	return auth.WithPrincipal(ctx, p), p, nil
}

// result turns an API handler's answer into a tool result: the response
// message as the REST route's JSON body, both as text for the model and as
// structured content. An error becomes a tool error
// (IsError) carrying the API's message, never a protocol error.
func (s *Server) result(tool string, msg proto.Message, err error) *mcp.CallToolResult {
	if err != nil {
		return s.toolError(tool, err)
	}
	raw := jsonenc.Marshal(msg)
	// The structured content is the same bytes, passed as they are: decoding
	// them into a map for the SDK to encode again cost more than the API
	// call itself (docs/BENCHMARKS.md, MCP face).
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: json.RawMessage(raw)}
}

// toolError is a tool error with the API's message; anything that is not
// an API error is logged and hidden, as the API hides it.
func (s *Server) toolError(tool string, err error) *mcp.CallToolResult {
	return errorResult(s.message(tool, err))
}

func (s *Server) message(op string, err error) string {
	var ce *connect.Error
	switch {
	case errors.As(err, &ce):
		return ce.Message()
	}
	s.log.Error("MCP call failed", "op", op, "error", err)
	return "internal error"
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}
