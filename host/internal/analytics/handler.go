package analytics

import (
	"context"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves AnalyticsService on both API faces.
type Handler struct {
	svc *Service
}

var _ apiv1connect.AnalyticsServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

func connectionProto(c Connection, msg string) *apiv1.GoogleConnection {
	out := &apiv1.GoogleConnection{Message: msg, Connected: c.Connected, Method: c.Method, Account: c.Account,
		Sites: make([]*apiv1.GoogleSiteProperty, 0, len(c.Sites))}
	if c.Connected {
		out.ConnectedAt = apiconv.Timestamp(c.ConnectedAt)
	}
	for _, s := range c.Sites {
		out.Sites = append(out.Sites, &apiv1.GoogleSiteProperty{SiteKey: s.SiteKey, Domain: s.Domain, PropertyId: s.PropertyID})
	}
	return out
}

func connectionMessage(c Connection) string {
	if !c.Connected {
		return "Google Analytics is not connected"
	}
	if c.Account != "" {
		return "Google Analytics is connected (" + c.Account + ")"
	}
	return "Google Analytics is connected"
}

// GetGoogleConnection answers the caller's connection.
func (h *Handler) GetGoogleConnection(ctx context.Context, _ *connect.Request[apiv1.GetGoogleConnectionRequest]) (*connect.Response[apiv1.GoogleConnection], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	c, err := h.svc.Connection(ctx, p)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(connectionProto(c, connectionMessage(c))), nil
}

// ConnectGoogle starts the OAuth flow or connects a service account.
func (h *Handler) ConnectGoogle(ctx context.Context, req *connect.Request[apiv1.ConnectGoogleRequest]) (*connect.Response[apiv1.ConnectGoogleResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	st, err := h.svc.Start(ctx, p, StartInput{RedirectURI: req.Msg.RedirectUri, ServiceAccountKey: req.Msg.ServiceAccountKey})
	if err != nil {
		return nil, err
	}
	if st.Connection != nil {
		return connect.NewResponse(&apiv1.ConnectGoogleResponse{Message: "Google Analytics connected with the service account",
			Connection: connectionProto(*st.Connection, connectionMessage(*st.Connection))}), nil
	}
	return connect.NewResponse(&apiv1.ConnectGoogleResponse{Message: "Send the user to authorizationUrl; Google returns to redirectUri with code and state within 10 minutes",
		AuthorizationUrl: st.AuthURL, State: st.State}), nil
}

// FinishGoogleConnect takes Google's redirect.
func (h *Handler) FinishGoogleConnect(ctx context.Context, req *connect.Request[apiv1.FinishGoogleConnectRequest]) (*connect.Response[apiv1.GoogleConnection], error) {
	c, err := h.svc.Finish(ctx, FinishInput{Code: req.Msg.Code, State: req.Msg.State, Error: req.Msg.Error})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(connectionProto(c, connectionMessage(c))), nil
}

// DisconnectGoogle revokes and deletes the caller's tokens.
func (h *Handler) DisconnectGoogle(ctx context.Context, _ *connect.Request[apiv1.DisconnectGoogleRequest]) (*connect.Response[apiv1.DisconnectGoogleResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	ok, msg, err := h.svc.Disconnect(ctx, p)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.DisconnectGoogleResponse{Message: msg, Disconnected: ok}), nil
}

// ListGoogleProperties lists the GA4 properties the connection reads.
func (h *Handler) ListGoogleProperties(ctx context.Context, _ *connect.Request[apiv1.ListGooglePropertiesRequest]) (*connect.Response[apiv1.ListGooglePropertiesResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	props, err := h.svc.Properties(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListGooglePropertiesResponse{Message: "GA4 properties fetched", Properties: make([]*apiv1.GoogleProperty, len(props))}
	for i, pr := range props {
		out.Properties[i] = &apiv1.GoogleProperty{PropertyId: pr.ID, DisplayName: pr.DisplayName, Account: pr.Account, AccountDisplayName: pr.AccountDisplayName}
	}
	return connect.NewResponse(out), nil
}

// SetGoogleSiteProperty maps a site to a GA4 property.
func (h *Handler) SetGoogleSiteProperty(ctx context.Context, req *connect.Request[apiv1.SetGoogleSitePropertyRequest]) (*connect.Response[apiv1.GoogleSiteProperty], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	sp, err := h.svc.SetSiteProperty(ctx, p, SiteInput{SiteKey: req.Msg.SiteKey, PropertyID: req.Msg.PropertyId})
	if err != nil {
		return nil, err
	}
	msg := "Site " + sp.Domain + " reads its stats from GA4 property " + sp.PropertyID
	if sp.PropertyID == "" {
		msg = "Site " + sp.Domain + " has no GA4 property: its stats come from the script"
	}
	return connect.NewResponse(&apiv1.GoogleSiteProperty{Message: msg, SiteKey: sp.SiteKey, Domain: sp.Domain, PropertyId: sp.PropertyID}), nil
}
