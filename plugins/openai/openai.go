// Package openai is Herald's first-party provider for OpenAI and any
// OpenAI-compatible server, built on the official openai-go SDK. It offers
// text generation and streamed chat (with tool calls) through the Chat
// Completions API, and image generation (gpt-image-1, gpt-image-1-mini,
// gpt-image-1.5, gpt-image-2) returning the image bytes, and fine-tuning
// (the Files API and fine-tuning jobs, finetune.go).
//
// It reads OPENAI_API_KEY and OPENAI_BASE_URL from its environment; the
// api_key and base_url settings override them. The SDK's own retries are
// off: a 429 or 5xx comes back to the host as a retryable error with the
// server's Retry-After, and the host's model router decides what to do.
//
// The same code serves other OpenAI-compatible deployments under their own
// plugin name, environment variables and default base URL ([Deployment]);
// [Perplexity] is one. Text answers carry the engine's citations: OpenAI's
// url_citation annotations (search models, or the request option
// "web_search": true) and Perplexity's top-level citations and
// search_results, read from the raw JSON because openai-go does not model
// them.
package openai

import (
	"context"
	"errors"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// The environment variables the provider reads.
const (
	APIKeyEnv  = "OPENAI_API_KEY"
	BaseURLEnv = "OPENAI_BASE_URL"
)

// DefaultImageModel is used when an image request names no model.
const DefaultImageModel = "gpt-image-1"

// Deployment is one OpenAI-compatible service the plugin code serves: the
// plugin name the host knows it by, where its key and base URL come from,
// and what it offers.
type Deployment struct {
	// Name is the plugin name (Info().Name, the config plugin block).
	Name        string
	DisplayName string
	// APIKeyEnv and BaseURLEnv are the environment variables read at start.
	APIKeyEnv, BaseURLEnv string
	// DefaultBaseURL is used when neither the environment nor a setting
	// gives one; empty means the SDK's (api.openai.com).
	DefaultBaseURL string
	// Models are the well-known models Info lists.
	Models []sdk.Model
	// Images reports whether the service has the images API.
	Images bool
	// FineTuning reports whether the service has the files and
	// fine-tuning jobs APIs ([Provider.StartFineTune]).
	FineTuning bool
	// Search is the API GenerateText answers through with web search on
	// (engines.go); SearchTools are the server-side tools it sends.
	Search      SearchAPI
	SearchTools []string
	// MaxConcurrency caps the requests in flight at once (0: no cap);
	// NAME_MAX_CONCURRENCY in the plugin's environment overrides it.
	MaxConcurrency int
}

// ConcurrencyEnv is the variable that overrides d.MaxConcurrency.
func (d Deployment) ConcurrencyEnv() string {
	return strings.ToUpper(d.Name) + "_MAX_CONCURRENCY"
}

var (
	chatCaps  = []sdk.Capability{sdk.CapabilityText, sdk.CapabilityChat, sdk.CapabilityTools}
	imageCaps = []sdk.Capability{sdk.CapabilityImage}
	sonarCaps = []sdk.Capability{sdk.CapabilityText, sdk.CapabilityChat}
)

// OpenAI is the default deployment: api.openai.com or the server named by
// OPENAI_BASE_URL.
var OpenAI = Deployment{
	Name: "openai", DisplayName: "OpenAI (or compatible)", APIKeyEnv: APIKeyEnv, BaseURLEnv: BaseURLEnv, Images: true, FineTuning: true,
	MaxConcurrency: 16,
	Models: []sdk.Model{
		{ID: "gpt-5", Capabilities: chatCaps},
		{ID: "gpt-5-mini", Capabilities: chatCaps},
		{ID: "gpt-4.1", Capabilities: chatCaps},
		{ID: "gpt-4o-mini", Capabilities: chatCaps},
		{ID: "gpt-4o-search-preview", Capabilities: chatCaps},
		{ID: "gpt-image-1", Capabilities: imageCaps},
		{ID: "gpt-image-1-mini", Capabilities: imageCaps},
		{ID: "gpt-image-1.5", Capabilities: imageCaps},
		{ID: "gpt-image-2", Capabilities: imageCaps},
	},
}

// Perplexity is Perplexity's Sonar API, which speaks Chat Completions at
// https://api.perplexity.ai and searches the web for every answer.
var Perplexity = Deployment{
	Name: "perplexity", DisplayName: "Perplexity Sonar", APIKeyEnv: "PERPLEXITY_API_KEY", BaseURLEnv: "PERPLEXITY_BASE_URL",
	DefaultBaseURL: "https://api.perplexity.ai", MaxConcurrency: 8,
	// Sonar has no function calling.
	Models: []sdk.Model{
		{ID: "sonar", Capabilities: sonarCaps},
		{ID: "sonar-pro", Capabilities: sonarCaps},
		{ID: "sonar-reasoning-pro", Capabilities: sonarCaps},
	},
}

// Provider talks to an OpenAI-compatible API.
type Provider struct {
	d     Deployment
	limit *provider.Limiter

	mu      sync.RWMutex
	apiKey  string
	baseURL string
	// conn is the SDK client and its HTTP client for the current settings,
	// built once per settings change (clientFor) and shared by concurrent
	// calls, so that calls reuse its kept-alive connections.
	conn *conn
	// builds counts the SDK clients built (tests read it).
	builds atomic.Int64
}

// conn is one settings' SDK client and the HTTP transport it sends on.
type conn struct {
	client    oai.Client
	http      *http.Client
	transport *http.Transport
}

// New returns the OpenAI provider configured from the environment.
func New() *Provider { return NewDeployment(OpenAI) }

// NewDeployment returns the provider for deployment d, configured from
// d's environment variables.
func NewDeployment(d Deployment) *Provider {
	base := os.Getenv(d.BaseURLEnv)
	if base == "" {
		base = d.DefaultBaseURL
	}
	p := &Provider{
		d:       d,
		limit:   provider.NewLimiter(d.ConcurrencyEnv(), d.MaxConcurrency),
		apiKey:  os.Getenv(d.APIKeyEnv),
		baseURL: base,
	}
	p.conn = p.newConn()
	return p
}

// idleConns is how many idle connections the transport keeps per host when
// the deployment has no concurrency cap.
const idleConns = 256

// newConn builds the SDK client for the current settings (p.mu held, or p
// not yet shared), or nil when there is no key. Its transport keeps as many
// idle connections per host as the plugin has calls in flight, so that a
// burst of calls does not open new connections for the next burst.
func (p *Provider) newConn() *conn {
	if p.apiKey == "" {
		return nil
	}
	idle := p.limit.Size()
	if idle < 1 {
		idle = idleConns
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = idle
	t.MaxIdleConnsPerHost = idle
	hc := &http.Client{Timeout: 10 * time.Minute, Transport: t}
	opts := []option.RequestOption{
		option.WithAPIKey(p.apiKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if p.baseURL != "" {
		opts = append(opts, option.WithBaseURL(p.baseURL))
	}
	p.builds.Add(1)
	return &conn{client: oai.NewClient(opts...), http: hc, transport: t}
}

// Info describes the provider and its well-known models; other model names
// are passed through to the server.
func (p *Provider) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{
		Name:        p.d.Name,
		DisplayName: p.d.DisplayName,
		Models:      p.d.Models,
		Settings: []sdk.Field{
			{Name: "api_key", Label: "API key", Secret: true, Description: "overrides " + p.d.APIKeyEnv},
			{Name: "base_url", Label: "Base URL", Description: "overrides " + p.d.BaseURLEnv + "; for OpenAI-compatible servers, e.g. http://localhost:11434/v1"},
		},
	}, nil
}

// Configure accepts api_key (not empty) and base_url (an http(s) URL),
// overriding the environment. It checks every key before applying any, and
// its errors never quote a value.
func (p *Provider) Configure(_ context.Context, settings map[string]string) error {
	name := p.d.Name
	if err := provider.CheckSettings(name, settings); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	key, base := p.apiKey, p.baseURL
	if v, ok := settings["api_key"]; ok {
		p.apiKey = v
	}
	if v, ok := settings["base_url"]; ok {
		p.baseURL = v
	}
	if p.apiKey == key && p.baseURL == base && p.conn != nil {
		return nil
	}
	// Calls in flight finish on the old client; its idle connections go.
	if old := p.conn; old != nil {
		defer old.transport.CloseIdleConnections()
	}
	p.conn = p.newConn()
	return nil
}

// client returns an SDK client for the current settings, or the
// unconfigured error the host turns into 503 "set OPENAI_API_KEY" (or the
// deployment's variable).
func (p *Provider) client() (oai.Client, error) {
	c, err := p.current()
	if err != nil {
		return oai.Client{}, err
	}
	return c.client, nil
}

// current returns the client and HTTP client of the current settings.
func (p *Provider) current() (*conn, error) {
	p.mu.RLock()
	c := p.conn
	p.mu.RUnlock()
	if c == nil {
		return nil, sdk.Errorf(sdk.CodeUnconfigured, "set %s: the %s plugin has no API key", p.d.APIKeyEnv, p.d.Name)
	}
	return c, nil
}

// mapError turns an SDK error into an *sdk.Error: API errors keep their
// status, message and Retry-After; a rejected key (401, 403) names the
// variable to fix; transport errors are retryable.
func (p *Provider) mapError(op string, err error) error {
	service := p.d.Name + " " + op
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		header := http.Header{}
		if apiErr.Response != nil {
			header = apiErr.Response.Header
		}
		msg := p.redact(apiErr.Message)
		if apiErr.Code != "" {
			msg = apiErr.Code + ": " + msg
		}
		e := sdk.RemoteError(service, apiErr.StatusCode, header, msg)
		if apiErr.StatusCode == http.StatusUnauthorized || apiErr.StatusCode == http.StatusForbidden {
			e.Code = sdk.CodeUnauthenticated
			e.Message = "check " + p.d.APIKeyEnv + ": " + e.Message
		}
		return e
	}
	return sdk.RequestError(service, err)
}

func usage(u oai.CompletionUsage) sdk.Usage {
	return sdk.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}

// redact removes the API key from a remote's message, in case a server
// echoes what it was sent.
func (p *Provider) redact(msg string) string {
	p.mu.RLock()
	key := p.apiKey
	p.mu.RUnlock()
	if key == "" {
		return msg
	}
	return strings.ReplaceAll(msg, key, "[redacted]")
}

// GenerateText answers one prompt with one chat completion, or through the
// deployment's search API (engines.go), within the deployment's
// concurrency cap.
func (p *Provider) GenerateText(ctx context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	if req.Model == "" || req.Prompt == "" {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "openai: model and prompt are required")
	}
	release, err := p.limit.Acquire(ctx)
	if err != nil {
		return sdk.TextResponse{}, sdk.RequestError(p.d.Name, err)
	}
	defer release()
	if p.searching(req) {
		return p.generateWithSearch(ctx, req)
	}
	client, err := p.client()
	if err != nil {
		return sdk.TextResponse{}, err
	}
	var msgs []sdk.Message
	if req.System != "" {
		msgs = append(msgs, sdk.Message{Role: sdk.RoleSystem, Content: req.System})
	}
	msgs = append(msgs, sdk.Message{Role: sdk.RoleUser, Content: req.Prompt})
	params, err := chatParams(sdk.ChatRequest{Model: req.Model, Messages: msgs, MaxOutputTokens: req.MaxOutputTokens, Temperature: req.Temperature, Options: req.Options})
	if err != nil {
		return sdk.TextResponse{}, err
	}
	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		return sdk.TextResponse{}, p.mapError("chat completion", err)
	}
	if len(resp.Choices) == 0 {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeRemote, "openai returned no choices")
	}
	return sdk.TextResponse{
		Text: resp.Choices[0].Message.Content, Model: resp.Model,
		FinishReason: resp.Choices[0].FinishReason, Usage: usage(resp.Usage),
		Citations: citations(resp),
	}, nil
}

// chatParams converts a chat request to Chat Completions parameters.
func chatParams(req sdk.ChatRequest) (oai.ChatCompletionNewParams, error) {
	params := oai.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	for i, m := range req.Messages {
		switch m.Role {
		case sdk.RoleSystem:
			params.Messages = append(params.Messages, oai.SystemMessage(m.Content))
		case sdk.RoleUser:
			params.Messages = append(params.Messages, oai.UserMessage(m.Content))
		case sdk.RoleTool:
			params.Messages = append(params.Messages, oai.ToolMessage(m.Content, m.ToolCallID))
		case sdk.RoleAssistant:
			am := oai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				am.Content.OfString = oai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
					},
				})
			}
			params.Messages = append(params.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		default:
			return params, sdk.Errorf(sdk.CodeInvalidArgument, "openai: message %d has no known role (%q)", i, m.Role)
		}
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.Parameters)}
		if t.Description != "" {
			fn.Description = oai.String(t.Description)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	if req.MaxOutputTokens > 0 {
		params.MaxCompletionTokens = oai.Int(req.MaxOutputTokens)
	}
	if req.Temperature != nil {
		params.Temperature = oai.Float(*req.Temperature)
	}
	if on, _ := req.Options["web_search"].(bool); on {
		// OpenAI's search models (and Perplexity) take web_search_options;
		// "medium" is the documented default context size.
		params.WebSearchOptions.SearchContextSize = "medium"
	}
	if err := applyOptions(&params, req.Options); err != nil {
		return params, err
	}
	return params, nil
}

// toolCallBuilder accumulates one streamed tool call.
type toolCallBuilder struct {
	id, name string
	args     strings.Builder
}

// Chat streams one assistant turn. Text deltas are forwarded as they come;
// tool calls, which arrive in fragments, are sent whole once the model has
// finished them (at the end of the turn).
func (p *Provider) Chat(ctx context.Context, req sdk.ChatRequest, stream sdk.ChatStream) error {
	if req.Model == "" || len(req.Messages) == 0 {
		return sdk.Errorf(sdk.CodeInvalidArgument, "openai: model and messages are required")
	}
	client, err := p.client()
	if err != nil {
		return err
	}
	params, err := chatParams(req)
	if err != nil {
		return err
	}
	params.StreamOptions.IncludeUsage = oai.Bool(true)
	s := client.Chat.Completions.NewStreaming(ctx, params)
	defer s.Close()

	calls := map[int64]*toolCallBuilder{}
	finish := sdk.ChatFinish{Model: req.Model}
	for s.Next() {
		chunk := s.Current()
		if chunk.Model != "" {
			finish.Model = chunk.Model
		}
		if chunk.Usage.TotalTokens > 0 {
			finish.Usage = usage(chunk.Usage)
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue
			}
			if choice.Delta.Content != "" {
				if err := stream.Send(sdk.ChatEvent{TextDelta: choice.Delta.Content}); err != nil {
					return err
				}
			}
			for _, tc := range choice.Delta.ToolCalls {
				b := calls[tc.Index]
				if b == nil {
					b = &toolCallBuilder{}
					calls[tc.Index] = b
				}
				if tc.ID != "" {
					b.id = tc.ID
				}
				if tc.Function.Name != "" {
					b.name = tc.Function.Name
				}
				b.args.WriteString(tc.Function.Arguments)
			}
			if choice.FinishReason != "" {
				finish.FinishReason = choice.FinishReason
			}
		}
	}
	if err := s.Err(); err != nil {
		return p.mapError("chat stream", err)
	}
	indexes := make([]int64, 0, len(calls))
	for i := range calls {
		indexes = append(indexes, i)
	}
	sort.Slice(indexes, func(a, b int) bool { return indexes[a] < indexes[b] })
	for _, i := range indexes {
		b := calls[i]
		args := b.args.String()
		if args == "" {
			args = "{}"
		}
		if err := stream.Send(sdk.ChatEvent{ToolCall: &sdk.ToolCall{ID: b.id, Name: b.name, Arguments: args}}); err != nil {
			return err
		}
	}
	if finish.FinishReason == "" {
		finish.FinishReason = "stop"
	}
	return stream.Send(sdk.ChatEvent{Finish: &finish})
}

// Interface guards.
var (
	_ sdk.Provider       = (*Provider)(nil)
	_ sdk.ImageGenerator = (*Provider)(nil)
	_ sdk.Configurer     = (*Provider)(nil)
)
