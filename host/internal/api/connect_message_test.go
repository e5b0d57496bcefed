package api_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// codePrefix returns the code name a message starts with ("unauthenticated:
// ..."), or "". Connect carries the code beside the message and clients print
// "code: message", so a message that repeats it reads "unauthenticated:
// unauthenticated: ..."; REST's message is read on its own and must not
// carry it either.
func codePrefix(msg string) string {
	for c := connect.CodeCanceled; c <= connect.CodeUnauthenticated; c++ {
		if strings.HasPrefix(msg, c.String()+":") {
			return c.String()
		}
	}
	return ""
}

// Errors read the same on every face: the reason alone, without the code.
func TestErrorMessagesDoNotRepeatTheCode(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	cases := []struct {
		name, key string
		code      connect.Code
		want      string
		status    int
	}{
		{"no api-key", "", connect.CodeUnauthenticated, "missing api-key header", http.StatusUnauthorized},
		{"a wrong api-key", "hk_wrong", connect.CodeUnauthenticated, "invalid API key", http.StatusUnauthorized},
		{"a key without the hk_ prefix", "wrong", connect.CodeUnauthenticated, "invalid API key", http.StatusUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for name, opt := range map[string]connect.ClientOption{"Connect": connect.WithProtoJSON(), "gRPC": connect.WithGRPC()} {
				client := apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.URL, opt)
				req := connect.NewRequest(&apiv1.ListBrandVoicesRequest{})
				if c.key != "" {
					req.Header().Set("api-key", c.key)
				}
				_, err := client.ListBrandVoices(context.Background(), req)
				var ce *connect.Error
				if !errors.As(err, &ce) || ce.Code() != c.code {
					t.Fatalf("%s: %v, want %s", name, err, c.code)
				}
				if p := codePrefix(ce.Message()); p != "" || ce.Message() != c.want {
					t.Errorf("%s message %q, want %q without the code", name, ce.Message(), c.want)
				}
			}
			res := b.Do(t, "GET", "/v1/ai/brand-voice", c.key, "")
			if msg, _ := res.Body["message"].(string); res.Status != c.status || codePrefix(msg) != "" || msg != c.want {
				t.Errorf("REST: %d %q, want %d %q", res.Status, msg, c.status, c.want)
			}
		})
	}

	// An area's own refusal reads the same way.
	client := apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.URL)
	_, err := client.CreateBrandVoiceFromText(context.Background(), withKey(&apiv1.CreateBrandVoiceFromTextRequest{}, b.alice))
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || codePrefix(ce.Message()) != "" {
		t.Fatalf("Connect, empty content: %v, want invalid_argument without the code in the message", err)
	}
	res := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{}`)
	if msg, _ := res.Body["message"].(string); res.Status != http.StatusBadRequest || msg != ce.Message() {
		t.Fatalf("REST, empty content: %d %q, want 400 %q", res.Status, msg, ce.Message())
	}
}
