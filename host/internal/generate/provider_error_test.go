package generate_test

import (
	"context"
	"errors"
	"time"

	"github.com/heraldhq/herald/host/internal/testlog"

	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/sdk"
)

func TestProviderErrorTextNeverReachesTenants(t *testing.T) {
	t.Parallel()
	var logs testlog.Buffer
	const secret = "sk-proj-VERYSECRETKEY0123456789"
	svc, r := bare(t, generate.Deps{Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn}),
		Secrets: []string{secret, "hk_configured_token_42"}})
	for _, c := range []struct {
		name, detail string
		code         sdk.Code
	}{
		{"an OpenAI 401 quoting the masked key", "401 Incorrect API key provided: sk-RTSEN****7f3a", sdk.CodeInvalidArgument},
		{"a server echoing the whole key", "400 bad header Authorization: Bearer " + secret, sdk.CodeInvalidArgument},
		{"a connection error with host and port", "request failed: Post api.internal.corp:8443: dial tcp 10.2.3.4:8443: connection refused", sdk.CodeUnavailable},
		{"a configured token in a message", "upstream said hk_configured_token_42 is wrong", sdk.CodeUnconfigured},
	} {
		r.textErrs = []error{&sdk.Error{Code: c.code, Message: c.detail}}
		ctx := apierr.WithRequestID(context.Background(), "req-"+strings.ReplaceAll(c.name, " ", "-"))
		_, _, err := svc.GenerateText(ctx, auth.Principal{WorkspaceID: "w"}, generate.TextInput{Model: "gpt-4o", Text: "x"})
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		msg := err.Error()
		for _, leak := range []string{"sk-", "Bearer", "api.internal.corp", "8443", "10.2.3.4", "hk_configured", "Incorrect API key"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: the tenant sees %q in %q", c.name, leak, msg)
			}
		}
		if !strings.Contains(msg, "request id req-") {
			t.Errorf("%s: message %q has no request id", c.name, msg)
		}
	}
	log := logs.String()
	if !strings.Contains(log, "Incorrect API key provided") || !strings.Contains(log, "api.internal.corp:8443") || !strings.Contains(log, "request_id=req-") {
		t.Errorf("the operator's log lacks the detail:\n%s", log)
	}
	for _, secretPart := range []string{"VERYSECRETKEY", "RTSEN", "hk_configured_token_42"} {
		if strings.Contains(log, secretPart) {
			t.Errorf("the log carries %q:\n%s", secretPart, log)
		}
	}
}

func TestRateLimitAfterRetriesSendsRetryAfter(t *testing.T) {
	t.Parallel()
	svc, r := bare(t, generate.Deps{})
	for _, c := range []struct {
		after time.Duration
		want  string
	}{{7500 * time.Millisecond, "8"}, {0, "10"}} {
		r.textErrs = []error{&sdk.Error{Code: sdk.CodeRateLimited, Message: "429", Retryable: true, StatusCode: 429, RetryAfter: c.after}}
		_, _, err := svc.GenerateText(context.Background(), auth.Principal{WorkspaceID: "w"}, generate.TextInput{Model: "gpt-4o", Text: "x"})
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
			t.Fatalf("provider 429: got %v, want resource exhausted (429)", err)
		}
		if got := ce.Meta().Get("Retry-After"); got != c.want {
			t.Fatalf("provider Retry-After %s: header %q, want %q", c.after, got, c.want)
		}
	}
}

func TestAPluginsOptionRefusalNamesTheOption(t *testing.T) {
	t.Parallel()
	svc, r := bare(t, generate.Deps{})
	msg := "openai: unknown options: topP (supported: frequency_penalty, top_p)"
	r.textErrs = []error{&sdk.Error{Code: sdk.CodeInvalidArgument, Message: msg}}
	_, _, err := svc.GenerateText(context.Background(), auth.Principal{WorkspaceID: "w"}, generate.TextInput{Model: "gpt-4o", Text: "x"})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || ce.Message() != msg {
		t.Fatalf("got %v, want 400 %q", err, msg)
	}
}
