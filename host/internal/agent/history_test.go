package agent

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/sdk"
)

func ptr(s string) *string { return &s }

func TestHistoryGroupsToolCallsWithTheirAssistantMessage(t *testing.T) {
	t.Parallel()
	blocks := []Block{
		{Role: RoleUser, Type: TypeText, Content: `"how is traffic?"`},
		{Role: RoleAssistant, Type: TypeText, Content: `"Let me look."`},
		{Role: RoleAssistant, Type: TypeToolCall, Content: `{"name":"get_ai_traffic_stats","arguments":{"days":7}}`, ToolName: ptr("get_ai_traffic_stats"), ToolCallID: ptr("c1")},
		{Role: RoleTool, Type: TypeToolResult, Content: `{"aiVisits":3}`, ToolName: ptr("get_ai_traffic_stats"), ToolCallID: ptr("c1")},
		{Role: RoleAssistant, Type: TypeProposal, Content: `"Schedule a post"`},
		{Role: RoleTool, Type: TypeToolResult, Content: `{"confirmed":true}`, ToolName: ptr("schedule_content")},
		{Role: RoleAssistant, Type: TypeText, Content: `"3 visits."`},
	}
	msgs := toMessages(blocks)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, " "); got != "user assistant tool assistant" {
		t.Fatalf("roles %s (proposals and confirmations without a call must be left out)", got)
	}
	if c := msgs[1].ToolCalls; msgs[1].Content != "Let me look." || len(c) != 1 || c[0].ID != "c1" || c[0].Arguments != `{"days":7}` {
		t.Fatalf("assistant message with its call: %+v", msgs[1])
	}
	if msgs[2].ToolCallID != "c1" || msgs[2].Content != `{"aiVisits":3}` {
		t.Fatalf("tool result: %+v", msgs[2])
	}
}

func TestTrimmingDropsWholeExchangesOldestFirstAndKeepsTheSystemPrompt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 400) // about 100 tokens
	history := []sdk.Message{
		{Role: sdk.RoleUser, Content: "oldest " + long},
		{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: "c1", Name: "t", Arguments: "{}"}}},
		{Role: sdk.RoleTool, ToolCallID: "c1", Content: long},
		{Role: sdk.RoleAssistant, Content: long},
		{Role: sdk.RoleUser, Content: "newer " + long},
		{Role: sdk.RoleAssistant, Content: long},
	}
	system := "system " + strings.Repeat("s", 2000) // about 500 tokens, always kept
	all := trimHistory(system, history, 100_000)
	if len(all) != 7 || all[0].Role != sdk.RoleSystem {
		t.Fatalf("a large budget keeps everything: %d messages", len(all))
	}
	got := trimHistory(system, history, 900)
	if len(got) != 3 || got[0].Content != system || !strings.HasPrefix(got[1].Content, "newer") {
		t.Fatalf("want the system prompt and the newest exchange, got %d messages starting %q", len(got), got[1].Content[:5])
	}
	for _, m := range got {
		if m.Role == sdk.RoleTool {
			t.Fatal("a tool result survived without its call")
		}
	}
	if got := trimHistory(system, history, 10); len(got) != 1 || got[0].Role != sdk.RoleSystem {
		t.Fatalf("a tiny budget still keeps the system prompt: %d", len(got))
	}
}
