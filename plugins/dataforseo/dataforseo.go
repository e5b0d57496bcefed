// Package dataforseo is Herald's first-party provider for Google's AI
// answers read through DataForSEO's SERP API (https://api.dataforseo.com):
// the AI Overview of a Google search (POST
// /v3/serp/google/organic/live/advanced with load_async_ai_overview, its
// ai_overview item) and AI Mode (POST /v3/serp/google/ai_mode/live/advanced,
// the same item). It serves the same models as the serpapi plugin,
// google-ai-overview and google-ai-mode, so an operator routes them to
// either, or to both as deployment and fallback. A search without an AI
// Overview answers with FinishReason sdk.FinishNoAnswer and no text.
//
// It reads DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD (HTTP Basic auth),
// DATAFORSEO_BASE_URL, and the search's origin: DATAFORSEO_LOCATION (a
// DataForSEO location name, default "United States") and
// DATAFORSEO_LANGUAGE (a language code, default "en"); the settings login,
// password, base_url, location and language override them, and a
// request's options location and language override those.
// DATAFORSEO_MAX_CONCURRENCY caps the tasks in flight (default 4).
package dataforseo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/heraldhq/herald/plugins/internal/provider"
	"github.com/heraldhq/herald/sdk"
)

// The environment variables the provider reads.
const (
	LoginEnv       = "DATAFORSEO_LOGIN"
	PasswordEnv    = "DATAFORSEO_PASSWORD"
	BaseURLEnv     = "DATAFORSEO_BASE_URL"
	LocationEnv    = "DATAFORSEO_LOCATION"
	LanguageEnv    = "DATAFORSEO_LANGUAGE"
	ConcurrencyEnv = "DATAFORSEO_MAX_CONCURRENCY"
	DefaultBaseURL = "https://api.dataforseo.com"
)

// The models, as the serpapi plugin names them.
const (
	ModelOverview = "google-ai-overview"
	ModelAIMode   = "google-ai-mode"
)

// Provider asks DataForSEO.
type Provider struct {
	httpClient *http.Client
	limit      *provider.Limiter

	mu                       sync.RWMutex
	login, password, baseURL string
	location, language       string
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// New returns the provider configured from the environment.
func New() *Provider {
	return &Provider{
		httpClient: &http.Client{Timeout: 2 * time.Minute},
		limit:      provider.NewLimiter(ConcurrencyEnv, 4),
		login:      os.Getenv(LoginEnv), password: os.Getenv(PasswordEnv),
		baseURL:  envOr(BaseURLEnv, DefaultBaseURL),
		location: envOr(LocationEnv, "United States"), language: envOr(LanguageEnv, "en"),
	}
}

var textCaps = []sdk.Capability{sdk.CapabilityText}

// Info describes the provider, its two models and its settings.
func (p *Provider) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{
		Name: "dataforseo", DisplayName: "Google AI Overviews and AI Mode (DataForSEO)",
		Models: []sdk.Model{{ID: ModelOverview, Capabilities: textCaps}, {ID: ModelAIMode, Capabilities: textCaps}},
		Settings: []sdk.Field{
			{Name: "login", Label: "API login", Description: "overrides " + LoginEnv},
			{Name: "password", Label: "API password", Secret: true, Description: "overrides " + PasswordEnv},
			{Name: "base_url", Label: "Base URL", Description: "overrides " + BaseURLEnv},
			{Name: "location", Label: "Location", Description: "a DataForSEO location name such as \"United States\"; overrides " + LocationEnv},
			{Name: "language", Label: "Language", Description: "a language code such as en; overrides " + LanguageEnv},
		},
	}, nil
}

// Configure accepts the settings of Info, checking every key before
// applying any; its errors never quote a value.
func (p *Provider) Configure(_ context.Context, settings map[string]string) error {
	for k, v := range settings {
		switch k {
		case "login", "password", "location", "language":
			if v == "" || len(v) > 200 {
				return sdk.Errorf(sdk.CodeInvalidArgument, "dataforseo setting %s must be 1 to 200 characters", k)
			}
		case "base_url":
			if err := provider.CheckSettings("dataforseo", map[string]string{k: v}); err != nil {
				return err
			}
		default:
			return sdk.Errorf(sdk.CodeInvalidArgument, "dataforseo has no setting %q (settings: login, password, base_url, location, language)", k)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, v := range settings {
		switch k {
		case "login":
			p.login = v
		case "password":
			p.password = v
		case "base_url":
			p.baseURL = v
		case "location":
			p.location = v
		case "language":
			p.language = v
		}
	}
	return nil
}

// task is one live task of the request body (DataForSEO takes an array
// of one).
type task struct {
	Keyword             string `json:"keyword"`
	LocationName        string `json:"location_name"`
	LanguageCode        string `json:"language_code"`
	LoadAsyncAIOverview bool   `json:"load_async_ai_overview,omitempty"`
}

// GenerateText reads Google's AI answer for the prompt, within the cap on
// tasks in flight.
func (p *Provider) GenerateText(ctx context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	if req.Prompt == "" {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "dataforseo: prompt is required")
	}
	if len(req.Prompt) > 700 {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "dataforseo: a keyword is at most 700 characters")
	}
	path := map[string]string{ModelOverview: "/v3/serp/google/organic/live/advanced", ModelAIMode: "/v3/serp/google/ai_mode/live/advanced"}[req.Model]
	if path == "" {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "dataforseo: model must be %s or %s, not %q", ModelOverview, ModelAIMode, req.Model)
	}
	p.mu.RLock()
	t := task{Keyword: req.Prompt, LocationName: p.location, LanguageCode: p.language, LoadAsyncAIOverview: req.Model == ModelOverview}
	p.mu.RUnlock()
	var unknown []string
	for k, v := range req.Options {
		s, ok := v.(string)
		switch {
		case k != "location" && k != "language":
			unknown = append(unknown, k)
		case !ok || s == "" || len(s) > 200:
			return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "dataforseo: options.%s must be a string of 1 to 200 characters", k)
		case k == "location":
			t.LocationName = s
		default:
			t.LanguageCode = s
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "dataforseo: unknown options: %s (supported: location, language)", strings.Join(unknown, ", "))
	}
	release, err := p.limit.Acquire(ctx)
	if err != nil {
		return sdk.TextResponse{}, sdk.RequestError("dataforseo", err)
	}
	defer release()
	items, err := p.post(ctx, path, t)
	if err != nil {
		return sdk.TextResponse{}, err
	}
	for _, it := range items {
		if it.Type == "ai_overview" {
			return answer(req.Model, it), nil
		}
	}
	return sdk.TextResponse{Model: req.Model, FinishReason: sdk.FinishNoAnswer}, nil
}

// post sends one task and returns its result's items. DataForSEO answers
// HTTP 200 with a status_code per response and per task (20000 is
// success); other codes are mapped to errors here.
func (p *Provider) post(ctx context.Context, path string, t task) ([]item, error) {
	p.mu.RLock()
	login, password, base := p.login, p.password, p.baseURL
	p.mu.RUnlock()
	if login == "" || password == "" {
		return nil, sdk.Errorf(sdk.CodeUnconfigured, "set %s and %s: the dataforseo plugin has no credentials", LoginEnv, PasswordEnv)
	}
	op := "dataforseo " + path
	body, _ := json.Marshal([]task{t})
	u, err := url.JoinPath(base, path)
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidArgument, "%s: bad base URL", op)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, sdk.Errorf(sdk.CodeInvalidArgument, "%s: bad base URL", op)
	}
	req.SetBasicAuth(login, password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.httpClient.Do(req)
	if err != nil {
		return nil, sdk.RequestError(op, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, sdk.RequestError(op, err)
	}
	var out response
	_ = json.Unmarshal(raw, &out)
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(op, resp.StatusCode, resp.Header, out.StatusCode, out.StatusMessage)
	}
	if out.StatusCode != 20000 {
		return nil, statusError(op, 0, resp.Header, out.StatusCode, out.StatusMessage)
	}
	if len(out.Tasks) != 1 {
		return nil, sdk.Errorf(sdk.CodeRemote, "%s answered %d tasks for one", op, len(out.Tasks))
	}
	tk := out.Tasks[0]
	if tk.StatusCode != 20000 {
		return nil, statusError(op, 0, resp.Header, tk.StatusCode, tk.StatusMessage)
	}
	var items []item
	for _, r := range tk.Result {
		items = append(items, r.Items...)
	}
	return items, nil
}

// statusError maps an HTTP status, or else DataForSEO's own status code
// (40100 not authorised, 40200/40210 payment, 40202 and 42900 rate
// limits, 5xxxx its outages), to an *sdk.Error.
func statusError(op string, httpStatus int, header http.Header, code int, msg string) *sdk.Error {
	status := httpStatus
	if status == 0 {
		switch {
		case code == 40100 || code == 40101 || code == 40102:
			status = http.StatusUnauthorized
		case code == 40200 || code == 40210:
			status = http.StatusPaymentRequired
		case code == 40202 || code == 42900:
			status = http.StatusTooManyRequests
		case code >= 50000:
			status = http.StatusServiceUnavailable
		default:
			status = http.StatusBadRequest
		}
	}
	e := sdk.RemoteError(op, status, header, msg)
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		e.Code = sdk.CodeUnauthenticated
		e.Message = "check " + LoginEnv + " and " + PasswordEnv + ": " + e.Message
	}
	return e
}

// Chat is not offered: Google's AI answers are read one search at a time.
func (p *Provider) Chat(context.Context, sdk.ChatRequest, sdk.ChatStream) error {
	return sdk.Errorf(sdk.CodeUnimplemented, "dataforseo reads Google's AI answers one search at a time; it has no chat")
}

// Interface guards.
var (
	_ sdk.Provider   = (*Provider)(nil)
	_ sdk.Configurer = (*Provider)(nil)
)
