package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/voice"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// The Connect, gRPC and gRPC-Web faces refuse bodies over max_body_bytes
// as REST does (64 KiB in setup): a 70 KiB voice, valid otherwise (content
// may hold 200,000 characters), is refused with ResourceExhausted.
func TestConnectFacesRefuseBodiesOverTheLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	big := strings.Repeat("a", 70<<10)
	for name, c := range map[string]apiv1connect.BrandVoiceServiceClient{
		"connect with protobuf": apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.URL),
		"connect with JSON":     apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.URL, connect.WithProtoJSON()),
		"grpc over h2c":         apiv1connect.NewBrandVoiceServiceClient(h2cClient(), b.URL, connect.WithGRPC()),
		"grpc-web":              apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.URL, connect.WithGRPCWeb()),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := c.CreateBrandVoiceFromText(context.Background(), withKey(&apiv1.CreateBrandVoiceFromTextRequest{Content: big, Name: "big"}, b.alice))
			if connect.CodeOf(err) != connect.CodeResourceExhausted {
				t.Fatalf("a 70 KiB request under a 64 KiB limit: %v, want resource_exhausted", err)
			}
			small, err := c.CreateBrandVoiceFromText(context.Background(), withKey(&apiv1.CreateBrandVoiceFromTextRequest{Content: big[:60<<10], Name: "small"}, b.alice))
			if err != nil || small.Msg.Data.ContentLength != 60<<10 {
				t.Fatalf("a 60 KiB request: %v, %v", small, err)
			}
		})
	}
}

// Without a configured limit the API applies the documented default, 1 MiB,
// on every face.
func TestTheDefaultBodyLimitIsOneMebibyte(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	key, err := auth.CreateKey(context.Background(), s, "acme", "business", "alice@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Start(t, api.Deps{Store: s, Voices: voiceAPI(t, voice.Deps{Store: s})})
	post := func(n int) int {
		body := fmt.Sprintf(`{"content":%q}`, strings.Repeat("a", n))
		return srv.Do(t, "POST", "/v1/ai/generate/brand-voice/text", key, body).Status
	}
	// Both are over the 200,000-character content rule: under the body
	// limit that is a 400, over it a 413 before the body is read.
	if got := post(1<<20 - 100); got != http.StatusBadRequest {
		t.Fatalf("a body just under 1 MiB: %d, want 400 (content too long)", got)
	}
	if got := post(1 << 20); got != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body over 1 MiB: %d, want 413", got)
	}
	c := apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, srv.URL)
	_, err = c.CreateBrandVoiceFromText(context.Background(), withKey(&apiv1.CreateBrandVoiceFromTextRequest{Content: strings.Repeat("a", 1<<20)}, key))
	if connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("a Connect request over 1 MiB: %v, want resource_exhausted", err)
	}
}
