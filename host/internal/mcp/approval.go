package mcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heraldhq/herald/host/internal/auth"
)

// The human's approval of a write tool call: text from strangers
// reaches MCP clients (traffic stats, schedule errors, report evidence), so
// a model that obeys it must not publish, cancel or spend credits on its
// own. A write tool asks the human through the client with an elicitation
// (MCP multi round-trip requests: the result asks for input, the client
// shows the question to the user and repeats the call with the answer),
// and refuses when the client cannot ask. The operator turns this off for
// a key with `herald keys create --mcp-unattended` (a pipeline with nobody
// to ask).
//
// The answer is bound to the question: the repeated call must carry the
// request state Herald issued, which names the key, the tool and a hash of
// the exact arguments, expires after approvalTTL and is signed with the
// host's approval key, so an approval of one post does not approve another.

// approvalID names the elicitation in the input requests and responses.
const approvalID = "herald_approval"

// approvalTTL is how long the human has to answer.
const approvalTTL = 10 * time.Minute

const (
	cannotAsk = "Nothing was done: %s publishes, deletes or spends credits, so Herald asks the user to approve each call, " +
		"and this MCP client cannot ask the user (it does not support elicitation). Tell the user; they can do it in Herald's " +
		"dashboard or API, or the operator can create a key for unattended use (herald keys create --mcp-unattended)."
	declined = "Nothing was done: the user declined this call. Do not repeat it unless the user asks for it again."
	canceled = "Nothing was done: the user dismissed the approval request without answering."
	stale    = "Nothing was done: the approval does not match this call (another key, tool or arguments, or it expired). Call the tool again to ask the user."
)

// approval decides whether the write call tool(in) by p may run. nil: it
// may. Otherwise the result to return: the question for the client, or a
// refusal.
func (s *Server) approval(req *mcp.CallToolRequest, p auth.Principal, tool string, in any, summary string) *mcp.CallToolResult {
	if p.MCPUnattended {
		return nil
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || (caps.Elicitation.Form == nil && caps.Elicitation.URL != nil) {
		return errorResult(strings.Replace(cannotAsk, "%s", tool, 1))
	}
	args, err := json.Marshal(in)
	if err != nil {
		return errorResult("arguments: " + err.Error())
	}
	sum := sha256.Sum256(args)
	if resp, ok := req.Params.InputResponses[approvalID]; ok {
		if !s.validState(req.Params.RequestState, p.KeyID, tool, sum[:]) {
			return errorResult(stale)
		}
		res, ok := resp.(*mcp.ElicitResult)
		switch {
		case !ok:
			return errorResult(stale)
		case res.Action == "accept":
			s.log.Info("MCP write approved by the user", "tool", tool, "workspace", p.WorkspaceID, "key", p.KeyID)
			return nil
		case res.Action == "decline":
			return errorResult(declined)
		default:
			return errorResult(canceled)
		}
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalID: &mcp.ElicitParams{
			Mode:            "form",
			Message:         summary,
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		}},
		RequestState: s.state(p.KeyID, tool, sum[:], time.Now().Add(approvalTTL)),
	}
}

// state is the signed request state of a question: expiry, key, tool and
// the arguments' hash.
func (s *Server) state(keyID, tool string, args []byte, exp time.Time) string {
	body := binary.BigEndian.AppendUint64(nil, uint64(exp.Unix()))
	body = append(body, args...)
	mac := s.mac(body, keyID, tool)
	return base64.RawURLEncoding.EncodeToString(append(body, mac...))
}

func (s *Server) validState(state, keyID, tool string, args []byte) bool {
	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(raw) != 8+sha256.Size+sha256.Size {
		return false
	}
	body, mac := raw[:8+sha256.Size], raw[8+sha256.Size:]
	if !hmac.Equal(mac, s.mac(body, keyID, tool)) || !hmac.Equal(body[8:], args) {
		return false
	}
	return time.Now().Unix() <= int64(binary.BigEndian.Uint64(body[:8]))
}

func (s *Server) mac(body []byte, keyID, tool string) []byte {
	h := hmac.New(sha256.New, s.approvalKey)
	h.Write(body)
	h.Write([]byte{0})
	h.Write([]byte(keyID))
	h.Write([]byte{0})
	h.Write([]byte(tool))
	return h.Sum(nil)
}
