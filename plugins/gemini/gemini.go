// Package gemini is Herald's first-party provider for Google's Gemini
// models through the Gemini Developer API, built on the official
// google.golang.org/genai SDK and written as any third-party plugin would
// be: it imports only sdk/. It offers text generation and streamed chat
// with function calls; it does not generate images (the SDK answers
// unimplemented for that).
//
// It reads GEMINI_API_KEY and GEMINI_BASE_URL (for tests and proxies) from
// its environment; the api_key and base_url settings override them. The
// genai client's retries are off: a 429 or 5xx comes back to the host as a
// retryable error with the server's delay (the Retry-After header, else the
// google.rpc.RetryInfo detail), and the host's model router decides what to
// do.
//
// With the request option "web_search": true the request enables Grounding
// with Google Search, and the grounding chunks' web pages come back as the
// response's citations.
package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// The environment variables the provider reads.
const (
	APIKeyEnv  = "GEMINI_API_KEY"
	BaseURLEnv = "GEMINI_BASE_URL"
)

// Provider talks to the Gemini Developer API.
type Provider struct {
	httpClient *http.Client
	// limit caps the requests in flight (GEMINI_MAX_CONCURRENCY, default 8).
	limit *provider.Limiter

	mu      sync.RWMutex
	apiKey  string
	baseURL string
}

// New returns the provider configured from the environment.
func New() *Provider {
	return &Provider{
		limit:      provider.NewLimiter("GEMINI_MAX_CONCURRENCY", 8),
		httpClient: &http.Client{Timeout: 10 * time.Minute, Transport: retryAfterTransport{base: http.DefaultTransport}},
		apiKey:     os.Getenv(APIKeyEnv),
		baseURL:    os.Getenv(BaseURLEnv),
	}
}

var chatCaps = []sdk.Capability{sdk.CapabilityText, sdk.CapabilityChat, sdk.CapabilityTools}

// Info describes the provider and its well-known models; other model names
// are passed through to the API.
func (p *Provider) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{
		Name:        "gemini",
		DisplayName: "Google Gemini",
		Models: []sdk.Model{
			{ID: "gemini-2.5-pro", Capabilities: chatCaps},
			{ID: "gemini-2.5-flash", Capabilities: chatCaps},
			{ID: "gemini-2.5-flash-lite", Capabilities: chatCaps},
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
	name := "gemini"
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

// client returns a genai client for the current settings, or the
// unconfigured error the host turns into 503 "set GEMINI_API_KEY". The
// backend is pinned to the Gemini API so that GOOGLE_GENAI_USE_VERTEXAI in
// the environment cannot redirect calls.
func (p *Provider) client(ctx context.Context) (*genai.Client, error) {
	p.mu.RLock()
	key, base := p.apiKey, p.baseURL
	p.mu.RUnlock()
	if key == "" {
		return nil, sdk.Errorf(sdk.CodeUnconfigured, "set %s: the gemini plugin has no API key", APIKeyEnv)
	}
	c, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: key, Backend: genai.BackendGeminiAPI, HTTPClient: p.httpClient,
		HTTPOptions: genai.HTTPOptions{BaseURL: base},
	})
	if err != nil {
		// The SDK's message may print the whole config, key included.
		return nil, sdk.Errorf(sdk.CodeInternal, "gemini: cannot build the client")
	}
	return c, nil
}

// retryAfterKey carries a *retryAfter into a request's context, so the
// transport can hand back the header of a failed response: genai's
// APIError keeps the status and body but drops the headers.
type retryAfterKey struct{}

type retryAfter struct {
	mu     sync.Mutex
	status int
	header http.Header
}

// retryAfterTransport records the status and headers of every non-2xx
// response into the request context's *retryAfter.
type retryAfterTransport struct{ base http.RoundTripper }

func (t retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode >= 300 {
		if ra, ok := req.Context().Value(retryAfterKey{}).(*retryAfter); ok {
			ra.mu.Lock()
			ra.status, ra.header = resp.StatusCode, resp.Header.Clone()
			ra.mu.Unlock()
		}
	}
	return resp, err
}

// withRetryAfter returns ctx carrying a fresh *retryAfter.
func withRetryAfter(ctx context.Context) (context.Context, *retryAfter) {
	ra := &retryAfter{}
	return context.WithValue(ctx, retryAfterKey{}, ra), ra
}

// mapError turns a genai error into an *sdk.Error: API errors keep their
// status, message and delay (429 and 5xx are retryable); a rejected key
// names the variable to fix; transport errors are retryable.
func (p *Provider) mapError(op string, err error, ra *retryAfter) error {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		var apiErrPtr *genai.APIError
		if !errors.As(err, &apiErrPtr) {
			return sdk.RequestError("gemini "+op, err)
		}
		apiErr = *apiErrPtr
	}
	header := http.Header{}
	ra.mu.Lock()
	if ra.header != nil {
		header = ra.header
	}
	if apiErr.Code == 0 {
		// An error body without a code (a proxy's) still has a status.
		apiErr.Code = ra.status
	}
	ra.mu.Unlock()
	if header.Get("Retry-After") == "" {
		if d := retryDelay(apiErr.Details); d != "" {
			header = header.Clone()
			header.Set("Retry-After", d)
		}
	}
	msg := p.redact(apiErr.Message)
	if apiErr.Status != "" && !strings.Contains(apiErr.Status, " ") {
		msg = apiErr.Status + ": " + msg
	}
	e := sdk.RemoteError("gemini "+op, apiErr.Code, header, msg)
	if apiErr.Code == http.StatusUnauthorized || apiErr.Code == http.StatusForbidden || hasReason(apiErr.Details, "API_KEY_INVALID") {
		e.Code, e.Retryable = sdk.CodeUnauthenticated, false
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

// retryDelay returns the seconds of a google.rpc.RetryInfo detail
// ("37s" → "37"), or "".
func retryDelay(details []map[string]any) string {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if s, _ := d["retryDelay"].(string); s != "" {
			if dur, err := time.ParseDuration(s); err == nil {
				return fmt.Sprint(int(dur.Seconds() + 0.999))
			}
		}
	}
	return ""
}

// hasReason reports a google.rpc.ErrorInfo detail with the given reason;
// the Gemini API answers an invalid key with 400 and API_KEY_INVALID.
func hasReason(details []map[string]any, reason string) bool {
	for _, d := range details {
		if r, _ := d["reason"].(string); r == reason {
			return true
		}
	}
	return false
}

// GenerateText answers one prompt with one generateContent call.
func (p *Provider) GenerateText(ctx context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	if req.Model == "" || req.Prompt == "" {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "gemini: model and prompt are required")
	}
	release, err := p.limit.Acquire(ctx)
	if err != nil {
		return sdk.TextResponse{}, sdk.RequestError("gemini", err)
	}
	defer release()
	client, err := p.client(ctx)
	if err != nil {
		return sdk.TextResponse{}, err
	}
	var msgs []sdk.Message
	if req.System != "" {
		msgs = append(msgs, sdk.Message{Role: sdk.RoleSystem, Content: req.System})
	}
	msgs = append(msgs, sdk.Message{Role: sdk.RoleUser, Content: req.Prompt})
	contents, cfg, err := contentParams(sdk.ChatRequest{Model: req.Model, Messages: msgs, MaxOutputTokens: req.MaxOutputTokens, Temperature: req.Temperature, Options: req.Options})
	if err != nil {
		return sdk.TextResponse{}, err
	}
	ctx, ra := withRetryAfter(ctx)
	resp, err := client.Models.GenerateContent(ctx, req.Model, contents, cfg)
	if err != nil {
		return sdk.TextResponse{}, p.mapError("generateContent", err, ra)
	}
	if len(resp.Candidates) == 0 {
		reason := "no candidates"
		if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			reason = "the prompt was blocked: " + string(resp.PromptFeedback.BlockReason)
		}
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeRemote, "gemini returned %s", reason)
	}
	cand := resp.Candidates[0]
	var text strings.Builder
	if cand.Content != nil {
		for _, part := range cand.Content.Parts {
			if part.Text != "" && !part.Thought {
				text.WriteString(part.Text)
			}
		}
	}
	model := resp.ModelVersion
	if model == "" {
		model = req.Model
	}
	return sdk.TextResponse{
		Text: text.String(), Model: model, FinishReason: finishReason(cand.FinishReason, false),
		Usage: usage(resp.UsageMetadata), Citations: citations(cand.GroundingMetadata),
	}, nil
}

// Chat streams one model turn through streamGenerateContent (SSE). Text
// is forwarded as it comes; function calls, which Gemini sends whole, are
// sent at the end of the turn.
func (p *Provider) Chat(ctx context.Context, req sdk.ChatRequest, stream sdk.ChatStream) error {
	if req.Model == "" || len(req.Messages) == 0 {
		return sdk.Errorf(sdk.CodeInvalidArgument, "gemini: model and messages are required")
	}
	client, err := p.client(ctx)
	if err != nil {
		return err
	}
	contents, cfg, err := contentParams(req)
	if err != nil {
		return err
	}
	ctx, ra := withRetryAfter(ctx)
	finish := sdk.ChatFinish{Model: req.Model}
	var calls []*genai.FunctionCall
	var reason genai.FinishReason
	for chunk, err := range client.Models.GenerateContentStream(ctx, req.Model, contents, cfg) {
		if err != nil {
			return p.mapError("streamGenerateContent", err, ra)
		}
		if chunk.ModelVersion != "" {
			finish.Model = chunk.ModelVersion
		}
		if chunk.UsageMetadata != nil {
			finish.Usage = usage(chunk.UsageMetadata)
		}
		if len(chunk.Candidates) == 0 {
			continue
		}
		cand := chunk.Candidates[0]
		if cand.FinishReason != "" {
			reason = cand.FinishReason
		}
		if cand.Content == nil {
			continue
		}
		for _, part := range cand.Content.Parts {
			switch {
			case part.FunctionCall != nil:
				calls = append(calls, part.FunctionCall)
			case part.Text != "" && !part.Thought:
				if err := stream.Send(sdk.ChatEvent{TextDelta: part.Text}); err != nil {
					return err
				}
			}
		}
	}
	for i, fc := range calls {
		args, err := json.Marshal(fc.Args)
		if err != nil || fc.Args == nil {
			args = []byte("{}")
		}
		id := fc.ID
		if id == "" {
			// The Gemini API often leaves function call IDs empty; the
			// host needs one to pair the tool result with the call.
			id = fmt.Sprintf("%s%d_%s", syntheticIDPrefix, i, fc.Name)
		}
		if err := stream.Send(sdk.ChatEvent{ToolCall: &sdk.ToolCall{ID: id, Name: fc.Name, Arguments: string(args)}}); err != nil {
			return err
		}
	}
	finish.FinishReason = finishReason(reason, len(calls) > 0)
	return stream.Send(sdk.ChatEvent{Finish: &finish})
}

// finishReason maps Gemini's finish reasons onto the SDK's vocabulary:
// Gemini says STOP for a turn that ends in function calls.
func finishReason(r genai.FinishReason, calledTools bool) string {
	switch {
	case calledTools:
		return "tool_calls"
	case r == genai.FinishReasonStop || r == "" || r == genai.FinishReasonUnspecified:
		return "stop"
	case r == genai.FinishReasonMaxTokens:
		return "length"
	default:
		return strings.ToLower(string(r))
	}
}

func usage(u *genai.GenerateContentResponseUsageMetadata) sdk.Usage {
	if u == nil {
		return sdk.Usage{}
	}
	out := int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount)
	return sdk.Usage{InputTokens: int64(u.PromptTokenCount), OutputTokens: out, TotalTokens: int64(u.TotalTokenCount)}
}

// Interface guards.
var (
	_ sdk.Provider   = (*Provider)(nil)
	_ sdk.Configurer = (*Provider)(nil)
)
