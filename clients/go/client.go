// Package heraldclient is Herald's Go client: the Connect clients
// generated from the protos (package apiv1connect), one per service,
// with the api-key header set on every call. Connect speaks HTTP/1.1 or
// HTTP/2 to the same port as the REST API; errors are *connect.Error
// values whose code says what went wrong (invalid_argument for a request
// that breaks a rule, with a message that begins with the field's JSON
// name; not_found for another workspace's resource).
//
// Import it as:
//
//	import heraldclient "github.com/heraldhq/herald/clients/go"
//
// The request messages are those of package apiv1
// (github.com/heraldhq/herald/proto/herald/api/v1); the rules each field
// must keep are in the OpenAPI document and docs/API.md.
package heraldclient

import (
	"context"
	"net/http"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Client holds one generated Connect client per Herald service.
type Client struct {
	BrandVoices  apiv1connect.BrandVoiceServiceClient
	Generate     apiv1connect.GenerateServiceClient
	Content      apiv1connect.ContentServiceClient
	Jobs         apiv1connect.JobServiceClient
	Scheduler    apiv1connect.SchedulerServiceClient
	Destinations apiv1connect.DestinationServiceClient
	Webhooks     apiv1connect.WebhookServiceClient
	Traffic      apiv1connect.AITrafficServiceClient
	Visibility   apiv1connect.VisibilityServiceClient
	Trackers     apiv1connect.TrackerServiceClient
	Chat         apiv1connect.ChatServiceClient
}

// New returns a client of the Herald at baseURL (such as
// http://127.0.0.1:8080) that sends apiKey (hk_...) on every call. A nil
// httpClient means http.DefaultClient; opts are passed to every generated
// client (connect.WithGRPC() to speak gRPC instead of Connect, for one).
func New(baseURL, apiKey string, httpClient connect.HTTPClient, opts ...connect.ClientOption) *Client {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	opts = append([]connect.ClientOption{connect.WithInterceptors(apiKeyInterceptor(apiKey))}, opts...)
	return &Client{
		BrandVoices:  apiv1connect.NewBrandVoiceServiceClient(httpClient, baseURL, opts...),
		Generate:     apiv1connect.NewGenerateServiceClient(httpClient, baseURL, opts...),
		Content:      apiv1connect.NewContentServiceClient(httpClient, baseURL, opts...),
		Jobs:         apiv1connect.NewJobServiceClient(httpClient, baseURL, opts...),
		Scheduler:    apiv1connect.NewSchedulerServiceClient(httpClient, baseURL, opts...),
		Destinations: apiv1connect.NewDestinationServiceClient(httpClient, baseURL, opts...),
		Webhooks:     apiv1connect.NewWebhookServiceClient(httpClient, baseURL, opts...),
		Traffic:      apiv1connect.NewAITrafficServiceClient(httpClient, baseURL, opts...),
		Visibility:   apiv1connect.NewVisibilityServiceClient(httpClient, baseURL, opts...),
		Trackers:     apiv1connect.NewTrackerServiceClient(httpClient, baseURL, opts...),
		Chat:         apiv1connect.NewChatServiceClient(httpClient, baseURL, opts...),
	}
}

// apiKeyInterceptor sets the api-key header of every unary and streaming call.
type apiKeyInterceptor string

func (k apiKeyInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if k != "" && req.Spec().IsClient {
			req.Header().Set("api-key", string(k))
		}
		return next(ctx, req)
	}
}

func (k apiKeyInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		if k != "" {
			conn.RequestHeader().Set("api-key", string(k))
		}
		return conn
	}
}

func (k apiKeyInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
