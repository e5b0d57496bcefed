package plugintest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
)

// ProviderChecks are the plugin-specific inputs of the provider conformance
// checks. Each request that is set is sent and its answer checked; point
// the provider at a fake of the remote (an httptest server) first.
type ProviderChecks struct {
	Text *sdk.TextRequest
	Chat *sdk.ChatRequest
	// WantToolCall requires the Chat reply to contain at least one tool call.
	WantToolCall bool
	Image        *sdk.ImageRequest
	// FineTune starts a fine-tuning job; the checks require a job id and a
	// known status, and GetFineTune of that id to answer the same job.
	FineTune *sdk.FineTuneRequest
	// Failures are text generations that must fail with the given error
	// after the round trip through gRPC.
	Failures []TextFailure
}

// TextFailure is a text generation that must fail.
type TextFailure struct {
	// Name is a sentence naming the case, used as the subtest name.
	Name    string
	Request sdk.TextRequest
	// Want is compared on Code, Retryable, StatusCode and RetryAfter.
	Want sdk.Error
}

// TestProvider serves p in-process through gRPC and runs [CheckProvider]
// against the client.
func TestProvider(t *testing.T, p sdk.Provider, c ProviderChecks) {
	t.Helper()
	CheckProvider(t, InProcessProvider(t, p), c)
}

// CheckProvider runs the provider conformance checks against p, which is
// normally a client from [InProcessProvider] or [Process.Provider].
func CheckProvider(t *testing.T, p sdk.Provider, c ProviderChecks) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)

	info, err := p.Info(ctx)
	if err != nil {
		t.Fatalf("Info: %v", err)
	}
	t.Run("Info names the provider and models with capabilities", func(t *testing.T) {
		if !namePattern.MatchString(info.Name) {
			t.Errorf("Name = %q, want a lowercase identifier", info.Name)
		}
		if info.DisplayName == "" {
			t.Error("DisplayName is empty")
		}
		if len(info.Models) == 0 {
			t.Error("no models")
		}
		for _, m := range info.Models {
			if m.ID == "" || len(m.Capabilities) == 0 {
				t.Errorf("model %+v has no id or no capabilities", m)
			}
		}
	})

	if c.Text != nil {
		t.Run("GenerateText returns text", func(t *testing.T) {
			resp, err := p.GenerateText(ctx, *c.Text)
			if err != nil {
				t.Fatalf("GenerateText: %v", err)
			}
			if resp.Text == "" {
				t.Error("GenerateText returned no text")
			}
		})
	}

	if c.Chat != nil {
		t.Run("Chat streams events and ends with exactly one finish event", func(t *testing.T) {
			var events []sdk.ChatEvent
			err := p.Chat(ctx, *c.Chat, sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
				events = append(events, ev)
				return nil
			}))
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if len(events) == 0 || events[len(events)-1].Finish == nil {
				t.Fatalf("last event is not a finish event: %+v", events)
			}
			toolCalls := 0
			for i, ev := range events {
				if ev.Finish != nil && i != len(events)-1 {
					t.Errorf("finish event at %d of %d", i, len(events))
				}
				if tc := ev.ToolCall; tc != nil {
					toolCalls++
					if tc.ID == "" || tc.Name == "" || !json.Valid([]byte(tc.Arguments)) {
						t.Errorf("tool call %+v lacks an id or name, or its arguments are not JSON", *tc)
					}
				}
			}
			if c.WantToolCall && toolCalls == 0 {
				t.Error("no tool call in the reply")
			}
		})
	}

	if c.Image != nil {
		t.Run("GenerateImage returns image bytes with an image MIME type", func(t *testing.T) {
			gen, ok := p.(sdk.ImageGenerator)
			if !ok {
				t.Fatal("provider does not implement sdk.ImageGenerator")
			}
			resp, err := gen.GenerateImage(ctx, *c.Image)
			if err != nil {
				t.Fatalf("GenerateImage: %v", err)
			}
			if len(resp.Data) == 0 || !strings.HasPrefix(resp.MIMEType, "image/") {
				t.Errorf("GenerateImage returned %d bytes of %q", len(resp.Data), resp.MIMEType)
			}
		})
	}

	if c.FineTune != nil {
		t.Run("StartFineTune starts a job that GetFineTune answers", func(t *testing.T) {
			ft, ok := p.(sdk.FineTuner)
			if !ok {
				t.Fatal("provider does not implement sdk.FineTuner")
			}
			job, err := ft.StartFineTune(ctx, *c.FineTune)
			if err != nil {
				t.Fatalf("StartFineTune: %v", err)
			}
			if job.ID == "" || !knownFineTuneStatus(job.Status) {
				t.Fatalf("StartFineTune = %+v, want an id and a known status", job)
			}
			got, err := ft.GetFineTune(ctx, job.ID)
			if err != nil {
				t.Fatalf("GetFineTune: %v", err)
			}
			if got.ID != job.ID || !knownFineTuneStatus(got.Status) {
				t.Errorf("GetFineTune(%q) = %+v", job.ID, got)
			}
		})
	}

	for _, f := range c.Failures {
		t.Run(f.Name, func(t *testing.T) {
			_, err := p.GenerateText(ctx, f.Request)
			checkError(t, err, f.Want)
		})
	}
}

func knownFineTuneStatus(s string) bool {
	switch s {
	case sdk.FineTuneValidatingFiles, sdk.FineTuneQueued, sdk.FineTuneRunning, sdk.FineTuneSucceeded, sdk.FineTuneFailed, sdk.FineTuneCancelled:
		return true
	}
	return false
}
