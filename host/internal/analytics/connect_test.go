package analytics_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// TestConnectFace: the same service over Connect, with the key in the
// api-key header; the callback procedure needs no key, the others do.
func TestConnectFace(t *testing.T) {
	b := setup(t, storetest.SQLite(t))
	ctx := context.Background()
	c := apiv1connect.NewAnalyticsServiceClient(http.DefaultClient, b.srv.URL)
	withKey := func(m any, key string) {
		if r, ok := m.(interface{ Header() http.Header }); ok && key != "" {
			r.Header().Set("api-key", key)
		}
	}
	start := connect.NewRequest(&apiv1.ConnectGoogleRequest{RedirectUri: redirect})
	withKey(start, b.key)
	st, err := c.ConnectGoogle(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	back, err := b.google.Authorize(st.Msg.AuthorizationUrl)
	if err != nil {
		t.Fatal(err)
	}
	fin, err := c.FinishGoogleConnect(ctx, connect.NewRequest(&apiv1.FinishGoogleConnectRequest{Code: back.Get("code"), State: back.Get("state")}))
	if err != nil || !fin.Msg.Connected {
		t.Fatalf("finish without a key: %v %v", fin, err)
	}
	_, err = c.GetGoogleConnection(ctx, connect.NewRequest(&apiv1.GetGoogleConnectionRequest{}))
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeUnauthenticated {
		t.Errorf("GetGoogleConnection without a key: %v", err)
	}
	get := connect.NewRequest(&apiv1.GetGoogleConnectionRequest{})
	withKey(get, b.key)
	conn, err := c.GetGoogleConnection(ctx, get)
	if err != nil || !conn.Msg.Connected || conn.Msg.Method != "oauth" {
		t.Fatalf("GetGoogleConnection: %v %v", conn, err)
	}
}
