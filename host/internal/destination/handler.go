package destination

import (
	"context"
	"fmt"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves DestinationService and WebhookService on both API faces.
type Handler struct {
	svc *Service
}

var (
	_ apiv1connect.DestinationServiceHandler = (*Handler)(nil)
	_ apiv1connect.WebhookServiceHandler     = (*Handler)(nil)
)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// ListDestinations describes the configured destinations (GET /v1/destinations).
func (h *Handler) ListDestinations(ctx context.Context, _ *connect.Request[apiv1.ListDestinationsRequest]) (*connect.Response[apiv1.ListDestinationsResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	views, err := h.svc.ListDestinations(ctx, p)
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
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.svc.Connect(ctx, p, NewConnection{Destination: req.Msg.Name, Credentials: req.Msg.Credentials, Verify: req.Msg.Verify == nil || *req.Msg.Verify})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.ConnectDestinationResponse{Message: "Destination connected", Destination: destinationProto(v)}), nil
}

// DisconnectDestination deletes credentials (DELETE /v1/destinations/{name}/connection).
func (h *Handler) DisconnectDestination(ctx context.Context, req *connect.Request[apiv1.DisconnectDestinationRequest]) (*connect.Response[apiv1.DisconnectDestinationResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.Disconnect(ctx, p, req.Msg.Name); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.DisconnectDestinationResponse{Message: "Destination disconnected", Name: req.Msg.Name}), nil
}

// CreateWebhook saves an endpoint (POST /v1/webhooks); the secret is in
// this response only.
func (h *Handler) CreateWebhook(ctx context.Context, req *connect.Request[apiv1.CreateWebhookRequest]) (*connect.Response[apiv1.CreateWebhookResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	w, secret, err := h.svc.CreateWebhook(ctx, p, NewWebhook{URL: req.Msg.Url, Name: req.Msg.Name})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CreateWebhookResponse{
		Message: "Webhook created; store the secret now, it is not shown again", Webhook: webhookProto(w), Secret: secret,
	}), nil
}

// ListWebhooks lists saved endpoints (GET /v1/webhooks).
func (h *Handler) ListWebhooks(ctx context.Context, _ *connect.Request[apiv1.ListWebhooksRequest]) (*connect.Response[apiv1.ListWebhooksResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := h.svc.ListWebhooks(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListWebhooksResponse{Message: "Webhooks fetched", Webhooks: make([]*apiv1.Webhook, 0, len(list))}
	for _, w := range list {
		out.Webhooks = append(out.Webhooks, webhookProto(w))
	}
	return connect.NewResponse(out), nil
}

// DeleteWebhook deletes a saved endpoint (DELETE /v1/webhooks/{id}; 409
// while pending posts use it, unless ?force=true).
func (h *Handler) DeleteWebhook(ctx context.Context, req *connect.Request[apiv1.DeleteWebhookRequest]) (*connect.Response[apiv1.DeleteWebhookResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	failed, err := h.svc.DeleteWebhook(ctx, p, req.Msg.Id, req.Msg.GetForce())
	if err != nil {
		return nil, err
	}
	msg := "Webhook deleted"
	if len(failed) > 0 {
		msg = fmt.Sprintf("Webhook deleted; %d pending post(s) using it failed", len(failed))
	}
	return connect.NewResponse(&apiv1.DeleteWebhookResponse{Message: msg, Id: req.Msg.Id}), nil
}

// TestWebhook sends a signed test delivery (POST /v1/webhooks/{id}/test).
func (h *Handler) TestWebhook(ctx context.Context, req *connect.Request[apiv1.TestWebhookRequest]) (*connect.Response[apiv1.TestWebhookResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	delivery, err := h.svc.TestWebhook(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.TestWebhookResponse{Message: "Test delivery accepted by the webhook", WebhookId: req.Msg.Id, DeliveryId: delivery}), nil
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
		d.ConnectedAt = apiconv.Timestamp(v.ConnectedAt)
	}
	if v.Err != "" {
		d.Error = &v.Err
	}
	if v.ExpiresAt != 0 {
		d.ExpiresAt = apiconv.Timestamp(v.ExpiresAt)
	}
	d.Refreshable, d.Oauth = v.Refreshable, v.OAuth
	if v.Check.Result != "" {
		d.LastCheck = &apiv1.ConnectionCheck{Result: v.Check.Result, Message: v.Check.Message, Account: v.Check.Account}
		if v.Check.At != nil {
			d.LastCheck.CheckedAt = apiconv.Timestamp(*v.Check.At)
		}
	}
	return d
}

func webhookProto(w Webhook) *apiv1.Webhook {
	return &apiv1.Webhook{Id: w.ID, Name: w.Name, Url: w.DisplayURL, CreatedAt: apiconv.Timestamp(w.CreatedAt)}
}

// StartOAuth begins an OAuth connection (POST
// /v1/destinations/{name}/oauth/start).
func (h *Handler) StartOAuth(ctx context.Context, req *connect.Request[apiv1.StartOAuthRequest]) (*connect.Response[apiv1.StartOAuthResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	u, expires, err := h.svc.StartOAuth(ctx, p, req.Msg.Name)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.StartOAuthResponse{Message: "Open the authorization URL to connect", AuthorizationUrl: u,
		ExpiresAt: apiconv.Timestamp(expires.UnixMilli())}), nil
}

// FinishOAuth is the OAuth redirect target (GET
// /v1/destinations/{name}/oauth/callback, public: the state names the
// workspace).
func (h *Handler) FinishOAuth(ctx context.Context, req *connect.Request[apiv1.FinishOAuthRequest]) (*connect.Response[apiv1.FinishOAuthResponse], error) {
	m := req.Msg
	if _, err := h.svc.FinishOAuth(ctx, m.Name, m.Code, m.State, m.Error); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.FinishOAuthResponse{Message: "Destination connected: you can close this page", Name: m.Name}), nil
}
