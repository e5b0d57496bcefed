// Package anthropic is Herald's first-party provider for Anthropic's Claude
// models, built on the official anthropic-sdk-go and written as any
// third-party plugin would be: it imports only sdk/. It offers text
// generation and streamed chat with tool calls through the Messages API; it
// does not generate images (the SDK answers unimplemented for that).
//
// It reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from its environment;
// the api_key and base_url settings override them. The Messages API requires
// max_tokens: a request without MaxOutputTokens asks for
// [DefaultMaxTokens]. The SDK's own retries are off: a 429, 529 or other 5xx
// comes back to the host as a retryable error with the server's
// Retry-After, and the host's model router decides what to do.
//
// With the request option "web_search": true the Messages API's web search
// server tool is enabled, and the web pages Claude cites come back as the
// response's citations.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	ant "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// The environment variables the provider reads.
const (
	APIKeyEnv  = "ANTHROPIC_API_KEY"
	BaseURLEnv = "ANTHROPIC_BASE_URL"
)

// DefaultMaxTokens is the max_tokens sent when a request sets no
// MaxOutputTokens: the Messages API requires one, and 4096 covers a long
// answer (a blog post, a report paragraph set) on every current Claude model
// without letting a runaway generation bill tens of thousands of tokens.
const DefaultMaxTokens = 4096

// webSearchMaxUses caps the searches one answer may run when web search is
// on; each search is billed.
const webSearchMaxUses = 5

// Provider talks to the Anthropic Messages API.
type Provider struct {
	httpClient *http.Client
	// limit caps the requests in flight (ANTHROPIC_MAX_CONCURRENCY, default 8).
	limit *provider.Limiter

	mu      sync.RWMutex
	apiKey  string
	baseURL string
}

// New returns the provider configured from the environment.
func New() *Provider {
	return &Provider{
		limit:      provider.NewLimiter("ANTHROPIC_MAX_CONCURRENCY", 8),
		httpClient: &http.Client{Timeout: 10 * time.Minute},
		apiKey:     os.Getenv(APIKeyEnv),
		baseURL:    os.Getenv(BaseURLEnv),
	}
}

var chatCaps = []sdk.Capability{sdk.CapabilityText, sdk.CapabilityChat, sdk.CapabilityTools}

// Info describes the provider and its well-known models; other model names
// are passed through to the API.
func (p *Provider) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{
		Name:        "anthropic",
		DisplayName: "Anthropic Claude",
		Models: []sdk.Model{
			{ID: "claude-opus-4-1", Capabilities: chatCaps},
			{ID: "claude-sonnet-4-5", Capabilities: chatCaps},
			{ID: "claude-haiku-4-5", Capabilities: chatCaps},
		},
		Settings: []sdk.Field{
			{Name: "api_key", Label: "API key", Secret: true, Description: "overrides " + APIKeyEnv},
			{Name: "base_url", Label: "Base URL", Description: "overrides " + BaseURLEnv},
		},
	}, nil
}

// Configure accepts api_key (not empty) and base_url (an http(s) URL),
// overriding the environment. It checks every key before applying any, and
// its errors never quote a value.
func (p *Provider) Configure(_ context.Context, settings map[string]string) error {
	name := "anthropic"
	if err := provider.CheckSettings(name, settings); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := settings["api_key"]; ok {
		p.apiKey = v
	}
	if v, ok := settings["base_url"]; ok {
		p.baseURL = v
	}
	return nil
}

// client returns an SDK client for the current settings, or the
// unconfigured error the host turns into 503 "set ANTHROPIC_API_KEY".
// The SDK's own environment autoload (profiles, auth tokens, federation) is
// off so that what the operator configured is exactly what is used.
func (p *Provider) client() (ant.Client, error) {
	p.mu.RLock()
	key, base := p.apiKey, p.baseURL
	p.mu.RUnlock()
	if key == "" {
		return ant.Client{}, sdk.Errorf(sdk.CodeUnconfigured, "set %s: the anthropic plugin has no API key", APIKeyEnv)
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithHTTPClient(p.httpClient),
		option.WithMaxRetries(0),
	}
	if base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	return ant.NewClient(opts...), nil
}

// mapError turns an SDK error into an *sdk.Error: API errors keep their
// status, message and Retry-After (429, 529 and 5xx are retryable); a
// rejected key names the variable to fix; transport errors are retryable.
func (p *Provider) mapError(op string, err error) error {
	var apiErr *ant.Error
	if !errors.As(err, &apiErr) {
		return sdk.RequestError("anthropic "+op, err)
	}
	header := http.Header{}
	if apiErr.Response != nil {
		header = apiErr.Response.Header
	}
	// The body is {"type":"error","error":{"type":"…","message":"…"}}.
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(apiErr.RawJSON()), &body)
	msg := p.redact(body.Error.Message)
	if body.Error.Type != "" {
		msg = body.Error.Type + ": " + msg
	}
	status := apiErr.StatusCode
	if status < 400 {
		// An error event inside a 200 stream: its type says what happened.
		status = streamErrorStatus[body.Error.Type]
		if status == 0 {
			status = http.StatusInternalServerError
		}
	}
	e := sdk.RemoteError("anthropic "+op, status, header, msg)
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		e.Code = sdk.CodeUnauthenticated
		e.Message = "check " + APIKeyEnv + ": " + e.Message
	}
	return e
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

// streamErrorStatus maps the error types Anthropic documents to the HTTP
// status each has when it is not sent inside a stream.
var streamErrorStatus = map[string]int{
	"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
	"not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429,
	"api_error": 500, "overloaded_error": 529,
}

// GenerateText answers one prompt with one message.
func (p *Provider) GenerateText(ctx context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	if req.Model == "" || req.Prompt == "" {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "anthropic: model and prompt are required")
	}
	release, err := p.limit.Acquire(ctx)
	if err != nil {
		return sdk.TextResponse{}, sdk.RequestError("anthropic", err)
	}
	defer release()
	client, err := p.client()
	if err != nil {
		return sdk.TextResponse{}, err
	}
	var msgs []sdk.Message
	if req.System != "" {
		msgs = append(msgs, sdk.Message{Role: sdk.RoleSystem, Content: req.System})
	}
	msgs = append(msgs, sdk.Message{Role: sdk.RoleUser, Content: req.Prompt})
	params, err := messageParams(sdk.ChatRequest{Model: req.Model, Messages: msgs, MaxOutputTokens: req.MaxOutputTokens, Temperature: req.Temperature, Options: req.Options})
	if err != nil {
		return sdk.TextResponse{}, err
	}
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		return sdk.TextResponse{}, p.mapError("message", err)
	}
	var text strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	return sdk.TextResponse{
		Text: text.String(), Model: string(msg.Model), FinishReason: finishReason(msg.StopReason),
		Usage: usage(msg.Usage), Citations: citations(msg.Content),
	}, nil
}

// Chat streams one assistant turn. Text deltas are forwarded as they come;
// tool calls, whose JSON input arrives in fragments, are sent whole at the
// end of the turn.
func (p *Provider) Chat(ctx context.Context, req sdk.ChatRequest, stream sdk.ChatStream) error {
	if req.Model == "" || len(req.Messages) == 0 {
		return sdk.Errorf(sdk.CodeInvalidArgument, "anthropic: model and messages are required")
	}
	client, err := p.client()
	if err != nil {
		return err
	}
	params, err := messageParams(req)
	if err != nil {
		return err
	}
	s := client.Messages.NewStreaming(ctx, params)
	defer s.Close()
	var msg ant.Message
	for s.Next() {
		ev := s.Current()
		if err := msg.Accumulate(ev); err != nil {
			return sdk.Errorf(sdk.CodeRemote, "anthropic sent a malformed stream: %v", err)
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
			if err := stream.Send(sdk.ChatEvent{TextDelta: ev.Delta.Text}); err != nil {
				return err
			}
		}
	}
	if err := s.Err(); err != nil {
		return p.mapError("message stream", err)
	}
	for _, b := range msg.Content {
		if b.Type != "tool_use" {
			continue
		}
		args := strings.TrimSpace(string(b.Input))
		if args == "" {
			args = "{}"
		}
		if err := stream.Send(sdk.ChatEvent{ToolCall: &sdk.ToolCall{ID: b.ID, Name: b.Name, Arguments: args}}); err != nil {
			return err
		}
	}
	model := string(msg.Model)
	if model == "" {
		model = req.Model
	}
	return stream.Send(sdk.ChatEvent{Finish: &sdk.ChatFinish{FinishReason: finishReason(msg.StopReason), Model: model, Usage: usage(msg.Usage)}})
}

// finishReason maps Anthropic's stop reasons onto the SDK's vocabulary;
// others (refusal, pause_turn) pass through.
func finishReason(r ant.StopReason) string {
	switch r {
	case ant.StopReasonEndTurn, ant.StopReasonStopSequence, "":
		return "stop"
	case ant.StopReasonToolUse:
		return "tool_calls"
	case ant.StopReasonMaxTokens:
		return "length"
	default:
		return string(r)
	}
}

func usage(u ant.Usage) sdk.Usage {
	return sdk.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
}

// Interface guards.
var (
	_ sdk.Provider   = (*Provider)(nil)
	_ sdk.Configurer = (*Provider)(nil)
)
