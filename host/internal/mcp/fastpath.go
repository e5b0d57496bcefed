package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools/call fast path. In stateless mode the SDK serves
// every POST through a new session: a JSON-RPC connection, its reader and
// handler goroutines and the hand-offs between them, and three encodings
// of the result (docs/BENCHMARKS.md, MCP face). That cost 2.6–3.9× the REST
// call the tool wraps. The fast path answers the common request, one
// tools/call of a read-only tool that never asks the human, directly: it
// authenticates the key as the SDK path does (caller), runs the same table
// row (run) and writes the same JSON-RPC response the SDK writes, encoded
// with the SDK's own types and encoder. Everything else (other methods,
// batches, session ids, unknown tools, arguments the fast path does not
// certify valid (args.go), any header or _meta it does not know) goes to
// the SDK's handler untouched, which answers it, errors included.
// fastpath_test.go holds the two paths to the same answers.

// fastRow runs a table row on the fast path with its arguments (a JSON
// object, or nil); false when the arguments are not for the fast path.
type fastRow func(s *Server, ctx context.Context, header http.Header, args []byte) (*mcp.CallToolResult, bool)

// newProtocol is the protocol version whose requests carry the client's
// version, info and capabilities in _meta (SEP-2575); the SDK's client
// speaks it.
const newProtocol = "2026-07-28"

// The _meta keys of a new-protocol request.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaCapabilities    = "io.modelcontextprotocol/clientCapabilities"
)

// fastCall is a request the fast path answers.
type fastCall struct {
	id      jsonrpc.ID
	row     fastRow
	args    []byte
	version string
}

// serveFast answers r when it is a fast-path call and reports whether it
// did; when not, r's body is left for the SDK to read as sent.
func (s *Server) serveFast(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost || !s.fastHeaders(r.Header) {
		return false
	}
	limit := s.d.MaxBodyBytes
	if limit == 0 {
		limit = mcp.DefaultMaxRequestBodyBytes
	}
	body, err := readUpTo(r, limit)
	if err != nil || len(body) == 0 {
		return false
	}
	c, ok := s.parseFast(r.Header, body)
	if !ok {
		return false
	}
	res, ok := c.row(s, r.Context(), r.Header, c.args)
	if !ok {
		return false
	}
	data, ok := s.appendFast(c, res)
	if !ok {
		data, err = s.encodeFast(c, res)
	}
	if err != nil {
		s.log.Error("encode MCP fast-path result", "error", err)
		return false
	}
	s.fastCalls.Add(1)
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "application/json")
	// The length, so that a large answer is not sent in chunks.
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
	return true
}

// fastHeaders reports whether the request's headers are ones the SDK
// accepts for a stateless JSON POST without further rules: JSON body, both
// JSON and SSE accepted, no session, no stream resumption, a known
// protocol version, no per-parameter headers. (The SDK's own checks that
// precede these, DNS-rebinding and cross-origin protection, are off in
// Handler; turning one on must add it here.)
func (s *Server) fastHeaders(h http.Header) bool {
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if !accepts(h.Values("Accept")) || h.Get("Mcp-Session-Id") != "" || len(h.Values("Last-Event-ID")) > 0 {
		return false
	}
	if v := h.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(mcp.SupportedProtocolVersions(), v) {
		return false
	}
	for k := range h {
		if strings.HasPrefix(k, "Mcp-Param-") {
			return false
		}
	}
	return true
}

// accepts reports whether Accept lists application/json and
// text/event-stream by name (the SDK also takes wildcards; those requests
// take the SDK path).
func accepts(values []string) bool {
	var jsonOK, sseOK bool
	for _, v := range values {
		for _, tok := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(tok, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json":
				jsonOK = true
			case "text/event-stream":
				sseOK = true
			}
		}
	}
	return jsonOK && sseOK
}

// readUpTo reads r's body up to limit bytes (negative: no limit) and puts
// back a body that reads the same bytes again, then the rest, so that the
// SDK sees the request as sent (and refuses one over its limit itself).
func readUpTo(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	src := io.Reader(r.Body)
	if limit >= 0 {
		src = io.LimitReader(r.Body, limit+1)
	}
	body, err := io.ReadAll(src)
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || (limit >= 0 && int64(len(body)) > limit) {
		return nil, io.ErrShortBuffer
	}
	return body, nil
}

// parseFast decodes body as one tools/call request of a fast-path tool,
// with nothing in it the fast path does not know.
func (s *Server) parseFast(h http.Header, body []byte) (fastCall, bool) {
	var c fastCall
	var msg struct {
		JSONRPC, ID, Method, Params json.RawMessage
	}
	var params struct {
		Name, Arguments, Meta json.RawMessage
	}
	if !utf8.Valid(body) || depth(body) > 32 ||
		!exactObject(body, []string{"jsonrpc", "id", "method", "params"}, &msg.JSONRPC, &msg.ID, &msg.Method, &msg.Params) ||
		string(msg.JSONRPC) != `"2.0"` || string(msg.Method) != `"tools/call"` ||
		!exactObject(msg.Params, []string{"name", "arguments", "_meta"}, &params.Name, &params.Arguments, &params.Meta) {
		return c, false
	}
	var ok bool
	if c.id, ok = requestID(msg.ID); !ok {
		return c, false
	}
	var name string
	if json.Unmarshal(params.Name, &name) != nil || !isString(params.Name) {
		return c, false
	}
	if c.row = s.fast[name]; c.row == nil {
		return c, false
	}
	if params.Arguments != nil {
		if params.Arguments[0] != '{' {
			return c, false
		}
		c.args = params.Arguments
	}
	c.version = h.Get("Mcp-Protocol-Version")
	if c.version < newProtocol {
		// An older protocol: no _meta (a protocol version there asks
		// for checks the SDK makes).
		return c, params.Meta == nil
	}
	// The new protocol: the SDK requires the method and tool name in
	// headers and the client's version (the header's) and capabilities in
	// _meta; the fast path takes the exact triple the SDK's client sends.
	if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != name || params.Meta == nil {
		return c, false
	}
	var meta struct{ Version, Info, Caps json.RawMessage }
	if !exactObject(params.Meta, []string{metaProtocolVersion, metaClientInfo, metaCapabilities}, &meta.Version, &meta.Info, &meta.Caps) ||
		string(meta.Version) != strconv.Quote(c.version) || meta.Caps == nil {
		return c, false
	}
	var caps mcp.ClientCapabilities
	if meta.Caps[0] != '{' || json.Unmarshal(meta.Caps, &caps) != nil {
		return c, false
	}
	if meta.Info != nil {
		var info mcp.Implementation
		if meta.Info[0] != '{' || json.Unmarshal(meta.Info, &info) != nil {
			return c, false
		}
	}
	return c, true
}

// exactObject decodes the JSON object data, whose keys must be among keys
// (exactly; none null), into dst: the value of keys[i] into *dst[i].
func exactObject(data []byte, keys []string, dst ...*json.RawMessage) bool {
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	for k, raw := range m {
		i := slices.Index(keys, k)
		if i < 0 || len(raw) == 0 || string(raw) == "null" {
			return false
		}
		*dst[i] = raw
	}
	return true
}

// requestID is the JSON-RPC id as the SDK decodes it: a string, or an
// integer (the fast path takes integers a float64 holds exactly).
func requestID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if isString(raw) {
		var s string
		json.Unmarshal(raw, &s)
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	}
	digits := bytes.TrimPrefix(raw, []byte("-"))
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return jsonrpc.ID{}, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// depth is the deepest nesting of objects and arrays in the JSON data.
func depth(data []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString:
			inString = b != '"'
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			d++
			deepest = max(deepest, d)
		case b == '}' || b == ']':
			d--
		}
	}
	return deepest
}

// appendFast writes the JSON-RPC response the SDK writes for res, for the
// results the rows make (one text content, the structured content as raw
// JSON or none): the same bytes as encodeFast in one pass over each part,
// where the SDK's encoders compact the result three times over
// (fastpath_test.go compares them byte for byte). False for any other
// result.
func (s *Server) appendFast(c fastCall, res *mcp.CallToolResult) ([]byte, bool) {
	if res.Meta != nil || len(res.Content) != 1 || res.InputRequests != nil || res.RequestState != "" {
		return nil, false
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok || tc.Meta != nil || tc.Annotations != nil {
		return nil, false
	}
	// The SDK's CallToolResult and TextContent encode with json.Marshal
	// (HTML-escaped), its JSON-RPC layer compacts without escaping more.
	text, err := json.Marshal(tc.Text)
	if err != nil {
		return nil, false
	}
	var structured []byte
	switch sc := res.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		if len(sc) == 0 {
			return nil, false
		}
		if structured, ok = escapeCompact(sc); !ok {
			if structured, err = json.Marshal(sc); err != nil {
				return nil, false
			}
		}
	default:
		return nil, false
	}
	var id bytes.Buffer
	enc := json.NewEncoder(&id)
	enc.SetEscapeHTML(false)
	if enc.Encode(c.id.Raw()) != nil {
		return nil, false
	}
	isNew := c.version >= newProtocol
	out := make([]byte, 0, len(text)+len(structured)+len(s.serverMeta)+160)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, bytes.TrimRight(id.Bytes(), "\n")...)
	out = append(out, `,"result":{`...)
	if isNew {
		out = append(out, `"_meta":`...)
		out = append(out, s.serverMeta...)
		out = append(out, ',')
	}
	out = append(out, `"content":[{"type":"text","text":`...)
	out = append(out, text...)
	out = append(out, "}]"...)
	if structured != nil {
		out = append(out, `,"structuredContent":`...)
		out = append(out, structured...)
	}
	if res.IsError {
		out = append(out, `,"isError":true`...)
	}
	if isNew {
		out = append(out, `,"resultType":"complete"`...)
	}
	return append(out, "}}"...), true
}

// escapeCompact is json.Marshal(json.RawMessage(raw)) for raw without
// whitespace between tokens (the API's JSON encoder writes none): raw with
// <, >, &, U+2028 and U+2029 escaped, as encoding/json compacts raw JSON
// for the SDK's CallToolResult. It is one plain pass where encoding/json
// runs its scanner over every byte; false when raw has whitespace outside
// strings (then json.Marshal does it).
func escapeCompact(raw []byte) ([]byte, bool) {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(raw)+64)
	inString, escaped := false, false
	start := 0
	for i, c := range raw {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return nil, false
		}
		if c == '<' || c == '>' || c == '&' {
			out = append(out, raw[start:i]...)
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		} else if c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8 {
			out = append(out, raw[start:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hex[raw[i+2]&0xF])
			start = i + 3
		}
	}
	if inString || escaped {
		return nil, false
	}
	return append(out, raw[start:]...), true
}

// encodeFast is the JSON-RPC response the SDK writes for res: the result
// as the SDK's server completes it (content never null; in the new
// protocol the server's info in _meta and resultType "complete"), encoded
// by the SDK's types and jsonrpc encoder.
func (s *Server) encodeFast(c fastCall, res *mcp.CallToolResult) ([]byte, error) {
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	isNew := c.version >= newProtocol
	if isNew {
		if res.Meta == nil {
			res.Meta = mcp.Meta{}
		}
		if _, ok := res.Meta[mcp.MetaKeyServerInfo]; !ok {
			res.Meta[mcp.MetaKeyServerInfo] = s.impl
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	raw := bytes.TrimRight(buf.Bytes(), "\n")
	if isNew {
		// resultType is set by the SDK's server only; it is the last field
		// its CallToolResult encodes (inputRequests, after it, is absent
		// from a result with content).
		raw = append(raw[:len(raw)-1], `,"resultType":"complete"}`...)
	}
	return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: c.id, Result: raw})
}
