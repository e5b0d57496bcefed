// Package serpapi is Herald's first-party provider for Google's AI answers,
// read through SerpApi (https://serpapi.com): the AI Overview above
// Google's results (the google engine's ai_overview block, fetched with the
// google_ai_overview engine when SerpApi returns only its page_token) and
// AI Mode (the google_ai_mode engine). An answer's text is the overview's
// text blocks, its citations the overview's references; a search that
// shows no AI Overview answers with FinishReason sdk.FinishNoAnswer and no
// text.
//
// It reads SERPAPI_API_KEY, SERPAPI_BASE_URL and the search's origin,
// SERPAPI_LOCATION (a SerpApi location such as "Austin, Texas, United
// States"), SERPAPI_GL (country, "us") and SERPAPI_HL (language, "en"),
// from its environment; the settings api_key, base_url, location, gl and
// hl override them, and a request's options location, gl and hl override
// those. SERPAPI_MAX_CONCURRENCY caps the searches in flight (default 4).
package serpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// The environment variables the provider reads.
const (
	APIKeyEnv      = "SERPAPI_API_KEY"
	BaseURLEnv     = "SERPAPI_BASE_URL"
	LocationEnv    = "SERPAPI_LOCATION"
	CountryEnv     = "SERPAPI_GL"
	LanguageEnv    = "SERPAPI_HL"
	ConcurrencyEnv = "SERPAPI_MAX_CONCURRENCY"
	DefaultBaseURL = "https://serpapi.com"
)

// The models: which of Google's AI answers a request reads.
const (
	ModelOverview = "google-ai-overview"
	ModelAIMode   = "google-ai-mode"
)

// settingNames are the settings Configure accepts, and the request options
// a search takes (those but the first two).
var settingNames = []string{"api_key", "base_url", "location", "gl", "hl"}

// Provider asks SerpApi.
type Provider struct {
	httpClient *http.Client
	limit      *provider.Limiter

	mu       sync.RWMutex
	apiKey   string
	baseURL  string
	settings map[string]string // location, gl, hl
}

// New returns the provider configured from the environment.
func New() *Provider {
	base := os.Getenv(BaseURLEnv)
	if base == "" {
		base = DefaultBaseURL
	}
	return &Provider{
		// SerpApi answers a search that is not cached in a few seconds;
		// AI Mode can take longer.
		httpClient: &http.Client{Timeout: 2 * time.Minute},
		limit:      provider.NewLimiter(ConcurrencyEnv, 4),
		apiKey:     os.Getenv(APIKeyEnv),
		baseURL:    base,
		settings:   map[string]string{"location": os.Getenv(LocationEnv), "gl": os.Getenv(CountryEnv), "hl": os.Getenv(LanguageEnv)},
	}
}

var textCaps = []sdk.Capability{sdk.CapabilityText}

// Info describes the provider, its two models and its settings.
func (p *Provider) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{
		Name: "serpapi", DisplayName: "Google AI Overviews and AI Mode (SerpApi)",
		Models: []sdk.Model{{ID: ModelOverview, Capabilities: textCaps}, {ID: ModelAIMode, Capabilities: textCaps}},
		Settings: []sdk.Field{
			{Name: "api_key", Label: "API key", Secret: true, Description: "overrides " + APIKeyEnv},
			{Name: "base_url", Label: "Base URL", Description: "overrides " + BaseURLEnv},
			{Name: "location", Label: "Location", Description: "where searches come from, a SerpApi location such as \"Austin, Texas, United States\"; overrides " + LocationEnv},
			{Name: "gl", Label: "Country", Description: "two-letter country code such as us; overrides " + CountryEnv},
			{Name: "hl", Label: "Language", Description: "language code such as en; overrides " + LanguageEnv},
		},
	}, nil
}

// Configure accepts the settings of Info, checking every key before
// applying any; its errors never quote a value.
func (p *Provider) Configure(_ context.Context, settings map[string]string) error {
	creds := map[string]string{}
	for k, v := range settings {
		switch k {
		case "api_key", "base_url":
			creds[k] = v
		case "location", "gl", "hl":
			if err := checkPlace(k, v); err != nil {
				return err
			}
		default:
			return sdk.Errorf(sdk.CodeInvalidArgument, "serpapi has no setting %q (settings: %s)", k, strings.Join(settingNames, ", "))
		}
	}
	if err := provider.CheckSettings("serpapi", creds); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, v := range settings {
		switch k {
		case "api_key":
			p.apiKey = v
		case "base_url":
			p.baseURL = v
		default:
			p.settings[k] = v
		}
	}
	return nil
}

// checkPlace checks a location, gl or hl value.
func checkPlace(k, v string) error {
	if k == "location" {
		if len(v) > 200 {
			return sdk.Errorf(sdk.CodeInvalidArgument, "serpapi %s is longer than 200 characters", k)
		}
		return nil
	}
	ok := len(v) <= 10
	for _, r := range v {
		ok = ok && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-')
	}
	if !ok {
		return sdk.Errorf(sdk.CodeInvalidArgument, "serpapi %s must be a code such as \"us\" or \"en\"", k)
	}
	return nil
}

// GenerateText reads Google's AI answer for the prompt, within the cap on
// searches in flight.
func (p *Provider) GenerateText(ctx context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	if req.Prompt == "" {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "serpapi: prompt is required")
	}
	if req.Model != ModelOverview && req.Model != ModelAIMode {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "serpapi: model must be %s or %s, not %q", ModelOverview, ModelAIMode, req.Model)
	}
	params, err := p.searchParams(req)
	if err != nil {
		return sdk.TextResponse{}, err
	}
	release, err := p.limit.Acquire(ctx)
	if err != nil {
		return sdk.TextResponse{}, sdk.RequestError("serpapi", err)
	}
	defer release()
	if req.Model == ModelAIMode {
		params.Set("engine", "google_ai_mode")
		var res aiModeResponse
		if err := p.get(ctx, params, &res); err != nil {
			return sdk.TextResponse{}, err
		}
		return answer(req.Model, res.TextBlocks, res.References, res.Markdown), nil
	}
	params.Set("engine", "google")
	var res searchResponse
	if err := p.get(ctx, params, &res); err != nil {
		return sdk.TextResponse{}, err
	}
	ov := res.AIOverview
	if ov != nil && len(ov.TextBlocks) == 0 && ov.PageToken != "" {
		// Google loads some overviews after the page: SerpApi returns a
		// token (valid for minutes) to fetch it with another request.
		next := url.Values{"engine": {"google_ai_overview"}, "page_token": {ov.PageToken}}
		var more searchResponse
		if err := p.get(ctx, next, &more); err != nil {
			return sdk.TextResponse{}, err
		}
		ov = more.AIOverview
	}
	if ov == nil {
		return answer(req.Model, nil, nil, ""), nil
	}
	return answer(req.Model, ov.TextBlocks, ov.References, ""), nil
}

// searchParams are the query's q, location, gl and hl: the request's
// options over the settings.
func (p *Provider) searchParams(req sdk.TextRequest) (url.Values, error) {
	p.mu.RLock()
	place := map[string]string{}
	for k, v := range p.settings {
		place[k] = v
	}
	p.mu.RUnlock()
	var unknown []string
	for k, v := range req.Options {
		s, isString := v.(string)
		switch {
		case !slices.Contains(settingNames[2:], k):
			unknown = append(unknown, k)
		case !isString:
			return nil, sdk.Errorf(sdk.CodeInvalidArgument, "serpapi: options.%s must be a string", k)
		default:
			if err := checkPlace(k, s); err != nil {
				return nil, err
			}
			place[k] = s
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, sdk.Errorf(sdk.CodeInvalidArgument, "serpapi: unknown options: %s (supported: location, gl, hl)", strings.Join(unknown, ", "))
	}
	q := url.Values{"q": {req.Prompt}}
	for k, v := range place {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q, nil
}

// get sends GET /search.json with params and the key, and decodes a
// success into out. SerpApi's errors are JSON {"error": "..."} with the
// HTTP status; a search Google answered with nothing comes back as a 200
// whose error says so, which is no AI answer, not a failure.
func (p *Provider) get(ctx context.Context, params url.Values, out any) error {
	p.mu.RLock()
	key, base := p.apiKey, p.baseURL
	p.mu.RUnlock()
	if key == "" {
		return sdk.Errorf(sdk.CodeUnconfigured, "set %s: the serpapi plugin has no API key", APIKeyEnv)
	}
	params.Set("api_key", key)
	op := "serpapi " + params.Get("engine")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/search.json?"+params.Encode(), nil)
	if err != nil {
		return sdk.Errorf(sdk.CodeInvalidArgument, "%s: bad base URL", op)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.httpClient.Do(req)
	if err != nil {
		// RequestError keeps only the URL's host: the key is in its query.
		return sdk.RequestError(op, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return sdk.RequestError(op, err)
	}
	var status struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(raw, &status)
	msg := strings.ReplaceAll(status.Error, key, "[redacted]")
	if resp.StatusCode != http.StatusOK {
		e := sdk.RemoteError(op, resp.StatusCode, resp.Header, msg)
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			e.Code = sdk.CodeUnauthenticated
			e.Message = "check " + APIKeyEnv + ": " + e.Message
		}
		return e
	}
	if msg != "" && !noResults(msg) {
		return sdk.RemoteError(op, http.StatusBadGateway, nil, msg)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return sdk.Errorf(sdk.CodeRemote, "%s answered with JSON Herald cannot read", op)
	}
	return nil
}

// noResults reports whether a 200's error says Google showed nothing
// ("Google hasn't returned any results for this query.").
func noResults(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "hasn't returned any results")
}

// Chat is not offered: Google's AI answers are read one search at a time.
func (p *Provider) Chat(context.Context, sdk.ChatRequest, sdk.ChatStream) error {
	return sdk.Errorf(sdk.CodeUnimplemented, "serpapi reads Google's AI answers one search at a time; it has no chat")
}

// Interface guards.
var (
	_ sdk.Provider   = (*Provider)(nil)
	_ sdk.Configurer = (*Provider)(nil)
)
