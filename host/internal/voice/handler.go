package voice

import (
	"context"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves BrandVoiceService on both API faces.
type Handler struct {
	svc *Service
}

var _ apiv1connect.BrandVoiceServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// CreateBrandVoiceFromText creates a voice from raw text.
func (h *Handler) CreateBrandVoiceFromText(ctx context.Context, req *connect.Request[apiv1.CreateBrandVoiceFromTextRequest]) (*connect.Response[apiv1.CreateBrandVoiceResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.svc.CreateFromText(ctx, p, NewText{Content: req.Msg.Content, Name: req.Msg.Name, Scope: req.Msg.Scope})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CreateBrandVoiceResponse{
		Message: "Brand voice created",
		Data:    &apiv1.BrandVoiceSummary{Id: v.ID, Name: v.Name, Type: v.Type, Url: v.URL, ContentLength: int32(v.ContentLength)},
	}), nil
}

// ListBrandVoices lists the caller's visible active voices, newest first.
func (h *Handler) ListBrandVoices(ctx context.Context, _ *connect.Request[apiv1.ListBrandVoicesRequest]) (*connect.Response[apiv1.ListBrandVoicesResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	voices, err := h.svc.List(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListBrandVoicesResponse{Message: "Brand voices fetched", Data: make([]*apiv1.BrandVoiceListItem, 0, len(voices))}
	for _, v := range voices {
		out.Data = append(out.Data, &apiv1.BrandVoiceListItem{
			Id: v.ID, Name: v.Name, Type: v.Type, Url: v.URL, ContentLength: int32(v.ContentLength),
			CreatedAt: apiconv.Timestamp(v.CreatedAt), UpdatedAt: apiconv.Timestamp(v.UpdatedAt),
		})
	}
	return connect.NewResponse(out), nil
}

// GetBrandVoice returns one voice with its content.
func (h *Handler) GetBrandVoice(ctx context.Context, req *connect.Request[apiv1.GetBrandVoiceRequest]) (*connect.Response[apiv1.GetBrandVoiceResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.svc.Get(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.GetBrandVoiceResponse{Message: "Brand voice fetched", Data: full(v)}), nil
}

// UpdateBrandVoice applies a partial update.
func (h *Handler) UpdateBrandVoice(ctx context.Context, req *connect.Request[apiv1.UpdateBrandVoiceRequest]) (*connect.Response[apiv1.UpdateBrandVoiceResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	v, err := h.svc.Update(ctx, p, m.Id, Update{Name: m.Name, Content: m.Content, URL: m.Url, FetchInterval: m.FetchInterval})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.UpdateBrandVoiceResponse{Message: "Brand voice updated", Data: full(v)}), nil
}

// DeleteBrandVoice soft-deletes a voice.
func (h *Handler) DeleteBrandVoice(ctx context.Context, req *connect.Request[apiv1.DeleteBrandVoiceRequest]) (*connect.Response[apiv1.DeleteBrandVoiceResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.Delete(ctx, p, req.Msg.Id); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.DeleteBrandVoiceResponse{Message: "Brand voice deleted"}), nil
}

func full(v Voice) *apiv1.BrandVoice {
	return &apiv1.BrandVoice{
		Id: v.ID, Name: v.Name, Type: v.Type, Url: v.URL, Content: v.Content, FetchInterval: v.FetchInterval,
		CreatedAt: apiconv.Timestamp(v.CreatedAt), UpdatedAt: apiconv.Timestamp(v.UpdatedAt), LastFetch: lastFetch(v.LastFetch),
		IsActive: &v.IsActive,
	}
}
