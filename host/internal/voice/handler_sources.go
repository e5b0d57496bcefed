package voice

import (
	"context"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

func sourceResponse(v Voice) *connect.Response[apiv1.CreateBrandVoiceFromSourceResponse] {
	return connect.NewResponse(&apiv1.CreateBrandVoiceFromSourceResponse{Message: "Brand voice created",
		Outcome: &apiv1.CreateBrandVoiceFromSourceResponse_Data{Data: &apiv1.BrandVoiceSummary{
			Id: v.ID, Name: v.Name, Type: v.Type, Url: v.URL, ContentLength: int32(v.ContentLength)}}})
}

func queuedResponse(id string) *connect.Response[apiv1.CreateBrandVoiceFromSourceResponse] {
	return connect.NewResponse(&apiv1.CreateBrandVoiceFromSourceResponse{Message: apiconv.JobQueued(id),
		Outcome: &apiv1.CreateBrandVoiceFromSourceResponse_JobId{JobId: id}})
}

// CreateBrandVoiceFromWebsite builds a voice from a website.
func (h *Handler) CreateBrandVoiceFromWebsite(ctx context.Context, req *connect.Request[apiv1.CreateBrandVoiceFromWebsiteRequest]) (*connect.Response[apiv1.CreateBrandVoiceFromSourceResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	in := NewWebsite{URL: m.Websiteurl, Name: m.Name, FetchInterval: m.FetchInterval, Scope: m.Scope}
	if m.UseWorker {
		id, err := h.svc.QueueWebsite(ctx, p, in)
		if err != nil {
			return nil, err
		}
		return queuedResponse(id), nil
	}
	v, err := h.svc.CreateFromWebsite(ctx, p, in)
	if err != nil {
		return nil, err
	}
	return sourceResponse(v), nil
}

// CreateBrandVoiceFromFile builds a voice from a .md, .txt, .html or .json file.
func (h *Handler) CreateBrandVoiceFromFile(ctx context.Context, req *connect.Request[apiv1.CreateBrandVoiceFromFileRequest]) (*connect.Response[apiv1.CreateBrandVoiceFromSourceResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	in := NewFile{URL: m.File, Name: m.Name, Scope: m.Scope}
	if m.UseWorker {
		id, err := h.svc.QueueFile(ctx, p, in)
		if err != nil {
			return nil, err
		}
		return queuedResponse(id), nil
	}
	v, err := h.svc.CreateFromFile(ctx, p, in)
	if err != nil {
		return nil, err
	}
	return sourceResponse(v), nil
}

func lastFetch(f *Fetch) *apiv1.BrandVoiceFetch {
	if f == nil {
		return nil
	}
	out := &apiv1.BrandVoiceFetch{At: apiconv.Timestamp(f.At), Ok: f.OK}
	if f.Error != "" {
		out.Error = &f.Error
	}
	return out
}
