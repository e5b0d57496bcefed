package schedule

import (
	"context"
	"encoding/json"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves SchedulerService on both API faces.
type Handler struct {
	svc *Service
}

var _ apiv1connect.SchedulerServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// CreateSchedule stores a post (POST /v1/scheduler/create).
func (h *Handler) CreateSchedule(ctx context.Context, req *connect.Request[apiv1.CreateScheduleRequest]) (*connect.Response[apiv1.CreateScheduleResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	if len(m.ExportToList) > 0 {
		return h.createForList(ctx, p, m)
	}
	in := NewSchedule{
		ExportTo: m.ExportTo, Title: m.Title, Text: m.Text, Body: m.Content,
		WhenToExport: m.WhenToExport, Status: m.Status, WebhookID: m.WebhookId, Confirm: m.Confirm,
		Image:   ImageInput{URL: m.ImageUrl, Base64: m.ImageBase64, FileName: m.ImageFileName, MIMEType: m.ImageMimeType, Alt: m.ImageAlt},
		Targets: Targets{TrackerID: m.GetTrackerId(), Prompts: m.TargetPrompts},
	}
	if m.ContentToExport != nil {
		in.Content = m.ContentToExport.AsMap()
	}
	if img := m.Image; img != nil {
		in.Image.Upload = &Upload{DownloadURL: img.DownloadUrl, FileID: img.FileId, MIMEType: img.MimeType, FileName: img.FileName}
	}
	sc, err := h.svc.Create(ctx, p, in)
	if err != nil {
		return nil, err
	}
	msg := "Post scheduled"
	if sc.Status == StatusDraft {
		msg = "Draft saved"
	}
	return connect.NewResponse(&apiv1.CreateScheduleResponse{Message: msg, Schedule: toProto(sc)}), nil
}

// ListSchedules pages through the workspace's schedules (GET /v1/scheduler).
func (h *Handler) ListSchedules(ctx context.Context, req *connect.Request[apiv1.ListSchedulesRequest]) (*connect.Response[apiv1.ListSchedulesResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := h.svc.List(ctx, p, int(req.Msg.Skip))
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListSchedulesResponse{Message: "Schedules fetched", Schedulers: make([]*apiv1.Schedule, 0, len(list)), Total: int64(total)}
	for _, sc := range list {
		out.Schedulers = append(out.Schedulers, toProto(sc))
	}
	return connect.NewResponse(out), nil
}

// GetSchedule returns one schedule (GET /v1/scheduler/{id}).
func (h *Handler) GetSchedule(ctx context.Context, req *connect.Request[apiv1.GetScheduleRequest]) (*connect.Response[apiv1.GetScheduleResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := h.svc.Get(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.GetScheduleResponse{Message: "Schedule fetched", Schedule: toProto(sc)}), nil
}

// DeleteSchedule cancels a pending schedule or removes a draft (DELETE
// /v1/scheduler/{id}).
func (h *Handler) DeleteSchedule(ctx context.Context, req *connect.Request[apiv1.DeleteScheduleRequest]) (*connect.Response[apiv1.DeleteScheduleResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	result, err := h.svc.Delete(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	msg := "Schedule cancelled"
	if result != Cancelled {
		msg = "Schedule removed"
	}
	return connect.NewResponse(&apiv1.DeleteScheduleResponse{Message: msg, Id: req.Msg.Id, Status: result}), nil
}

func toProto(sc Schedule) *apiv1.Schedule {
	out := &apiv1.Schedule{
		Id: sc.ID, MongoId: sc.ID, ExportTo: sc.ExportTo, Status: sc.Status.String(), WebhookId: sc.WebhookID,
		CreatedAt: apiconv.Timestamp(sc.CreatedAt), UpdatedAt: apiconv.Timestamp(sc.UpdatedAt), Attempts: int32(sc.Attempts),
		LastError: sc.LastError, ExternalId: sc.ExternalID, ExternalUrl: sc.ExternalURL, PostId: sc.PostID,
		TargetPrompts: sc.Targets.Prompts,
	}
	if sc.Targets.TrackerID != "" {
		out.TrackerId = &sc.Targets.TrackerID
	}
	if sc.WhenToExport != nil {
		out.WhenToExport = apiconv.Timestamp(*sc.WhenToExport)
	}
	if sc.PublishedAt != nil {
		out.PublishedAt = apiconv.Timestamp(*sc.PublishedAt)
	}
	var content map[string]any
	if json.Unmarshal([]byte(sc.Content), &content) == nil {
		if st, err := apiconv.Struct(content); err == nil {
			out.ContentToExport = st
		}
	}
	if out.ContentToExport == nil {
		out.ContentToExport = &structpb.Struct{}
	}
	return out
}

// RetrySchedule puts a failed schedule back to pending (POST
// /v1/scheduler/{id}/retry).
func (h *Handler) RetrySchedule(ctx context.Context, req *connect.Request[apiv1.RetryScheduleRequest]) (*connect.Response[apiv1.RetryScheduleResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := h.svc.Retry(ctx, p, req.Msg.Id, req.Msg.WhenToExport)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.RetryScheduleResponse{Message: "Schedule queued for another attempt", Schedule: toProto(sc)}), nil
}

// createForList is the create route with exportTo as a list: one post with
// the same contentToExport for each destination (webhookId, when given,
// names the saved webhook of the webhook destination).
func (h *Handler) createForList(ctx context.Context, p auth.Principal, m *apiv1.CreateScheduleRequest) (*connect.Response[apiv1.CreateScheduleResponse], error) {
	if m.ExportTo != "" && m.ExportTo != m.ExportToList[0] {
		return nil, apierr.Invalid("exportTo: give one destination or a list, not both")
	}
	in := NewPost{Title: m.Title, Text: m.Text, Body: m.Content, WhenToExport: m.WhenToExport, Status: m.Status, Confirm: m.Confirm,
		Image: ImageInput{URL: m.ImageUrl, Base64: m.ImageBase64, FileName: m.ImageFileName, MIMEType: m.ImageMimeType, Alt: m.ImageAlt}}
	if m.ContentToExport != nil {
		in.Content = m.ContentToExport.AsMap()
	}
	if img := m.Image; img != nil {
		in.Image.Upload = &Upload{DownloadURL: img.DownloadUrl, FileID: img.FileId, MIMEType: img.MimeType, FileName: img.FileName}
	}
	for _, name := range m.ExportToList {
		d := PostDestination{ExportTo: name}
		if name == WebhookDestination {
			d.WebhookID = m.WebhookId
		}
		in.Destinations = append(in.Destinations, d)
	}
	post, err := h.svc.CreatePost(ctx, p, in)
	if err != nil {
		return nil, err
	}
	msg := "Post scheduled"
	if post.Status == PostDraft {
		msg = "Draft saved"
	}
	return connect.NewResponse(&apiv1.CreateScheduleResponse{Message: msg, Schedule: toProto(post.Schedules[0]), Post: postToProto(post)}), nil
}
