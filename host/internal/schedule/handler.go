package schedule

import (
	"context"
	"encoding/json"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/heraldhq/herald/host/internal/store"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves SchedulerService, DestinationService and WebhookService
// on both API faces.
type Handler struct {
	svc *Service
}

var (
	_ apiv1connect.SchedulerServiceHandler   = (*Handler)(nil)
	_ apiv1connect.DestinationServiceHandler = (*Handler)(nil)
	_ apiv1connect.WebhookServiceHandler     = (*Handler)(nil)
)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// CreateSchedule stores a post (POST /v1/scheduler/create).
func (h *Handler) CreateSchedule(ctx context.Context, req *connect.Request[apiv1.CreateScheduleRequest]) (*connect.Response[apiv1.CreateScheduleResponse], error) {
	m := req.Msg
	in := NewSchedule{
		ExportTo: m.ExportTo, Title: m.Title, Text: m.Text, Body: m.Content,
		WhenToExport: m.WhenToExport, Status: m.Status, WebhookID: m.WebhookId, Confirm: m.Confirm,
		Image: ImageInput{URL: m.ImageUrl, Base64: m.ImageBase64, FileName: m.ImageFileName, MIMEType: m.ImageMimeType, Alt: m.ImageAlt},
	}
	if m.ContentToExport != nil {
		in.Content = m.ContentToExport.AsMap()
	}
	if img := m.Image; img != nil {
		in.Image.Upload = &Upload{DownloadURL: img.DownloadUrl, FileID: img.FileId, MIMEType: img.MimeType, FileName: img.FileName}
	}
	sc, err := h.svc.Create(ctx, in)
	if err != nil {
		return nil, err
	}
	msg := "Post scheduled"
	if sc.Status == store.ScheduleDraft {
		msg = "Draft saved"
	}
	return connect.NewResponse(&apiv1.CreateScheduleResponse{Message: msg, Schedule: toProto(sc)}), nil
}

// ListSchedules pages through the workspace's schedules (GET /v1/scheduler).
func (h *Handler) ListSchedules(ctx context.Context, req *connect.Request[apiv1.ListSchedulesRequest]) (*connect.Response[apiv1.ListSchedulesResponse], error) {
	list, total, err := h.svc.List(ctx, int(req.Msg.Skip))
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
	sc, err := h.svc.Get(ctx, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.GetScheduleResponse{Message: "Schedule fetched", Schedule: toProto(sc)}), nil
}

// DeleteSchedule cancels a pending schedule or removes a draft (DELETE
// /v1/scheduler/{id}).
func (h *Handler) DeleteSchedule(ctx context.Context, req *connect.Request[apiv1.DeleteScheduleRequest]) (*connect.Response[apiv1.DeleteScheduleResponse], error) {
	result, err := h.svc.Delete(ctx, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	msg := "Schedule cancelled"
	if result != store.ScheduleCancelled {
		msg = "Schedule removed"
	}
	return connect.NewResponse(&apiv1.DeleteScheduleResponse{Message: msg, Id: req.Msg.Id, Status: result}), nil
}

// ListDestinations describes the configured destinations (GET /v1/destinations).
func (h *Handler) ListDestinations(ctx context.Context, _ *connect.Request[apiv1.ListDestinationsRequest]) (*connect.Response[apiv1.ListDestinationsResponse], error) {
	views, err := h.svc.ListDestinations(ctx)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListDestinationsResponse{Message: "Destinations fetched", Destinations: make([]*apiv1.Destination, 0, len(views))}
	for _, v := range views {
		out.Destinations = append(out.Destinations, destinationProto(v))
	}
	return connect.NewResponse(out), nil
}

// ConnectDestination stores credentials (PUT /v1/destinations/{name}/connection).
func (h *Handler) ConnectDestination(ctx context.Context, req *connect.Request[apiv1.ConnectDestinationRequest]) (*connect.Response[apiv1.ConnectDestinationResponse], error) {
	v, err := h.svc.Connect(ctx, req.Msg.Name, req.Msg.Credentials, req.Msg.Verify == nil || *req.Msg.Verify)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.ConnectDestinationResponse{Message: "Destination connected", Destination: destinationProto(v)}), nil
}

// DisconnectDestination deletes credentials (DELETE /v1/destinations/{name}/connection).
func (h *Handler) DisconnectDestination(ctx context.Context, req *connect.Request[apiv1.DisconnectDestinationRequest]) (*connect.Response[apiv1.DisconnectDestinationResponse], error) {
	if err := h.svc.Disconnect(ctx, req.Msg.Name); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.DisconnectDestinationResponse{Message: "Destination disconnected", Name: req.Msg.Name}), nil
}

// CreateWebhook saves an endpoint (POST /v1/webhooks); the secret is in
// this response only.
func (h *Handler) CreateWebhook(ctx context.Context, req *connect.Request[apiv1.CreateWebhookRequest]) (*connect.Response[apiv1.CreateWebhookResponse], error) {
	w, secret, err := h.svc.CreateWebhook(ctx, req.Msg.Url, req.Msg.Name)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CreateWebhookResponse{
		Message: "Webhook created; store the secret now, it is not shown again", Webhook: webhookProto(w), Secret: secret,
	}), nil
}

// ListWebhooks lists saved endpoints (GET /v1/webhooks).
func (h *Handler) ListWebhooks(ctx context.Context, _ *connect.Request[apiv1.ListWebhooksRequest]) (*connect.Response[apiv1.ListWebhooksResponse], error) {
	list, err := h.svc.ListWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListWebhooksResponse{Message: "Webhooks fetched", Webhooks: make([]*apiv1.Webhook, 0, len(list))}
	for _, w := range list {
		out.Webhooks = append(out.Webhooks, webhookProto(w))
	}
	return connect.NewResponse(out), nil
}

// DeleteWebhook deletes a saved endpoint (DELETE /v1/webhooks/{id}).
func (h *Handler) DeleteWebhook(ctx context.Context, req *connect.Request[apiv1.DeleteWebhookRequest]) (*connect.Response[apiv1.DeleteWebhookResponse], error) {
	if err := h.svc.DeleteWebhook(ctx, req.Msg.Id); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.DeleteWebhookResponse{Message: "Webhook deleted", Id: req.Msg.Id}), nil
}

func toProto(sc store.Schedule) *apiv1.Schedule {
	out := &apiv1.Schedule{
		Id: sc.ID, MongoId: sc.ID, ExportTo: sc.ExportTo, Status: sc.Status, WebhookId: sc.WebhookID,
		CreatedAt: ts(sc.CreatedAt), UpdatedAt: ts(sc.UpdatedAt), Attempts: int32(sc.Attempts),
		LastError: sc.LastError, ExternalId: sc.ExternalID, ExternalUrl: sc.ExternalURL,
	}
	if sc.WhenToExport != nil {
		out.WhenToExport = ts(*sc.WhenToExport)
	}
	if sc.PublishedAt != nil {
		out.PublishedAt = ts(*sc.PublishedAt)
	}
	var content map[string]any
	if json.Unmarshal([]byte(sc.Content), &content) == nil {
		if st, err := structpb.NewStruct(content); err == nil {
			out.ContentToExport = st
		}
	}
	if out.ContentToExport == nil {
		out.ContentToExport = &structpb.Struct{}
	}
	return out
}

func destinationProto(v DestinationView) *apiv1.Destination {
	d := &apiv1.Destination{
		Name: v.Info.Name, DisplayName: v.Info.DisplayName, RequiredKeys: v.Info.RequiredKeys, OptionalKeys: v.Info.OptionalKeys,
		CanDelete: v.Info.CanDelete, Connected: v.Connected, ConnectedFields: v.ConnectedFields, ConnectWith: v.ConnectWith,
	}
	if d.RequiredKeys == nil {
		d.RequiredKeys = []string{}
	}
	for _, f := range v.Info.Credentials {
		d.Credentials = append(d.Credentials, &apiv1.CredentialField{Name: f.Name, Label: f.Label, Secret: f.Secret, Required: f.Required, Description: f.Description})
	}
	if v.ConnectedAt != 0 {
		d.ConnectedAt = ts(v.ConnectedAt)
	}
	if v.Err != "" {
		d.Error = &v.Err
	}
	if v.Check.Result != "" {
		d.LastCheck = &apiv1.ConnectionCheck{Result: v.Check.Result, Message: v.Check.Message, Account: v.Check.Account}
		if v.Check.At != nil {
			d.LastCheck.CheckedAt = ts(*v.Check.At)
		}
	}
	return d
}

func webhookProto(w store.Webhook) *apiv1.Webhook {
	return &apiv1.Webhook{Id: w.ID, Name: w.Name, Url: w.DisplayURL, CreatedAt: ts(w.CreatedAt)}
}

func ts(ms int64) *timestamppb.Timestamp { return timestamppb.New(time.UnixMilli(ms)) }

// RetrySchedule puts a failed schedule back to pending (POST
// /v1/scheduler/{id}/retry).
func (h *Handler) RetrySchedule(ctx context.Context, req *connect.Request[apiv1.RetryScheduleRequest]) (*connect.Response[apiv1.RetryScheduleResponse], error) {
	sc, err := h.svc.Retry(ctx, req.Msg.Id, req.Msg.WhenToExport)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.RetryScheduleResponse{Message: "Schedule queued for another attempt", Schedule: toProto(sc)}), nil
}

// TestWebhook sends a signed test delivery (POST /v1/webhooks/{id}/test).
func (h *Handler) TestWebhook(ctx context.Context, req *connect.Request[apiv1.TestWebhookRequest]) (*connect.Response[apiv1.TestWebhookResponse], error) {
	delivery, err := h.svc.TestWebhook(ctx, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.TestWebhookResponse{Message: "Test delivery accepted by the webhook", WebhookId: req.Msg.Id, DeliveryId: delivery}), nil
}
