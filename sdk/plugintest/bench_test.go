package plugintest_test

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// BenchmarkDestinationInfoSubprocess measures one bare go-plugin gRPC round
// trip (Destination.Info) to a real plugin subprocess, with AutoMTLS, as the
// host makes it. The host's plugin manager compares its overhead to this.
func BenchmarkDestinationInfoSubprocess(b *testing.B) {
	dest := plugintest.Start(b, plugintest.Build(b, "github.com/heraldhq/herald/sdk/examples/slackdest")).Destination(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := dest.Info(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDestinationValidateSubprocess measures Validate, which carries a
// google.protobuf.Struct payload and a credentials map each way.
func BenchmarkDestinationValidateSubprocess(b *testing.B) {
	dest := plugintest.Start(b, plugintest.Build(b, "github.com/heraldhq/herald/sdk/examples/slackdest")).Destination(b)
	ctx := context.Background()
	req := sdk.ValidateRequest{
		Content:     sdk.Content{"title": "Launch", "text": "We shipped the thing.", "slug": "launch"},
		Credentials: map[string]string{"webhook_url": "https://hooks.slack.com/services/T/B/X"},
	}
	for b.Loop() {
		if _, err := dest.Validate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

type infoOnly struct{}

func (infoOnly) Info(context.Context) (sdk.DestinationInfo, error) {
	return sdk.DestinationInfo{Name: "bench", DisplayName: "Bench"}, nil
}
func (infoOnly) Validate(context.Context, sdk.ValidateRequest) ([]sdk.Problem, error) {
	return nil, nil
}
func (infoOnly) Export(context.Context, sdk.ExportRequest) (sdk.ExportResult, error) {
	return sdk.ExportResult{}, nil
}

// BenchmarkDestinationInfoInProcess measures the same call over go-plugin's
// in-process gRPC connection (a local socket, no TLS), isolating the
// conversion and gRPC cost from process and TLS overhead.
func BenchmarkDestinationInfoInProcess(b *testing.B) {
	dest := plugintest.InProcessDestination(b, infoOnly{})
	ctx := context.Background()
	for b.Loop() {
		if _, err := dest.Info(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
