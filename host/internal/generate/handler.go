package generate

import (
	"context"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves GenerateService on both API faces.
type Handler struct{ svc *Service }

var _ apiv1connect.GenerateServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// GenerateText runs a prompt inline, or queues it with useWorker.
func (h *Handler) GenerateText(ctx context.Context, req *connect.Request[apiv1.GenerateTextRequest]) (*connect.Response[apiv1.GenerateTextResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	in := TextInput{Model: m.Model, Text: m.Text, JobType: m.JobType, Options: m.Options.AsMap(), BrandVoiceID: m.BrandVoiceId}
	if m.UseWorker {
		id, err := h.svc.QueueText(ctx, p, in)
		if err != nil {
			return nil, err
		}
		return connect.NewResponse(&apiv1.GenerateTextResponse{Message: apiconv.JobQueued(id),
			Outcome: &apiv1.GenerateTextResponse_JobId{JobId: id}}), nil
	}
	// jobType without useWorker names no job: ignored (SPEC lists it as
	// the job name when queuing, nothing more).
	res, err := h.svc.GenerateInline(ctx, p, in)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.GenerateTextResponse{Message: "Text generated", Outcome: &apiv1.GenerateTextResponse_Data{
		Data: &apiv1.GeneratedText{GenerationId: res.GenerationID, Text: res.Text, Model: res.Model, FinishReason: res.FinishReason, Usage: &apiv1.Usage{
			InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens, TotalTokens: res.Usage.TotalTokens,
		}, BrandVoice: VoiceRefProto(res.Voice)},
	}}), nil
}

// GenerateImage generates, stores and returns a hosted image.
func (h *Handler) GenerateImage(ctx context.Context, req *connect.Request[apiv1.GenerateImageRequest]) (*connect.Response[apiv1.GenerateImageResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	img, err := h.svc.GenerateImage(ctx, p, ImageInput{Text: m.Text, Model: m.Model, Size: m.Size, Quality: m.Quality, Purpose: m.Purpose})
	if err != nil {
		return nil, err
	}
	data := &apiv1.GeneratedImage{Url: img.URL, Model: img.Model, Size: img.Size, Quality: img.Quality, Purpose: img.Purpose}
	return connect.NewResponse(&apiv1.GenerateImageResponse{Message: "Image generated", Data: data}), nil
}

// VoiceRefProto converts a voice reference; nil stays nil (JSON null).
func VoiceRefProto(v *VoiceRef) *apiv1.BrandVoiceRef {
	if v == nil {
		return nil
	}
	return &apiv1.BrandVoiceRef{Id: v.ID, Name: v.Name}
}
