package sdk

import (
	"context"
	"errors"
	"io"

	"github.com/heraldhq/herald/sdk/proto/pluginv1"
	"google.golang.org/grpc"
)

// ProviderClient is the host's handle on a provider plugin. It implements
// [Provider], [ImageGenerator], [FineTuner] and [Configurer] by calling the plugin over
// gRPC; when the plugin lacks an optional capability the call returns an
// [*Error] with [CodeUnimplemented]. Errors are always [*Error] (or wrap
// one), rebuilt from what the plugin sent.
type ProviderClient struct {
	rpc pluginv1.ProviderClient
}

// NewProviderClient returns a ProviderClient over an established connection.
// Hosts normally get one from go-plugin by dispensing [ProviderPluginName].
func NewProviderClient(conn grpc.ClientConnInterface) *ProviderClient {
	return &ProviderClient{rpc: pluginv1.NewProviderClient(conn)}
}

// Info asks the plugin to describe itself.
func (c *ProviderClient) Info(ctx context.Context) (ProviderInfo, error) {
	resp, err := c.rpc.Info(ctx, &pluginv1.ProviderInfoRequest{})
	if err != nil {
		return ProviderInfo{}, errorFromStatus(ctx, "provider info", err)
	}
	return providerInfoFromProto(resp), nil
}

// Configure sends operator settings to the plugin.
func (c *ProviderClient) Configure(ctx context.Context, settings map[string]string) error {
	_, err := c.rpc.Configure(ctx, &pluginv1.ProviderConfigureRequest{Settings: settings})
	return errorFromStatus(ctx, "provider configure", err)
}

// GenerateText asks the plugin for one completion.
func (c *ProviderClient) GenerateText(ctx context.Context, req TextRequest) (TextResponse, error) {
	preq, err := textRequestToProto(req)
	if err != nil {
		return TextResponse{}, err
	}
	resp, err := c.rpc.GenerateText(ctx, preq)
	if err != nil {
		return TextResponse{}, errorFromStatus(ctx, "generate text", err)
	}
	return textResponseFromProto(resp), nil
}

// Chat streams one assistant turn from the plugin into stream. It returns
// after the finish event; a stream that ends without one is an error.
// An error returned by stream.Send cancels the call and is returned as is.
func (c *ProviderClient) Chat(ctx context.Context, req ChatRequest, stream ChatStream) error {
	preq, err := chatRequestToProto(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recv, err := c.rpc.Chat(ctx, preq)
	if err != nil {
		return errorFromStatus(ctx, "chat", err)
	}
	finished := false
	for {
		msg, err := recv.Recv()
		if errors.Is(err, io.EOF) {
			if !finished {
				return Errorf(CodeInternal, "chat: plugin ended the stream without a finish event")
			}
			return nil
		}
		if err != nil {
			return errorFromStatus(ctx, "chat", err)
		}
		ev := chatEventFromProto(msg)
		if ev.Finish != nil {
			finished = true
		}
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
}

// GenerateImage asks the plugin for one image.
func (c *ProviderClient) GenerateImage(ctx context.Context, req ImageRequest) (ImageResponse, error) {
	preq, err := imageRequestToProto(req)
	if err != nil {
		return ImageResponse{}, err
	}
	resp, err := c.rpc.GenerateImage(ctx, preq)
	if err != nil {
		return ImageResponse{}, errorFromStatus(ctx, "generate image", err)
	}
	return imageResponseFromProto(resp), nil
}

// DestinationClient is the host's handle on a destination plugin. It
// implements [Destination], [Deleter], [ConnectionChecker] and [Configurer]
// by calling the plugin over gRPC; Delete and CheckConnection return
// [CodeUnimplemented] when the plugin lacks them (see
// [DestinationInfo].CanDelete).
type DestinationClient struct {
	rpc pluginv1.DestinationClient
}

// NewDestinationClient returns a DestinationClient over an established
// connection. Hosts normally get one from go-plugin by dispensing
// [DestinationPluginName].
func NewDestinationClient(conn grpc.ClientConnInterface) *DestinationClient {
	return &DestinationClient{rpc: pluginv1.NewDestinationClient(conn)}
}

// Info asks the plugin to describe itself.
func (c *DestinationClient) Info(ctx context.Context) (DestinationInfo, error) {
	resp, err := c.rpc.Info(ctx, &pluginv1.DestinationInfoRequest{})
	if err != nil {
		return DestinationInfo{}, errorFromStatus(ctx, "destination info", err)
	}
	return destinationInfoFromProto(resp), nil
}

// Configure sends operator settings to the plugin.
func (c *DestinationClient) Configure(ctx context.Context, settings map[string]string) error {
	_, err := c.rpc.Configure(ctx, &pluginv1.DestinationConfigureRequest{Settings: settings})
	return errorFromStatus(ctx, "destination configure", err)
}

// Validate asks the plugin to check a payload.
func (c *DestinationClient) Validate(ctx context.Context, req ValidateRequest) ([]Problem, error) {
	content, err := structToProto(req.Content)
	if err != nil {
		return nil, err
	}
	resp, err := c.rpc.Validate(ctx, &pluginv1.ValidateRequest{ContentToExport: content, Credentials: req.Credentials})
	if err != nil {
		return nil, errorFromStatus(ctx, "validate", err)
	}
	return problemsFromProto(resp.GetProblems()), nil
}

// Export asks the plugin to publish one schedule.
func (c *DestinationClient) Export(ctx context.Context, req ExportRequest) (ExportResult, error) {
	preq, err := exportRequestToProto(req)
	if err != nil {
		return ExportResult{}, err
	}
	resp, err := c.rpc.Export(ctx, preq)
	if err != nil {
		return ExportResult{}, errorFromStatus(ctx, "export", err)
	}
	return ExportResult{ExternalID: resp.GetExternalId(), ExternalURL: resp.GetExternalUrl()}, nil
}

// Delete asks the plugin to remove an exported item.
func (c *DestinationClient) Delete(ctx context.Context, req DeleteRequest) error {
	content, err := structToProto(req.Content)
	if err != nil {
		return err
	}
	_, err = c.rpc.Delete(ctx, &pluginv1.DeleteRequest{ExternalId: req.ExternalID, Credentials: req.Credentials, ContentToExport: content})
	return errorFromStatus(ctx, "delete", err)
}

// CheckConnection asks the plugin to verify credentials with the remote. It
// returns a [CodeUnimplemented] *Error when the plugin cannot check.
func (c *DestinationClient) CheckConnection(ctx context.Context, req CheckConnectionRequest) (CheckConnectionResult, error) {
	resp, err := c.rpc.CheckConnection(ctx, &pluginv1.CheckConnectionRequest{Credentials: req.Credentials})
	if err != nil {
		return CheckConnectionResult{}, errorFromStatus(ctx, "check connection", err)
	}
	return CheckConnectionResult{Account: resp.GetAccount()}, nil
}

// Interface guards.
var (
	_ Provider          = (*ProviderClient)(nil)
	_ ImageGenerator    = (*ProviderClient)(nil)
	_ Configurer        = (*ProviderClient)(nil)
	_ Destination       = (*DestinationClient)(nil)
	_ Deleter           = (*DestinationClient)(nil)
	_ ConnectionChecker = (*DestinationClient)(nil)
	_ Configurer        = (*DestinationClient)(nil)
)
