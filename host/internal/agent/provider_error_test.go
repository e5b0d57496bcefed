package agent_test

import (
	"context"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/sdk"
)

// failingModels answers every chat with err.
type failingModels struct{ err error }

func (failingModels) Models() []string { return []string{"gpt-4o"} }

func (f failingModels) Chat(context.Context, string, sdk.ChatRequest, sdk.ChatStream) error {
	return f.err
}

// TestProviderFailuresGetTheGenericMessageEveryRouteGives: the chat route
// says what is missing in operator terms, with the request id, and never
// the provider's text (which names its environment variable), as the text
// route does.
func TestProviderFailuresGetTheGenericMessageEveryRouteGives(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	ctx := apierr.WithRequestID(context.Background(), "req-123")
	ws, u, err := st.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	p := auth.Principal{WorkspaceID: ws.ID, UserID: u.ID, Plan: "business", WorkspaceName: "acme", Via: auth.ViaAPIKey}
	for _, tc := range []struct {
		err  *sdk.Error
		code connect.Code
		want string
	}{
		{&sdk.Error{Code: sdk.CodeUnconfigured, Message: "set OPENAI_API_KEY: the openai plugin has no API key"}, connect.CodeUnavailable,
			generate.UnconfiguredMessage + " (request id req-123)"},
		{&sdk.Error{Code: sdk.CodeInvalidArgument, Message: "OPENAI says: bad prompt sk-abcdef123456", StatusCode: 400}, connect.CodeInvalidArgument,
			"the provider rejected the request (request id req-123)"},
		{&sdk.Error{Code: sdk.CodeRateLimited, Message: "OPENAI: 429 slow down"}, connect.CodeResourceExhausted,
			"the provider is rate limiting; retry later (request id req-123)"},
		{&sdk.Error{Code: sdk.CodeUnavailable, Message: "OPENAI upstream 502 at 10.0.0.7:443"}, connect.CodeUnavailable,
			"the provider failed; retry later (request id req-123)"},
	} {
		svc, err := agent.New(agent.Deps{Store: st, Quota: quota.New(st, config.Limits{}).Follow(plans.New(nil)), Models: failingModels{tc.err}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = svc.Send(ctx, p, agent.Message{Model: "gpt-4o", Text: "hello"}, nil)
		var ce *connect.Error
		if !asConnect(err, &ce) || ce.Code() != tc.code || ce.Message() != tc.want {
			t.Errorf("%s: %v, want %v %q", tc.err.Code, err, tc.code, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "OPENAI") || apierr.Fields(ce)["requestId"] != "req-123" {
			t.Errorf("%s: %v leaks the provider's text or lacks the requestId field", tc.err.Code, err)
		}
	}
}

func asConnect(err error, target **connect.Error) bool {
	ce, ok := err.(*connect.Error)
	if ok {
		*target = ce
	}
	return ok
}
