// Package mcp is Herald's Model Context Protocol face: AI assistants reach
// the scheduler, generation, brand voices, SEO scoring, visibility reports
// and AI traffic as MCP tools and resources, over Streamable HTTP at /mcp
// (the official Go SDK) or, for desktop clients, over stdio through a thin
// bridge to a running host (Bridge).
//
// It is a face, like the REST and Connect adapters: every tool calls the
// area package's own API handler (the apiv1connect interface its REST and
// Connect routes call), so the same proto→domain conversion, validation,
// plan rules, workspace scoping and error messages apply. Its own rules
// exist for assistants alone: SPEC's confirm rule of schedule_content, and
// the human's approval of write tools through the client (approval.go).
//
// The MCP face (official Go SDK): Streamable HTTP at `/mcp` and the stdio
// bridge of `herald mcp --stdio` (a thin client of a running host). Like the
// REST adapter it owns no rule: each tool calls an area's Connect handler
// interface as the authenticated principal and returns the REST body
// (`jsonenc.Marshal`, passed as `structuredContent` as bytes) or the API's
// message as a tool error. Its rules exist for assistants only:
// schedule_content's `confirm`, and the human's approval of write tools
// (`approval.go`: an elicitation through MCP multi round-trip requests,
// bound to key, tool and arguments by a signed request state; refused when
// the client cannot ask; skipped for keys with `mcp_unattended`). Tools are
// one table (`tools.go`, `toolTable`: tool with its hints, whether it asks,
// and how arguments become the handler call; `table.go` the row kit): add a
// tool by appending a row. `fastpath.go` answers the common case without the
// SDK's per-request session: a POST that is one `tools/call` of a read-only
// tool that never asks the human, with arguments it can prove valid against
// the tool's schema, is decoded, authenticated with the same `caller` and
// run through the same table row, and answered with the bytes the SDK would
// write (`fastpath_test.go` sends every such request to both paths and
// compares them); everything else goes to the SDK handler unchanged.
package mcp
