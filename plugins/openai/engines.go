package openai

import (
	"context"

	"github.com/heraldhq/herald/sdk"
)

// The answer engines that speak Chat Completions closely enough for this
// plugin's client: xAI's Grok, DeepSeek and Mistral. Each is a deployment
// with its own plugin name, key and base URL. Where the provider offers
// web search to API callers, GenerateText goes through the API that has it
// (xAI's Responses API with its web_search and x_search tools, Mistral's
// Conversations API with its web_search tool), because the consumer apps
// search and a report measures what their users see; streamed Chat stays
// on Chat Completions for all of them.

// SearchAPI names the API GenerateText answers through when the request
// leaves web search on.
type SearchAPI string

const (
	// SearchChat is Chat Completions (web_search_options when asked).
	SearchChat SearchAPI = ""
	// SearchResponses is POST /responses with server-side search tools
	// (xAI): citations are the response's citations and url_citation
	// annotations.
	SearchResponses SearchAPI = "responses"
	// SearchConversations is POST /conversations with the web_search tool
	// (Mistral): citations are the tool_reference chunks of the reply.
	SearchConversations SearchAPI = "conversations"
)

// XAI is xAI's API (https://api.x.ai/v1): Grok answers with web and X
// search through the Responses API.
var XAI = Deployment{
	Name: "xai", DisplayName: "xAI Grok", APIKeyEnv: "XAI_API_KEY", BaseURLEnv: "XAI_BASE_URL",
	DefaultBaseURL: "https://api.x.ai/v1", Search: SearchResponses, SearchTools: []string{"web_search", "x_search"},
	MaxConcurrency: 8,
	Models: []sdk.Model{
		{ID: "grok-4", Capabilities: chatCaps},
		{ID: "grok-4-fast", Capabilities: chatCaps},
		{ID: "grok-3-mini", Capabilities: chatCaps},
	},
}

// DeepSeek is DeepSeek's API (https://api.deepseek.com). It offers no web
// search to API callers, so its answers come from the model alone, unlike
// the app's "Search" button.
var DeepSeek = Deployment{
	Name: "deepseek", DisplayName: "DeepSeek", APIKeyEnv: "DEEPSEEK_API_KEY", BaseURLEnv: "DEEPSEEK_BASE_URL",
	DefaultBaseURL: "https://api.deepseek.com", MaxConcurrency: 8,
	Models: []sdk.Model{
		{ID: "deepseek-chat", Capabilities: chatCaps},
		{ID: "deepseek-reasoner", Capabilities: sonarCaps},
	},
}

// Mistral is Mistral AI's API (https://api.mistral.ai/v1): Le Chat's models,
// answering with the web_search tool through the Conversations API.
var Mistral = Deployment{
	Name: "mistral", DisplayName: "Mistral (Le Chat)", APIKeyEnv: "MISTRAL_API_KEY", BaseURLEnv: "MISTRAL_BASE_URL",
	DefaultBaseURL: "https://api.mistral.ai/v1", Search: SearchConversations, SearchTools: []string{"web_search"},
	MaxConcurrency: 4,
	Models: []sdk.Model{
		{ID: "mistral-medium-latest", Capabilities: chatCaps},
		{ID: "mistral-large-latest", Capabilities: chatCaps},
		{ID: "mistral-small-latest", Capabilities: chatCaps},
	},
}

// searching reports whether GenerateText goes through the deployment's
// search API: it has one, and the request sets no option but web_search,
// which it does not turn off (Chat Completions options do not apply there).
func (p *Provider) searching(req sdk.TextRequest) bool {
	if p.d.Search == SearchChat {
		return false
	}
	for k, v := range req.Options {
		if k != "web_search" {
			return false
		}
		if on, ok := v.(bool); ok && !on {
			return false
		}
	}
	return true
}

// generateWithSearch answers one prompt through the deployment's search API.
func (p *Provider) generateWithSearch(ctx context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	client, err := p.client()
	if err != nil {
		return sdk.TextResponse{}, err
	}
	switch p.d.Search {
	case SearchResponses:
		return p.responsesAnswer(ctx, client, req)
	case SearchConversations:
		return p.conversationsAnswer(ctx, client, req)
	}
	return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInternal, "%s: unknown search API %q", p.d.Name, p.d.Search)
}
