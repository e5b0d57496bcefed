package openai

import (
	"context"
	"encoding/json"
	"strings"

	oai "github.com/openai/openai-go/v3"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// searchTools are the deployment's server-side tools, as the request sends
// them ([{"type": "web_search"}, ...]).
func (p *Provider) searchTools() []map[string]string {
	tools := make([]map[string]string, 0, len(p.d.SearchTools))
	for _, t := range p.d.SearchTools {
		tools = append(tools, map[string]string{"type": t})
	}
	return tools
}

// responsesRequest is the body of POST /responses (xAI's Responses API).
type responsesRequest struct {
	Model           string              `json:"model"`
	Input           []inputMessage      `json:"input"`
	Tools           []map[string]string `json:"tools"`
	MaxOutputTokens int64               `json:"max_output_tokens,omitempty"`
	Temperature     *float64            `json:"temperature,omitempty"`
	Store           bool                `json:"store"`
}

type inputMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// responsesResponse is what the Responses API returns: the output items
// (tool calls, then the assistant message with its url_citation
// annotations) and xAI's top-level citations (every source the search
// went through).
type responsesResponse struct {
	Model  string `json:"model"`
	Status string `json:"status"`
	Output []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Type        string `json:"type"`
			Text        string `json:"text"`
			Annotations []struct {
				Type  string `json:"type"`
				URL   string `json:"url"`
				Title string `json:"title"`
			} `json:"annotations"`
		} `json:"content"`
	} `json:"output"`
	Citations []string `json:"citations"`
	Usage     struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
		TotalTokens  int64 `json:"total_tokens"`
	} `json:"usage"`
}

func (p *Provider) responsesAnswer(ctx context.Context, client oai.Client, req sdk.TextRequest) (sdk.TextResponse, error) {
	body := responsesRequest{Model: req.Model, Tools: p.searchTools(), MaxOutputTokens: req.MaxOutputTokens, Temperature: req.Temperature}
	if req.System != "" {
		body.Input = append(body.Input, inputMessage{Role: "system", Content: req.System})
	}
	body.Input = append(body.Input, inputMessage{Role: "user", Content: req.Prompt})
	var res responsesResponse
	if err := client.Post(ctx, "responses", body, &res); err != nil {
		return sdk.TextResponse{}, p.mapError("responses", err)
	}
	var text strings.Builder
	var cites provider.Citations
	for _, item := range res.Output {
		if item.Type != "message" {
			continue
		}
		for _, c := range item.Content {
			if c.Type != "output_text" {
				continue
			}
			text.WriteString(c.Text)
			for _, a := range c.Annotations {
				if a.Type == "url_citation" {
					cites.Add(a.URL, a.Title, "")
				}
			}
		}
	}
	// The annotations are the sources the answer cites, in its order; the
	// full list adds what the search read without citing.
	for _, u := range res.Citations {
		cites.Add(u, "", "")
	}
	finish := "stop"
	if res.Status != "" && res.Status != "completed" {
		finish = res.Status
	}
	return sdk.TextResponse{
		Text: text.String(), Model: res.Model, FinishReason: finish, Citations: cites.List(),
		Usage: sdk.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens, TotalTokens: res.Usage.TotalTokens},
	}, nil
}

// conversationsRequest is the body of POST /conversations (Mistral): a
// one-turn conversation with the model and its tools, not stored.
type conversationsRequest struct {
	Model          string              `json:"model"`
	Inputs         []inputMessage      `json:"inputs"`
	Instructions   string              `json:"instructions,omitempty"`
	Tools          []map[string]string `json:"tools"`
	CompletionArgs *completionArgs     `json:"completion_args,omitempty"`
	Store          bool                `json:"store"`
}

type completionArgs struct {
	MaxTokens   int64    `json:"max_tokens,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
}

// conversationsResponse is what the Conversations API returns: entries
// (tool executions, then the message.output whose content is a string or
// chunks: text, and tool_reference for each source the tool found).
type conversationsResponse struct {
	Outputs []struct {
		Type    string          `json:"type"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"outputs"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	} `json:"usage"`
}

type conversationChunk struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Tool  string `json:"tool"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

func (p *Provider) conversationsAnswer(ctx context.Context, client oai.Client, req sdk.TextRequest) (sdk.TextResponse, error) {
	body := conversationsRequest{Model: req.Model, Inputs: []inputMessage{{Role: "user", Content: req.Prompt}}, Instructions: req.System, Tools: p.searchTools()}
	if req.MaxOutputTokens > 0 || req.Temperature != nil {
		body.CompletionArgs = &completionArgs{MaxTokens: req.MaxOutputTokens, Temperature: req.Temperature}
	}
	var res conversationsResponse
	if err := client.Post(ctx, "conversations", body, &res); err != nil {
		return sdk.TextResponse{}, p.mapError("conversations", err)
	}
	out := sdk.TextResponse{FinishReason: "stop", Usage: sdk.Usage{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens, TotalTokens: res.Usage.TotalTokens}}
	var text strings.Builder
	var cites provider.Citations
	for _, o := range res.Outputs {
		if o.Type != "message.output" {
			continue
		}
		if o.Model != "" {
			out.Model = o.Model
		}
		var s string
		if json.Unmarshal(o.Content, &s) == nil {
			text.WriteString(s)
			continue
		}
		var chunks []conversationChunk
		if err := json.Unmarshal(o.Content, &chunks); err != nil {
			return sdk.TextResponse{}, sdk.Errorf(sdk.CodeRemote, "%s conversations: a message's content is neither text nor chunks", p.d.Name)
		}
		for _, c := range chunks {
			switch c.Type {
			case "text":
				text.WriteString(c.Text)
			case "tool_reference":
				cites.Add(c.URL, c.Title, "")
			}
		}
	}
	out.Text, out.Citations = text.String(), cites.List()
	return out, nil
}
