package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/schedule"
)

// toolDef is one row of the tool table: the tool and how to register it
// with its handler, and, for the read-only rows that never ask, how the
// fast path (fastpath.go) runs it.
type toolDef struct {
	tool *mcp.Tool
	ask  bool
	add  func(s *Server)
	fast fastRow
}

// Whether a tool's calls need the human's approval (approval.go).
const (
	noAsk    = false
	askHuman = true
)

// prepared is a tool call ready to run: what the human is asked to approve
// (write tools only) and the API handler call.
type prepared struct {
	summary string
	do      func(context.Context) (proto.Message, error)
}

// The tools' hints (MCP tool annotations). Clients show them and may ask
// before calling a tool that is not read-only; Herald does not rely on
// that and asks itself for the tools that publish, delete or spend
// credits (askHuman).
var (
	// readOnly tools read the workspace's data.
	readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	// computes: a pure computation over the arguments.
	computes = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	// publishes: creates a post that a destination will publish.
	publishes = &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(true)}
	// destroys: cancels or removes what exists; repeating it changes nothing more.
	destroys = &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}
	// spends: calls a model and uses the workspace's credits.
	spends = &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(true)}
	// ensures: creates what is missing, returns what exists.
	ensures = &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
)

func ptr[T any](v T) *T { return &v }

// def makes a table row: a tool whose arguments In are turned into an API
// call by prepare. An error from prepare is a tool error with its message
// (it speaks to the model about the arguments). With ask, the human
// approves the prepared call through the client before it runs. A
// read-only row that does not ask also runs on the fast path, when its
// arguments are of the simple kinds the fast path checks (args.go).
func def[In any](t *mcp.Tool, ask bool, prepare func(In) (prepared, error)) toolDef {
	d := toolDef{tool: t, ask: ask, add: func(s *Server) {
		mcp.AddTool(s.srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
			var approve func(auth.Principal, prepared) *mcp.CallToolResult
			if ask {
				approve = func(p auth.Principal, call prepared) *mcp.CallToolResult {
					return s.approval(req, p, t.Name, in, call.summary)
				}
			}
			var header http.Header
			if req.Extra != nil {
				header = req.Extra.Header
			}
			return run(s, ctx, header, t.Name, in, prepare, approve), nil, nil
		})
	}}
	if !ask && t.Annotations != nil && t.Annotations.ReadOnlyHint {
		if shape, ok := shapeOf(reflect.TypeFor[In]()); ok {
			d.fast = func(s *Server, ctx context.Context, header http.Header, args []byte) (*mcp.CallToolResult, bool) {
				in, ok := decodeArgs[In](shape, args)
				if !ok {
					return nil, false
				}
				return run(s, ctx, header, t.Name, in, prepare, nil), true
			}
		}
	}
	return d
}

// run is one call of a row, on either path: authenticate the request's
// key, prepare the call, ask the human (approve, rows that ask), call the
// API handler.
func run[In any](s *Server, ctx context.Context, header http.Header, tool string, in In, prepare func(In) (prepared, error), approve func(auth.Principal, prepared) *mcp.CallToolResult) *mcp.CallToolResult {
	ctx, p, err := s.caller(ctx, header)
	if err != nil {
		return s.toolError(tool, err)
	}
	call, err := prepare(in)
	if err != nil {
		return errorResult(err.Error())
	}
	if approve != nil {
		if res := approve(p, call); res != nil {
			return res
		}
	}
	msg, err := call.do(ctx)
	return s.result(tool, msg, err)
}

// invoke is the API handler call method(req) as a prepared call.
func invoke[Req, Res any](method func(context.Context, *connect.Request[Req]) (*connect.Response[Res], error), req *Req) func(context.Context) (proto.Message, error) {
	return func(ctx context.Context) (proto.Message, error) {
		res, err := method(ctx, connect.NewRequest(req))
		if err != nil {
			return nil, err
		}
		msg, ok := any(res.Msg).(proto.Message)
		if !ok {
			return nil, errors.New("response is not a proto message")
		}
		return msg, nil
	}
}

// scheduleSummary is what the human approves for schedule_content.
func scheduleSummary(in scheduleInput) string {
	var b strings.Builder
	when := in.WhenToExport
	if st, _ := schedule.ParseStatus(in.Status); st == schedule.StatusDraft {
		when = "saved as a draft, not published"
	} else if when == "" {
		when = "(no time given)"
	}
	fmt.Fprintf(&b, "Schedule this post?\nDestination: %s\nWhen: %s\n", in.ExportTo, when)
	if in.WebhookID != nil {
		fmt.Fprintf(&b, "Webhook: %s\n", *in.WebhookID)
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"Title", in.Title}, {"Text", in.Text}, {"Content", in.Content}} {
		if f.v != nil && *f.v != "" {
			fmt.Fprintf(&b, "%s: %s\n", f.name, clip(*f.v, 600))
		}
	}
	if len(in.ContentToExport) > 0 {
		fmt.Fprintf(&b, "Fields: %d destination fields (contentToExport)\n", len(in.ContentToExport))
	}
	if in.ImageURL != "" || in.ImageBase64 != "" || in.Image != nil {
		b.WriteString("With an image\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func modelNote(model string) string {
	if model == "" {
		return ""
	}
	return ", model " + model
}

// clip shortens s to at most n runes for a question to the human.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
