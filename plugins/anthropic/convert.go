package anthropic

import (
	"encoding/json"
	"strings"

	ant "github.com/anthropics/anthropic-sdk-go"

	"github.com/heraldhq/herald/sdk"
)

// messageParams converts a chat request to Messages API parameters. System
// messages become the top-level system prompt; tool results become
// tool_result blocks of a user turn; consecutive messages of one role are
// merged, because the API wants the tool results answering one assistant
// turn together in the next user turn.
func messageParams(req sdk.ChatRequest) (ant.MessageNewParams, error) {
	params := ant.MessageNewParams{Model: ant.Model(req.Model), MaxTokens: DefaultMaxTokens}
	if req.MaxOutputTokens > 0 {
		params.MaxTokens = req.MaxOutputTokens
	}
	if req.Temperature != nil {
		params.Temperature = ant.Float(*req.Temperature)
	}
	for i, m := range req.Messages {
		var role ant.MessageParamRole
		var blocks []ant.ContentBlockParamUnion
		switch m.Role {
		case sdk.RoleSystem:
			params.System = append(params.System, ant.TextBlockParam{Text: m.Content})
			continue
		case sdk.RoleUser:
			role = ant.MessageParamRoleUser
			if m.Content != "" {
				blocks = append(blocks, ant.NewTextBlock(m.Content))
			}
		case sdk.RoleTool:
			if m.ToolCallID == "" {
				return params, sdk.Errorf(sdk.CodeInvalidArgument, "anthropic: tool message %d has no tool call ID", i)
			}
			role = ant.MessageParamRoleUser
			blocks = append(blocks, ant.NewToolResultBlock(m.ToolCallID, m.Content, false))
		case sdk.RoleAssistant:
			role = ant.MessageParamRoleAssistant
			if m.Content != "" {
				blocks = append(blocks, ant.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				args := strings.TrimSpace(tc.Arguments)
				if args == "" {
					args = "{}"
				}
				if !json.Valid([]byte(args)) {
					return params, sdk.Errorf(sdk.CodeInvalidArgument, "anthropic: message %d: tool call %q has arguments that are not JSON", i, tc.ID)
				}
				blocks = append(blocks, ant.NewToolUseBlock(tc.ID, json.RawMessage(args), tc.Name))
			}
		default:
			return params, sdk.Errorf(sdk.CodeInvalidArgument, "anthropic: message %d has no known role (%q)", i, m.Role)
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(params.Messages); n > 0 && params.Messages[n-1].Role == role {
			params.Messages[n-1].Content = append(params.Messages[n-1].Content, blocks...)
			continue
		}
		params.Messages = append(params.Messages, ant.MessageParam{Role: role, Content: blocks})
	}
	if len(params.Messages) == 0 {
		return params, sdk.Errorf(sdk.CodeInvalidArgument, "anthropic: the request has no user or assistant message")
	}
	for _, t := range req.Tools {
		params.Tools = append(params.Tools, ant.ToolUnionParam{OfTool: toolParam(t)})
	}
	if on, _ := req.Options["web_search"].(bool); on {
		params.Tools = append(params.Tools, ant.ToolUnionParam{OfWebSearchTool20250305: &ant.WebSearchTool20250305Param{MaxUses: ant.Int(webSearchMaxUses)}})
	}
	return params, nil
}

// toolParam converts a tool's JSON Schema: properties and required have
// their own fields; every other keyword is kept as an extra field.
func toolParam(t sdk.Tool) *ant.ToolParam {
	schema := ant.ToolInputSchemaParam{}
	for k, v := range t.Parameters {
		switch k {
		case "type":
		case "properties":
			schema.Properties = v
		case "required":
			if list, ok := v.([]any); ok {
				for _, r := range list {
					if s, ok := r.(string); ok {
						schema.Required = append(schema.Required, s)
					}
				}
			} else if list, ok := v.([]string); ok {
				schema.Required = list
			}
		default:
			if schema.ExtraFields == nil {
				schema.ExtraFields = map[string]any{}
			}
			schema.ExtraFields[k] = v
		}
	}
	tp := &ant.ToolParam{Name: t.Name, InputSchema: schema}
	if t.Description != "" {
		tp.Description = ant.String(t.Description)
	}
	return tp
}

// citations returns the web pages the answer cites: the
// web_search_result_location citations of its text blocks, in order, each
// URL once. Search results Claude read but did not cite are left out.
func citations(blocks []ant.ContentBlockUnion) []sdk.Citation {
	var out []sdk.Citation
	seen := map[string]bool{}
	for _, b := range blocks {
		if b.Type != "text" {
			continue
		}
		for _, c := range b.Citations {
			if c.Type != "web_search_result_location" || c.URL == "" || seen[c.URL] {
				continue
			}
			seen[c.URL] = true
			out = append(out, sdk.Citation{URL: c.URL, Title: c.Title})
		}
	}
	return out
}
