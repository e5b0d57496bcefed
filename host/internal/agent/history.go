package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heraldhq/herald/sdk"
)

// toMessages rebuilds provider messages from stored blocks: an assistant
// text block and the tool calls that follow it are one assistant message;
// each tool result answers its call. Proposals are for the user only, and
// results without a call (confirmations) would be refused by providers, so
// both are left out.
func toMessages(blocks []Block) []sdk.Message {
	var out []sdk.Message
	calls := map[string]bool{}
	for _, b := range blocks {
		switch {
		case b.Type == TypeText && b.Role == RoleUser:
			out = append(out, sdk.Message{Role: sdk.RoleUser, Content: textOf(b.Content)})
		case b.Type == TypeText && b.Role == RoleAssistant:
			out = append(out, sdk.Message{Role: sdk.RoleAssistant, Content: textOf(b.Content)})
		case b.Type == TypeToolCall && b.ToolCallID != nil && b.ToolName != nil:
			var c struct {
				Arguments json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal([]byte(b.Content), &c)
			call := sdk.ToolCall{ID: *b.ToolCallID, Name: *b.ToolName, Arguments: string(c.Arguments)}
			if n := len(out); n > 0 && out[n-1].Role == sdk.RoleAssistant {
				out[n-1].ToolCalls = append(out[n-1].ToolCalls, call)
			} else {
				out = append(out, sdk.Message{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{call}})
			}
			calls[call.ID] = true
		case b.Type == TypeToolResult && b.ToolCallID != nil && calls[*b.ToolCallID]:
			out = append(out, sdk.Message{Role: sdk.RoleTool, ToolCallID: *b.ToolCallID, Content: b.Content})
		}
	}
	return out
}

func textOf(content string) string {
	var s string
	if json.Unmarshal([]byte(content), &s) == nil {
		return s
	}
	return content
}

// estimateTokens is a provider-neutral estimate: about four characters a
// token, plus a few tokens of framing per message.
func estimateTokens(m sdk.Message) int {
	n := len(m.Content)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n/4 + 4
}

// trimHistory returns the system prompt followed by as much of history as
// fits budget, dropping whole exchanges (a user message and everything
// after it up to the next one) oldest first, so that a tool result never
// loses its call. The system prompt is always kept.
func trimHistory(system string, history []sdk.Message, budget int) []sdk.Message {
	sys := sdk.Message{Role: sdk.RoleSystem, Content: system}
	used := estimateTokens(sys)
	// Exchanges start at user messages; walk back from the newest.
	start := len(history)
	total := used
	for i := len(history) - 1; i >= 0; i-- {
		total += estimateTokens(history[i])
		if total > budget {
			break
		}
		if history[i].Role == sdk.RoleUser {
			start = i
		}
	}
	return append([]sdk.Message{sys}, history[start:]...)
}

// systemPrompt is the agent's instruction: what it is, the workspace
// summary (the same as GET /v1/ai/generate/assistant/context), the tools'
// rules, and the brand voice to write in.
func systemPrompt(sum Summary, voice string, tools []string) string {
	var b strings.Builder
	b.WriteString("You are Herald's assistant for the workspace below. Answer from the workspace's data; call a tool when you need numbers you do not have. ")
	b.WriteString("Never claim something was scheduled: schedule_content only proposes, and the user confirms.\n\n")
	ctx, _ := json.Marshal(summaryJSON(sum))
	fmt.Fprintf(&b, "Workspace context (JSON): %s\n", ctx)
	if len(tools) > 0 {
		fmt.Fprintf(&b, "Tools: %s.\n", strings.Join(tools, ", "))
	}
	if voice != "" {
		fmt.Fprintf(&b, "\nWrite in this brand voice:\n%s\n", voice)
	}
	return b.String()
}
