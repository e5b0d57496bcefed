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

// Connect carries the code beside the message; a message that repeats it
// reads "unauthenticated: unauthenticated: ..." in every client.
func TestConnectMessagesDoNotRepeatTheCode(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	c := apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.url, connect.WithProtoJSON())
	_, err := c.ListBrandVoices(context.Background(), connect.NewRequest(&apiv1.ListBrandVoicesRequest{}))
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeUnauthenticated {
		t.Fatalf("no key: %v, want unauthenticated", err)
	}
	if msg := ce.Message(); strings.HasPrefix(msg, "unauthenticated") || !strings.Contains(msg, "api-key") {
		t.Fatalf("message %q: want the reason without the code", msg)
	}
	_, err = c.ListBrandVoices(context.Background(), withKey(&apiv1.ListBrandVoicesRequest{}, "hk_wrong"))
	if !errors.As(err, &ce) || ce.Message() != "invalid API key" {
		t.Fatalf("bad key: %v, want message %q", err, "invalid API key")
	}
}
