package events

import (
	"context"
	"encoding/json"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/events/catalog"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves EventService.
type Handler struct{ svc *Service }

// NewHandler returns the Connect handler of svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

func subscriptionProto(s Subscription) *apiv1.EventSubscription {
	out := &apiv1.EventSubscription{Id: s.ID, Url: s.DisplayURL, Events: s.Events, Format: s.Format, State: s.State,
		PausedReason: s.PausedReason, CreatedAt: apiconv.Timestamp(s.CreatedAt)}
	if s.FailingSince != nil {
		out.FailingSince = apiconv.Timestamp(*s.FailingSince)
	}
	return out
}

func deliveryProto(d Delivery) *apiv1.EventDelivery {
	out := &apiv1.EventDelivery{Id: d.ID, EventId: d.EventID, EventType: d.EventType, Status: d.Status, Attempts: int32(d.Attempts),
		Error: d.Error, CreatedAt: apiconv.Timestamp(d.CreatedAt)}
	if d.ResponseCode != nil {
		c := int32(*d.ResponseCode)
		out.ResponseCode = &c
	}
	if d.NextAttemptAt != nil {
		out.NextAttemptAt = apiconv.Timestamp(*d.NextAttemptAt)
	}
	if d.LastAttemptAt != nil {
		out.LastAttemptAt = apiconv.Timestamp(*d.LastAttemptAt)
	}
	return out
}

// CreateEventSubscription is POST /v1/events/subscriptions.
func (h *Handler) CreateEventSubscription(ctx context.Context, req *connect.Request[apiv1.CreateEventSubscriptionRequest]) (*connect.Response[apiv1.CreateEventSubscriptionResponse], error) {
	m := req.Msg
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	sub, secret, err := h.svc.Create(ctx, p, NewSubscription{URL: m.GetUrl(), Events: m.GetEvents(), Format: m.GetFormat()})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CreateEventSubscriptionResponse{Message: "Event subscription created", Subscription: subscriptionProto(sub), Secret: secret}), nil
}

// ListEventSubscriptions is GET /v1/events/subscriptions.
func (h *Handler) ListEventSubscriptions(ctx context.Context, _ *connect.Request[apiv1.ListEventSubscriptionsRequest]) (*connect.Response[apiv1.ListEventSubscriptionsResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	subs, err := h.svc.List(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListEventSubscriptionsResponse{Message: "Event subscriptions", Subscriptions: []*apiv1.EventSubscription{}, EventTypes: catalog.Types}
	for _, s := range subs {
		out.Subscriptions = append(out.Subscriptions, subscriptionProto(s))
	}
	return connect.NewResponse(out), nil
}

// GetEventSubscription is GET /v1/events/subscriptions/{id}.
func (h *Handler) GetEventSubscription(ctx context.Context, req *connect.Request[apiv1.GetEventSubscriptionRequest]) (*connect.Response[apiv1.GetEventSubscriptionResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	sub, err := h.svc.Get(ctx, p, req.Msg.GetId())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.GetEventSubscriptionResponse{Message: "Event subscription", Subscription: subscriptionProto(sub)}), nil
}

// DeleteEventSubscription is DELETE /v1/events/subscriptions/{id}.
func (h *Handler) DeleteEventSubscription(ctx context.Context, req *connect.Request[apiv1.DeleteEventSubscriptionRequest]) (*connect.Response[apiv1.DeleteEventSubscriptionResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.Delete(ctx, p, req.Msg.GetId()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.DeleteEventSubscriptionResponse{Message: "Event subscription deleted", Id: req.Msg.GetId()}), nil
}

// RotateEventSecret is POST /v1/events/subscriptions/{id}/rotate.
func (h *Handler) RotateEventSecret(ctx context.Context, req *connect.Request[apiv1.RotateEventSecretRequest]) (*connect.Response[apiv1.RotateEventSecretResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	secret, until, err := h.svc.Rotate(ctx, p, req.Msg.GetId())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.RotateEventSecretResponse{Message: "Secret rotated", Secret: secret, PreviousValidUntil: apiconv.Timestamp(until)}), nil
}

// TestEventSubscription is POST /v1/events/subscriptions/{id}/test.
func (h *Handler) TestEventSubscription(ctx context.Context, req *connect.Request[apiv1.TestEventSubscriptionRequest]) (*connect.Response[apiv1.TestEventSubscriptionResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.svc.Test(ctx, p, req.Msg.GetId())
	if err != nil {
		return nil, err
	}
	out := &apiv1.TestEventSubscriptionResponse{Message: "Test event sent", WebhookId: r.WebhookID, ResponseCode: int32(r.ResponseCode), Delivered: r.Delivered}
	if !r.Delivered {
		out.Message = "The receiver did not accept the test event"
		out.Error = &r.Error
	}
	return connect.NewResponse(out), nil
}

// ListEventDeliveries is GET /v1/events/subscriptions/{id}/deliveries.
func (h *Handler) ListEventDeliveries(ctx context.Context, req *connect.Request[apiv1.ListEventDeliveriesRequest]) (*connect.Response[apiv1.ListEventDeliveriesResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := h.svc.Deliveries(ctx, p, req.Msg.GetId(), int(req.Msg.GetLimit()), int(req.Msg.GetSkip()))
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListEventDeliveriesResponse{Message: "Deliveries", Deliveries: []*apiv1.EventDelivery{}, Total: total}
	for _, d := range list {
		out.Deliveries = append(out.Deliveries, deliveryProto(d))
	}
	return connect.NewResponse(out), nil
}

// RedeliverEvent is POST /v1/events/subscriptions/{id}/deliveries/{deliveryId}/redeliver.
func (h *Handler) RedeliverEvent(ctx context.Context, req *connect.Request[apiv1.RedeliverEventRequest]) (*connect.Response[apiv1.RedeliverEventResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	d, err := h.svc.Redeliver(ctx, p, req.Msg.GetId(), req.Msg.GetDeliveryId())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.RedeliverEventResponse{Message: "Delivery queued again", Delivery: deliveryProto(d)}), nil
}

// ListEvents is GET /v1/events.
func (h *Handler) ListEvents(ctx context.Context, req *connect.Request[apiv1.ListEventsRequest]) (*connect.Response[apiv1.ListEventsResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := h.svc.Recent(ctx, p, req.Msg.GetType(), int(req.Msg.GetLimit()))
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListEventsResponse{Message: "Events", Events: []*apiv1.Event{}}
	for _, e := range list {
		var data map[string]any
		_ = json.Unmarshal([]byte(e.Data), &data)
		st, _ := structpb.NewStruct(data)
		out.Events = append(out.Events, &apiv1.Event{Id: e.ID, Type: e.Type, Data: st, Link: e.Link, CreatedAt: apiconv.Timestamp(e.CreatedAt)})
	}
	return connect.NewResponse(out), nil
}

var _ apiv1connect.EventServiceHandler = (*Handler)(nil)
