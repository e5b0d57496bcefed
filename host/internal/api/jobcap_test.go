package api_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
	"github.com/heraldhq/herald/sdk"
)

// oneModel serves the model "m"; these tests only queue jobs.
type oneModel struct{}

func (oneModel) Models() []string { return []string{"m"} }
func (oneModel) GenerateText(context.Context, string, sdk.TextRequest) (sdk.TextResponse, error) {
	return sdk.TextResponse{}, errors.New("not used")
}
func (oneModel) GenerateImage(context.Context, string, sdk.ImageRequest) (sdk.ImageResponse, error) {
	return sdk.ImageResponse{}, errors.New("not used")
}

func TestEnqueueOverTheWorkspaceCapIs429WithRetryAfter(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	key, err := auth.CreateKey(context.Background(), s, "acme", "business", "alice@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	// A queue that is not started keeps every job waiting.
	q, err := jobs.New(jobs.Options{Store: s, Caps: jobstore.JobCaps{ByPlan: map[string]jobstore.JobCap{"business": {Queued: 1}}}, CapRetryAfter: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewFS(t.TempDir(), "http://blobs.test")
	if err != nil {
		t.Fatal(err)
	}
	gen, err := generate.New(generate.Deps{Models: oneModel{}, Queue: q, Store: s, Quota: quota.New(s, config.Limits{}).Follow(plans.New(nil)), Blobs: blobs})
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Start(t, api.Deps{Store: s, Blobs: blobs, Generate: generate.NewHandler(gen)})
	body := `{"model":"m","text":"hi","useWorker":true}`
	srv.Do(t, "POST", "/v1/ai/generate/text", key, body).WantMessage(t, http.StatusAccepted)
	res := srv.Do(t, "POST", "/v1/ai/generate/text", key, body).WantMessage(t, http.StatusTooManyRequests)
	if got := res.Header.Get("Retry-After"); got != "2" {
		t.Fatalf("Retry-After %q, want 2 (1.5 s rounded up)", got)
	}
	if msg := res.Body["message"].(string); !strings.Contains(msg, "too many queued jobs") {
		t.Fatalf("message %q", msg)
	}
	// The Connect face answers resource_exhausted with the same header.
	client := apiv1connect.NewGenerateServiceClient(http.DefaultClient, srv.URL)
	req := connect.NewRequest(&apiv1.GenerateTextRequest{Model: "m", Text: "hi", UseWorker: true})
	req.Header().Set("api-key", key)
	_, err = client.GenerateText(context.Background(), req)
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("Connect: %v, want resource_exhausted", err)
	}
	if ce.Code() != connect.CodeResourceExhausted || ce.Meta().Get("Retry-After") != "2" {
		t.Fatalf("Connect: %v (meta %v), want resource_exhausted with Retry-After 2", err, ce.Meta())
	}
}
