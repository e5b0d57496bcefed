package sdk

// This file adapts the author-facing interfaces to the generated gRPC
// servers. Authors never see it.

import (
	"context"
	"sync"

	"github.com/heraldhq/herald/sdk/proto/pluginv1"
)

type providerServer struct {
	pluginv1.UnimplementedProviderServer
	impl Provider
}

func (s *providerServer) Info(ctx context.Context, _ *pluginv1.ProviderInfoRequest) (*pluginv1.ProviderInfoResponse, error) {
	info, err := s.impl.Info(ctx)
	if err != nil {
		return nil, errorToStatus(err)
	}
	return providerInfoToProto(info), nil
}

func (s *providerServer) Configure(ctx context.Context, req *pluginv1.ProviderConfigureRequest) (*pluginv1.ProviderConfigureResponse, error) {
	if err := configure(ctx, s.impl, req.GetSettings()); err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.ProviderConfigureResponse{}, nil
}

func (s *providerServer) GenerateText(ctx context.Context, req *pluginv1.GenerateTextRequest) (*pluginv1.GenerateTextResponse, error) {
	resp, err := s.impl.GenerateText(ctx, textRequestFromProto(req))
	if err != nil {
		return nil, errorToStatus(err)
	}
	return textResponseToProto(resp), nil
}

func (s *providerServer) Chat(req *pluginv1.ChatRequest, stream pluginv1.Provider_ChatServer) error {
	ctx := stream.Context()
	var (
		mu       sync.Mutex
		finished bool
	)
	send := ChatStreamFunc(func(ev ChatEvent) error {
		mu.Lock()
		defer mu.Unlock()
		if finished {
			return Errorf(CodeInternal, "chat event sent after the finish event")
		}
		if ev.Finish != nil {
			finished = true
		}
		return stream.Send(chatEventToProto(ev))
	})
	if err := s.impl.Chat(ctx, chatRequestFromProto(req), send); err != nil {
		return errorToStatus(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !finished {
		finished = true
		return errorToStatus(stream.Send(chatEventToProto(ChatEvent{Finish: &ChatFinish{FinishReason: "stop", Model: req.GetModel()}})))
	}
	return nil
}

func (s *providerServer) GenerateImage(ctx context.Context, req *pluginv1.GenerateImageRequest) (*pluginv1.GenerateImageResponse, error) {
	gen, ok := s.impl.(ImageGenerator)
	if !ok {
		return nil, errorToStatus(Errorf(CodeUnimplemented, "this provider does not generate images"))
	}
	resp, err := gen.GenerateImage(ctx, imageRequestFromProto(req))
	if err != nil {
		return nil, errorToStatus(err)
	}
	return imageResponseToProto(resp), nil
}

// configure calls Configure when impl implements Configurer; a plugin
// without settings accepts an empty map and refuses anything else, so that a
// misspelt operator setting is not silently ignored.
func configure(ctx context.Context, impl any, settings map[string]string) error {
	if c, ok := impl.(Configurer); ok {
		return c.Configure(ctx, nonNilMap(settings))
	}
	if len(settings) > 0 {
		return Errorf(CodeInvalidArgument, "this plugin takes no settings (it does not implement sdk.Configurer)")
	}
	return nil
}

type destinationServer struct {
	pluginv1.UnimplementedDestinationServer
	impl Destination
}

func (s *destinationServer) Info(ctx context.Context, _ *pluginv1.DestinationInfoRequest) (*pluginv1.DestinationInfoResponse, error) {
	info, err := s.impl.Info(ctx)
	if err != nil {
		return nil, errorToStatus(err)
	}
	_, info.CanDelete = s.impl.(Deleter)
	return destinationInfoToProto(info), nil
}

func (s *destinationServer) Configure(ctx context.Context, req *pluginv1.DestinationConfigureRequest) (*pluginv1.DestinationConfigureResponse, error) {
	if err := configure(ctx, s.impl, req.GetSettings()); err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.DestinationConfigureResponse{}, nil
}

func (s *destinationServer) Validate(ctx context.Context, req *pluginv1.ValidateRequest) (*pluginv1.ValidateResponse, error) {
	problems, err := s.impl.Validate(ctx, ValidateRequest{Content: contentFromProto(req.GetContentToExport()), Credentials: nonNilMap(req.GetCredentials())})
	if err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.ValidateResponse{Problems: problemsToProto(problems)}, nil
}

func (s *destinationServer) Export(ctx context.Context, req *pluginv1.ExportRequest) (*pluginv1.ExportResponse, error) {
	res, err := s.impl.Export(ctx, exportRequestFromProto(req))
	if err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.ExportResponse{ExternalId: res.ExternalID, ExternalUrl: res.ExternalURL}, nil
}

func (s *destinationServer) Delete(ctx context.Context, req *pluginv1.DeleteRequest) (*pluginv1.DeleteResponse, error) {
	d, ok := s.impl.(Deleter)
	if !ok {
		return nil, errorToStatus(Errorf(CodeUnimplemented, "this destination cannot delete exported content"))
	}
	err := d.Delete(ctx, DeleteRequest{ExternalID: req.GetExternalId(), Credentials: nonNilMap(req.GetCredentials()), Content: contentFromProto(req.GetContentToExport())})
	if err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.DeleteResponse{}, nil
}

func (s *destinationServer) CheckConnection(ctx context.Context, req *pluginv1.CheckConnectionRequest) (*pluginv1.CheckConnectionResponse, error) {
	c, ok := s.impl.(ConnectionChecker)
	if !ok {
		return nil, errorToStatus(Errorf(CodeUnimplemented, "this destination cannot check a connection"))
	}
	res, err := c.CheckConnection(ctx, CheckConnectionRequest{Credentials: nonNilMap(req.GetCredentials())})
	if err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.CheckConnectionResponse{Account: res.Account}, nil
}
