package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// failingDestination returns err from Export, so tests can watch errors cross
// the wire.
type failingDestination struct{ err error }

func (d failingDestination) Info(context.Context) (sdk.DestinationInfo, error) {
	return sdk.DestinationInfo{Name: "failing", DisplayName: "Failing"}, nil
}

func (d failingDestination) Validate(context.Context, sdk.ValidateRequest) ([]sdk.Problem, error) {
	return nil, nil
}

func (d failingDestination) Export(context.Context, sdk.ExportRequest) (sdk.ExportResult, error) {
	return sdk.ExportResult{}, d.err
}

func TestErrorsCrossTheWireIntact(t *testing.T) {
	t.Parallel()
	limited := http.Header{"Retry-After": []string{"7"}}
	tests := []struct {
		name string
		err  error
		want sdk.Error
	}{
		{"a remote 429 stays retryable with its Retry-After",
			sdk.RemoteError("webflow", 429, limited, "Too many requests"),
			sdk.Error{Code: sdk.CodeRateLimited, Message: "webflow answered 429: Too many requests", Retryable: true, StatusCode: 429, RetryAfter: 7 * time.Second}},
		{"a remote 503 is retryable",
			sdk.RemoteError("notion", 503, http.Header{}, "service_unavailable"),
			sdk.Error{Code: sdk.CodeUnavailable, Message: "notion answered 503: service_unavailable", Retryable: true, StatusCode: 503}},
		{"a remote 401 is not retryable",
			sdk.RemoteError("linkedin", 401, http.Header{}, "Invalid access token"),
			sdk.Error{Code: sdk.CodeUnauthenticated, Message: "linkedin answered 401: Invalid access token", StatusCode: 401}},
		{"a wrapped sdk error keeps its fields",
			fmt.Errorf("export: %w", sdk.Errorf(sdk.CodeUnconfigured, "set OPENAI_API_KEY")),
			sdk.Error{Code: sdk.CodeUnconfigured, Message: "set OPENAI_API_KEY"}},
		{"a plain error becomes an internal error with its text",
			errors.New("boom"),
			sdk.Error{Code: sdk.CodeInternal, Message: "boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := plugintest.InProcessDestination(t, failingDestination{err: tt.err})
			_, err := client.Export(context.Background(), sdk.ExportRequest{Content: sdk.Content{}})
			var got *sdk.Error
			if !errors.As(err, &got) {
				t.Fatalf("error %v is not an *sdk.Error", err)
			}
			if got.Code != tt.want.Code || got.Message != tt.want.Message || got.Retryable != tt.want.Retryable ||
				got.StatusCode != tt.want.StatusCode || got.RetryAfter != tt.want.RetryAfter {
				t.Errorf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestRemoteErrorClassifiesStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		retryAfter string
		wantCode   sdk.Code
		wantRetry  bool
		wantAfter  time.Duration
	}{
		{"429 is rate limited and honours delay seconds", 429, "12", sdk.CodeRateLimited, true, 12 * time.Second},
		{"500 is unavailable and retryable", 500, "", sdk.CodeUnavailable, true, 0},
		{"502 is unavailable and retryable", 502, "", sdk.CodeUnavailable, true, 0},
		{"400 is an invalid argument", 400, "", sdk.CodeInvalidArgument, false, 0},
		{"422 is an invalid argument", 422, "", sdk.CodeInvalidArgument, false, 0},
		{"401 is unauthenticated", 401, "", sdk.CodeUnauthenticated, false, 0},
		{"403 is permission denied", 403, "", sdk.CodePermissionDenied, false, 0},
		{"404 is not found", 404, "", sdk.CodeNotFound, false, 0},
		{"409 is another remote refusal", 409, "", sdk.CodeRemote, false, 0},
		{"a garbage Retry-After is ignored", 429, "soon", sdk.CodeRateLimited, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tt.retryAfter != "" {
				h.Set("Retry-After", tt.retryAfter)
			}
			e := sdk.RemoteError("remote", tt.status, h, "")
			if e.Code != tt.wantCode || e.Retryable != tt.wantRetry || e.StatusCode != tt.status {
				t.Errorf("got %+v", *e)
			}
			if e.RetryAfter != tt.wantAfter {
				t.Errorf("RetryAfter = %s, want %s", e.RetryAfter, tt.wantAfter)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		value string
		want  time.Duration
	}{
		{"delay seconds are read", "120", 2 * time.Minute},
		{"fractional seconds are kept", "1.5", 1500 * time.Millisecond},
		{"an HTTP date is relative to now", "Wed, 25 Nov 2026 12:01:30 GMT", 90 * time.Second},
		{"a date in the past means no delay", "Wed, 25 Nov 2026 11:00:00 GMT", 0},
		{"a negative delay means no delay", "-5", 0},
		{"an empty value means no delay", "", 0},
		{"garbage means no delay", "tomorrow", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := sdk.ParseRetryAfter(tt.value, now); got != tt.want {
				t.Errorf("ParseRetryAfter(%q) = %s, want %s", tt.value, got, tt.want)
			}
		})
	}
}

func TestRequestErrorHidesTheURL(t *testing.T) {
	t.Parallel()
	secretURL := "http://127.0.0.1:1/hooks/SECRET-TOKEN?key=SECRET-KEY"
	req, _ := http.NewRequest(http.MethodPost, secretURL, nil)
	_, err := http.DefaultClient.Do(req)
	if err == nil {
		t.Fatal("expected a connection error")
	}
	e := sdk.RequestError("webhook", err)
	if strings.Contains(e.Message, "SECRET") {
		t.Errorf("message leaks the URL: %q", e.Message)
	}
	if !e.Retryable || e.Code != sdk.CodeUnavailable {
		t.Errorf("got %+v, want a retryable unavailable error", *e)
	}
}

// echoProvider answers with what it was asked, so tests can check that every
// field survives the conversion layer.
type echoProvider struct {
	events []sdk.ChatEvent
	got    chan sdk.ChatRequest
}

func (p *echoProvider) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{Name: "echo", DisplayName: "Echo", Models: []sdk.Model{{ID: "m", Capabilities: []sdk.Capability{sdk.CapabilityChat, sdk.CapabilityTools}}}}, nil
}

func (p *echoProvider) GenerateText(_ context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	return sdk.TextResponse{Text: fmt.Sprintf("%s|%s|%d|%v|%v", req.Prompt, req.System, req.MaxOutputTokens, *req.Temperature, req.Options["seed"]), Model: req.Model}, nil
}

func (p *echoProvider) Chat(_ context.Context, req sdk.ChatRequest, stream sdk.ChatStream) error {
	p.got <- req
	for _, ev := range p.events {
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
	return nil
}

func TestChatCrossesTheWire(t *testing.T) {
	t.Parallel()
	temp := 0.5
	req := sdk.ChatRequest{
		Model: "m", MaxOutputTokens: 100, Temperature: &temp,
		Messages: []sdk.Message{
			{Role: sdk.RoleSystem, Content: "be brief"},
			{Role: sdk.RoleUser, Content: "weather?"},
			{Role: sdk.RoleAssistant, ToolCalls: []sdk.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
			{Role: sdk.RoleTool, ToolCallID: "c1", Content: "rain"},
		},
		Tools: []sdk.Tool{{Name: "weather", Description: "forecast", Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}},
	}
	tests := []struct {
		name   string
		events []sdk.ChatEvent
		want   []sdk.ChatEvent
	}{
		{"deltas, a tool call and the finish arrive in order",
			[]sdk.ChatEvent{{TextDelta: "It "}, {TextDelta: "rains."}, {ToolCall: &sdk.ToolCall{ID: "c2", Name: "weather", Arguments: "{}"}}, {Finish: &sdk.ChatFinish{FinishReason: "tool_calls", Model: "m-1", Usage: sdk.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}}},
			[]sdk.ChatEvent{{TextDelta: "It "}, {TextDelta: "rains."}, {ToolCall: &sdk.ToolCall{ID: "c2", Name: "weather", Arguments: "{}"}}, {Finish: &sdk.ChatFinish{FinishReason: "tool_calls", Model: "m-1", Usage: sdk.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}}}},
		{"a provider that forgets the finish event gets one added",
			[]sdk.ChatEvent{{TextDelta: "hi"}},
			[]sdk.ChatEvent{{TextDelta: "hi"}, {Finish: &sdk.ChatFinish{FinishReason: "stop", Model: "m"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &echoProvider{events: tt.events, got: make(chan sdk.ChatRequest, 1)}
			client := plugintest.InProcessProvider(t, p)
			var got []sdk.ChatEvent
			err := client.Chat(context.Background(), req, sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
				got = append(got, ev)
				return nil
			}))
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events = %+v, want %+v", got, tt.want)
			}
			if sent := <-p.got; !reflect.DeepEqual(sent, req) {
				t.Errorf("plugin received %+v, want %+v", sent, req)
			}
		})
	}
}

func TestOptionalCapabilitiesAnswerUnimplemented(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	provider := plugintest.InProcessProvider(t, &echoProvider{})
	destination := plugintest.InProcessDestination(t, failingDestination{})
	tests := []struct {
		name string
		call func() error
		want sdk.Code
	}{
		{"GenerateImage on a text-only provider is unimplemented", func() error {
			_, err := provider.GenerateImage(ctx, sdk.ImageRequest{Prompt: "cat"})
			return err
		}, sdk.CodeUnimplemented},
		{"StartFineTune on a provider without FineTuner is unimplemented", func() error {
			_, err := provider.StartFineTune(ctx, sdk.FineTuneRequest{BaseModel: "m", TrainingFile: []byte("{}\n")})
			return err
		}, sdk.CodeUnimplemented},
		{"GetFineTune on a provider without FineTuner is unimplemented", func() error {
			_, err := provider.GetFineTune(ctx, "ftjob-1")
			return err
		}, sdk.CodeUnimplemented},
		{"Delete on a destination without Deleter is unimplemented", func() error {
			return destination.Delete(ctx, sdk.DeleteRequest{ExternalID: "1"})
		}, sdk.CodeUnimplemented},
		{"settings for a plugin without Configurer are refused", func() error {
			return destination.Configure(ctx, map[string]string{"base_url": "x"})
		}, sdk.CodeInvalidArgument},
		{"no settings for a plugin without Configurer are fine", func() error {
			return destination.Configure(ctx, nil)
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := sdk.ErrorCode(tt.call()); got != tt.want {
				t.Errorf("code = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGenerateTextCrossesTheWire(t *testing.T) {
	t.Parallel()
	client := plugintest.InProcessProvider(t, &echoProvider{})
	temp := 0.25
	resp, err := client.GenerateText(context.Background(), sdk.TextRequest{Model: "m", Prompt: "p", System: "s", MaxOutputTokens: 9, Temperature: &temp, Options: map[string]any{"seed": 42.0}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "p|s|9|0.25|42"; resp.Text != want || resp.Model != "m" {
		t.Errorf("got %+v, want text %q", resp, want)
	}
}

func TestExportRequestImage(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\nfake")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/blobs/cover.png":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(png)
		case "/blobs/noext":
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write([]byte("jpeg"))
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name      string
		req       sdk.ExportRequest
		wantData  string
		wantMIME  string
		wantName  string
		wantRetry bool
		wantErr   bool
	}{
		{"no image gives nothing", sdk.ExportRequest{}, "", "", "", false, false},
		{"bytes from the host are used without fetching", sdk.ExportRequest{ImageURL: srv.URL + "/missing.webp", ImageData: []byte("x"), ImageMIMEType: "image/webp"}, "x", "image/webp", "missing.webp", false, false},
		{"a URL is fetched with its content type", sdk.ExportRequest{ImageURL: srv.URL + "/blobs/cover.png?sig=1"}, string(png), "image/png", "cover.png", false, false},
		{"a name without extension gets one from the type", sdk.ExportRequest{ImageURL: srv.URL + "/blobs/noext"}, "jpeg", "image/jpeg", "noext.jpg", false, false},
		{"a failing image host is a retryable error", sdk.ExportRequest{ImageURL: srv.URL + "/down.png"}, "", "", "", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, mimeType, name, err := tt.req.Image(context.Background(), srv.Client())
			if (err != nil) != tt.wantErr || sdk.IsRetryable(err) != tt.wantRetry {
				t.Fatalf("err = %v, want error %v retryable %v", err, tt.wantErr, tt.wantRetry)
			}
			if string(data) != tt.wantData || mimeType != tt.wantMIME || name != tt.wantName {
				t.Errorf("got %q %q %q, want %q %q %q", data, mimeType, name, tt.wantData, tt.wantMIME, tt.wantName)
			}
		})
	}
}

func TestCheckRequiredNamesMissingKeysAndCredentials(t *testing.T) {
	t.Parallel()
	info := sdk.DestinationInfo{Name: "d", RequiredKeys: []string{"title", "content"}, Credentials: []sdk.Field{
		{Name: "token", Label: "Token", Required: true}, {Name: "base_url", Label: "Base URL"},
	}}
	problems := sdk.CheckRequired(info, sdk.Content{"title": "  ", "content": 3.0}, map[string]string{"base_url": "x"})
	var keys []string
	for _, p := range problems {
		keys = append(keys, p.Key)
	}
	if want := []string{"title", "credentials.token"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("problem keys = %v, want %v", keys, want)
	}
}

func TestGuardedHTTPClient(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/ok", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name     string
		allowed  []netip.Prefix
		path     string
		wantCode sdk.Code // "" for success
	}{
		{"a loopback server is refused by default, without retry", nil, "/ok", sdk.CodeInvalidArgument},
		{"a loopback server inside an allowed CIDR is reached", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, "/ok", ""},
		{"redirects are followed under the same rule", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, "/redirect", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := sdk.GuardedHTTPClient(5*time.Second, tt.allowed)
			resp, err := client.Get(srv.URL + tt.path)
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("Get: %v", err)
				}
				resp.Body.Close()
				return
			}
			if !errors.Is(err, sdk.ErrForbiddenAddress) {
				t.Fatalf("err = %v, want ErrForbiddenAddress", err)
			}
			if e := sdk.RequestError("webhook", err); e.Code != tt.wantCode || e.Retryable {
				t.Errorf("RequestError = %+v, want %s and not retryable", *e, tt.wantCode)
			}
		})
	}
}

func TestExchangeTurnsAnswersIntoErrorsTheHostUnderstands(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			io.WriteString(w, `{"id":"42"}`)
		case "/limited":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			io.WriteString(w, `{"code":"rate_limited","message":"slow down"}`)
		case "/bad":
			w.WriteHeader(400)
			io.WriteString(w, `{"code":"validation_error","message":"Validation Error","details":[{"param":"slug"}]}`)
		case "/html":
			w.WriteHeader(502)
			io.WriteString(w, `<html>bad gateway</html>`)
		}
	}))
	defer srv.Close()
	get := func(path string) *http.Request {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		return req
	}
	var out struct{ ID string }
	if err := sdk.ExchangeJSON(srv.Client(), get("/ok"), "acme", &out); err != nil || out.ID != "42" {
		t.Fatalf("ok: %v %+v", err, out)
	}
	err := sdk.ExchangeJSON(srv.Client(), get("/limited"), "acme", &out)
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeRateLimited || !e.Retryable || e.RetryAfter != 7*time.Second || !strings.Contains(e.Message, "rate_limited: slow down") {
		t.Fatalf("429: %#v", err)
	}
	err = sdk.ExchangeJSON(srv.Client(), get("/bad"), "acme", nil)
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeInvalidArgument || e.Retryable || e.Message != `acme answered 400: validation_error: Validation Error {"param":"slug"}` {
		t.Fatalf("400: %#v", err)
	}
	_, _, err = sdk.Exchange(srv.Client(), get("/html"), "acme")
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeUnavailable || !e.Retryable || !strings.Contains(e.Message, "Bad Gateway") {
		t.Fatalf("502 with an HTML body: %#v", err)
	}
}

func TestUnknownSentinelsMatchByCode(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("route: %w", &sdk.Error{Code: sdk.CodeUnknownModel, Message: `unknown model "x" (configured: a)`})
	if !errors.Is(err, sdk.ErrUnknownModel) || errors.Is(err, sdk.ErrUnknownDestination) {
		t.Errorf("errors.Is(unknown model) = %v, errors.Is(unknown destination) = %v; want true, false",
			errors.Is(err, sdk.ErrUnknownModel), errors.Is(err, sdk.ErrUnknownDestination))
	}
	// An ordinary *Error with the same code as another ordinary one is not
	// a sentinel match.
	if errors.Is(&sdk.Error{Code: sdk.CodeInternal}, &sdk.Error{Code: sdk.CodeInternal}) {
		t.Error("two non-sentinel errors match")
	}
}

func TestCredentialsRefusedNamesWhatToCheck(t *testing.T) {
	t.Parallel()
	remote := sdk.RemoteError("wordpress", 401, http.Header{}, "Incorrect password")
	got := sdk.AsError(sdk.CredentialsRefused(remote, "WordPress refused the username or application_password"))
	if got.Code != sdk.CodeUnauthenticated || got.Message != "WordPress refused the username or application_password: wordpress answered 401: Incorrect password" {
		t.Errorf("refused = %+v", got)
	}
	other := sdk.RemoteError("wordpress", 502, http.Header{}, "Bad gateway")
	if sdk.CredentialsRefused(other, "x") != error(other) {
		t.Error("a 502 was rewritten")
	}
}

func TestImagePrefersTheHostsFileName(t *testing.T) {
	t.Parallel()
	req := sdk.ExportRequest{ImageURL: "http://10.0.0.1/v1/blobs/abc", ImageData: []byte("\x89PNG\r\n\x1a\n"), ImageMIMEType: "image/png", ImageFileName: "launch-day"}
	data, mimeType, name, err := req.Image(context.Background(), nil)
	if err != nil || len(data) == 0 || mimeType != "image/png" || name != "launch-day.png" {
		t.Errorf("Image = %d bytes, %q, %q, %v; want the bytes as launch-day.png", len(data), mimeType, name, err)
	}
}
