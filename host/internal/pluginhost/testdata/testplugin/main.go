// Command testplugin is the plugin the manager's tests run as a real
// subprocess. It serves a provider and a destination. Without
// TESTPLUGIN_CONTROL it answers at once (GenerateText echoes the prompt);
// with it, each call first asks that URL (the test's control server) how to
// answer: with text, with an *sdk.Error, or only after the test lets it go.
// With TESTPLUGIN_CONFIGURER=1 its provider implements sdk.Configurer
// (configurable); without it, it takes no settings. It imports nothing of
// Herald but the SDK, like any third-party plugin.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/heraldhq/herald/sdk"
)

func main() {
	t := &testPlugin{id: os.Getenv("TESTPLUGIN_ID"), control: os.Getenv("TESTPLUGIN_CONTROL")}
	if t.id == "" {
		t.id = "test"
	}
	var provider sdk.Provider = t
	if os.Getenv("TESTPLUGIN_CONFIGURER") == "1" {
		provider = configurable{t}
	}
	if err := sdk.Serve(sdk.ServeOpts{Provider: provider, Destination: destination{t}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type testPlugin struct {
	id, control string

	mu     sync.Mutex
	prefix string // the setting "prefix", put before each answer
}

// configurable is the provider with a Configure: it takes the setting
// "prefix" and refuses any other key with a message quoting the value, as
// a careless plugin might.
type configurable struct{ *testPlugin }

func (c configurable) Configure(_ context.Context, settings map[string]string) error {
	for k, v := range settings {
		if k != "prefix" {
			return sdk.Errorf(sdk.CodeInvalidArgument, "unknown setting %s=%q", k, v)
		}
		c.mu.Lock()
		c.prefix = v
		c.mu.Unlock()
	}
	return nil
}

// Call is what the plugin tells the control server; Answer what it hears back.
type Call struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	Model  string `json:"model"`
	Prompt string `json:"prompt"`
	PID    int    `json:"pid"`
}

// Answer says how to answer a call.
type Answer struct {
	Text       string `json:"text"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Retryable  bool   `json:"retryable"`
	Status     int    `json:"status"`
	RetryAfter int    `json:"retry_after"`
}

func (t *testPlugin) ask(ctx context.Context, method, model, prompt string) (string, error) {
	if t.control == "" {
		return prompt, nil
	}
	sdk.Logger().Info("asking the control server", "method", method, "model", model)
	body, _ := json.Marshal(Call{ID: t.id, Method: method, Model: model, Prompt: prompt, PID: os.Getpid()})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.control, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", sdk.RequestError("control", err)
	}
	defer resp.Body.Close()
	var a Answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return "", err
	}
	if a.Code != "" {
		return "", &sdk.Error{Code: sdk.Code(a.Code), Message: a.Message, Retryable: a.Retryable, StatusCode: a.Status, RetryAfter: time.Duration(a.RetryAfter) * time.Second}
	}
	return a.Text, nil
}

func (t *testPlugin) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{Name: "testplugin", DisplayName: "Test plugin " + t.id, Models: []sdk.Model{{ID: "echo", Capabilities: []sdk.Capability{sdk.CapabilityText, sdk.CapabilityChat}}}}, nil
}

func (t *testPlugin) GenerateText(ctx context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	text, err := t.ask(ctx, "GenerateText", req.Model, req.Prompt)
	if err != nil {
		return sdk.TextResponse{}, err
	}
	t.mu.Lock()
	prefix := t.prefix
	t.mu.Unlock()
	return sdk.TextResponse{Text: t.id + ":" + prefix + text, Model: req.Model, FinishReason: "stop"}, nil
}

func (t *testPlugin) Chat(ctx context.Context, req sdk.ChatRequest, stream sdk.ChatStream) error {
	prompt := ""
	if n := len(req.Messages); n > 0 {
		prompt = req.Messages[n-1].Content
	}
	text, err := t.ask(ctx, "Chat", req.Model, prompt)
	if err != nil {
		return err
	}
	if err := stream.Send(sdk.ChatEvent{TextDelta: t.id + ":"}); err != nil {
		return err
	}
	if err := stream.Send(sdk.ChatEvent{TextDelta: text}); err != nil {
		return err
	}
	return stream.Send(sdk.ChatEvent{Finish: &sdk.ChatFinish{FinishReason: "stop", Model: req.Model}})
}

// png is a 1×1 transparent PNG.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\x00\x01\x00\x00\x05\x00\x01\r\n-\xb4\x00\x00\x00\x00IEND\xaeB`\x82")

func (t *testPlugin) GenerateImage(ctx context.Context, req sdk.ImageRequest) (sdk.ImageResponse, error) {
	if _, err := t.ask(ctx, "GenerateImage", req.Model, req.Prompt); err != nil {
		return sdk.ImageResponse{}, err
	}
	return sdk.ImageResponse{Data: png, MIMEType: "image/png", Model: req.Model}, nil
}

// destination is the destination face of the same plugin.
type destination struct{ *testPlugin }

func (d destination) Info(context.Context) (sdk.DestinationInfo, error) {
	return sdk.DestinationInfo{Name: "testdest", DisplayName: "Test destination " + d.id, RequiredKeys: []string{"text"}, Idempotent: os.Getenv("TESTPLUGIN_IDEMPOTENT") == "1"}, nil
}

func (d destination) Validate(ctx context.Context, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	info, _ := d.Info(ctx)
	return sdk.CheckRequired(info, req.Content, req.Credentials), nil
}

func (t destination) Export(ctx context.Context, req sdk.ExportRequest) (sdk.ExportResult, error) {
	id, err := t.ask(ctx, "Export", "", req.Content.String("text"))
	if err != nil {
		return sdk.ExportResult{}, err
	}
	return sdk.ExportResult{ExternalID: t.id + ":" + id}, nil
}
