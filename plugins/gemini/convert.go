package gemini

import (
	"encoding/json"
	"strings"

	"google.golang.org/genai"

	"github.com/heraldhq/herald/sdk"
)

// syntheticIDPrefix marks the tool call IDs the plugin made up for function
// calls the API sent without one; they are not sent back to the API.
const syntheticIDPrefix = "gemini_call_"

// contentParams converts a chat request to generateContent contents and
// config. System messages become the system instruction; tool results
// become functionResponse parts of a user turn, named after the call they
// answer; consecutive turns of one role are merged, because Gemini wants
// all responses to one turn's function calls in the next turn.
func contentParams(req sdk.ChatRequest) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{}
	if req.MaxOutputTokens > 0 {
		cfg.MaxOutputTokens = int32(min(req.MaxOutputTokens, 1<<31-1))
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		cfg.Temperature = &t
	}
	names := map[string]string{} // tool call ID → function name
	var contents []*genai.Content
	var system []string
	for i, m := range req.Messages {
		var role string
		var parts []*genai.Part
		switch m.Role {
		case sdk.RoleSystem:
			system = append(system, m.Content)
			continue
		case sdk.RoleUser:
			role = genai.RoleUser
			if m.Content != "" {
				parts = append(parts, &genai.Part{Text: m.Content})
			}
		case sdk.RoleAssistant:
			role = genai.RoleModel
			if m.Content != "" {
				parts = append(parts, &genai.Part{Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				args := map[string]any{}
				if s := strings.TrimSpace(tc.Arguments); s != "" {
					if err := json.Unmarshal([]byte(s), &args); err != nil {
						return nil, nil, sdk.Errorf(sdk.CodeInvalidArgument, "gemini: message %d: tool call %q has arguments that are not a JSON object", i, tc.ID)
					}
				}
				names[tc.ID] = tc.Name
				parts = append(parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: apiID(tc.ID), Name: tc.Name, Args: args}})
			}
		case sdk.RoleTool:
			name, ok := names[m.ToolCallID]
			if !ok {
				return nil, nil, sdk.Errorf(sdk.CodeInvalidArgument, "gemini: tool message %d answers %q, which no earlier assistant message called", i, m.ToolCallID)
			}
			role = genai.RoleUser
			parts = append(parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: apiID(m.ToolCallID), Name: name, Response: toolResponse(m.Content)}})
		default:
			return nil, nil, sdk.Errorf(sdk.CodeInvalidArgument, "gemini: message %d has no known role (%q)", i, m.Role)
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(contents); n > 0 && contents[n-1].Role == role {
			contents[n-1].Parts = append(contents[n-1].Parts, parts...)
			continue
		}
		contents = append(contents, &genai.Content{Role: role, Parts: parts})
	}
	if len(contents) == 0 {
		return nil, nil, sdk.Errorf(sdk.CodeInvalidArgument, "gemini: the request has no user or assistant message")
	}
	if len(system) > 0 {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: strings.Join(system, "\n\n")}}}
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Parameters) > 0 {
				d.ParametersJsonSchema = t.Parameters
			}
			decls = append(decls, d)
		}
		cfg.Tools = append(cfg.Tools, &genai.Tool{FunctionDeclarations: decls})
	}
	if on, _ := req.Options["web_search"].(bool); on {
		cfg.Tools = append(cfg.Tools, &genai.Tool{GoogleSearch: &genai.GoogleSearch{}})
	}
	return contents, cfg, nil
}

// apiID is the ID to send back for a tool call: none for one the plugin
// made up.
func apiID(id string) string {
	if strings.HasPrefix(id, syntheticIDPrefix) {
		return ""
	}
	return id
}

// toolResponse wraps a tool's result as Gemini documents it: a JSON object
// result is sent as is, anything else under "output".
func toolResponse(content string) map[string]any {
	var obj map[string]any
	if err := json.Unmarshal([]byte(content), &obj); err == nil && obj != nil {
		return obj
	}
	return map[string]any{"output": content}
}

// citations returns the web pages of a grounded answer's grounding chunks,
// in order, each URL once.
func citations(gm *genai.GroundingMetadata) []sdk.Citation {
	if gm == nil {
		return nil
	}
	var out []sdk.Citation
	seen := map[string]bool{}
	for _, c := range gm.GroundingChunks {
		if c == nil || c.Web == nil || c.Web.URI == "" || seen[c.Web.URI] {
			continue
		}
		seen[c.Web.URI] = true
		out = append(out, sdk.Citation{URL: c.Web.URI, Title: c.Web.Title})
	}
	return out
}
