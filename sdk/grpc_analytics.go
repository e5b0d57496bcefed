package sdk

// This file is the analytics source's gRPC layer: the server adapting an
// AnalyticsSource to the generated service, the host's client, and the
// conversions between them.

import (
	"context"

	"github.com/heraldhq/herald/sdk/proto/pluginv1"
	"google.golang.org/grpc"
)

type analyticsServer struct {
	pluginv1.UnimplementedAnalyticsSourceServer
	impl AnalyticsSource
}

func (s *analyticsServer) Info(ctx context.Context, _ *pluginv1.AnalyticsInfoRequest) (*pluginv1.AnalyticsInfoResponse, error) {
	info, err := s.impl.Info(ctx)
	if err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.AnalyticsInfoResponse{Name: info.Name, DisplayName: info.DisplayName, Oauth: info.OAuth, KeyFields: info.KeyFields}, nil
}

func (s *analyticsServer) Configure(ctx context.Context, req *pluginv1.AnalyticsConfigureRequest) (*pluginv1.AnalyticsConfigureResponse, error) {
	if err := configure(ctx, s.impl, req.GetSettings()); err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.AnalyticsConfigureResponse{}, nil
}

func (s *analyticsServer) AuthURL(ctx context.Context, req *pluginv1.AnalyticsAuthURLRequest) (*pluginv1.AnalyticsAuthURLResponse, error) {
	u, err := s.impl.AuthURL(ctx, AuthURLRequest{RedirectURI: req.GetRedirectUri(), State: req.GetState(), CodeChallenge: req.GetCodeChallenge()})
	if err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.AnalyticsAuthURLResponse{Url: u}, nil
}

func (s *analyticsServer) Exchange(ctx context.Context, req *pluginv1.AnalyticsExchangeRequest) (*pluginv1.AnalyticsGrant, error) {
	g, err := s.impl.Exchange(ctx, ExchangeRequest{Code: req.GetCode(), CodeVerifier: req.GetCodeVerifier(),
		RedirectURI: req.GetRedirectUri(), Key: nonNilMap(req.GetKey())})
	if err != nil {
		return nil, errorToStatus(err)
	}
	return grantToProto(g), nil
}

func (s *analyticsServer) Refresh(ctx context.Context, req *pluginv1.AnalyticsRefreshRequest) (*pluginv1.AnalyticsGrant, error) {
	g, err := s.impl.Refresh(ctx, nonNilMap(req.GetCredentials()))
	if err != nil {
		return nil, errorToStatus(err)
	}
	return grantToProto(g), nil
}

func (s *analyticsServer) Revoke(ctx context.Context, req *pluginv1.AnalyticsRevokeRequest) (*pluginv1.AnalyticsRevokeResponse, error) {
	if err := s.impl.Revoke(ctx, nonNilMap(req.GetCredentials())); err != nil {
		return nil, errorToStatus(err)
	}
	return &pluginv1.AnalyticsRevokeResponse{}, nil
}

func (s *analyticsServer) Properties(ctx context.Context, req *pluginv1.AnalyticsPropertiesRequest) (*pluginv1.AnalyticsPropertiesResponse, error) {
	props, err := s.impl.Properties(ctx, nonNilMap(req.GetCredentials()))
	if err != nil {
		return nil, errorToStatus(err)
	}
	out := &pluginv1.AnalyticsPropertiesResponse{Properties: make([]*pluginv1.AnalyticsProperty, len(props))}
	for i, p := range props {
		out.Properties[i] = &pluginv1.AnalyticsProperty{Id: p.ID, DisplayName: p.DisplayName, Account: p.Account, AccountDisplayName: p.AccountDisplayName}
	}
	return out, nil
}

func (s *analyticsServer) Report(ctx context.Context, req *pluginv1.AnalyticsReportRequest) (*pluginv1.AnalyticsReportResponse, error) {
	r, err := s.impl.Report(ctx, AnalyticsReportRequest{Credentials: nonNilMap(req.GetCredentials()), PropertyID: req.GetPropertyId(),
		StartDate: req.GetStartDate(), EndDate: req.GetEndDate()})
	if err != nil {
		return nil, errorToStatus(err)
	}
	return reportToProto(r), nil
}

// AnalyticsClient is the host's handle on an analytics source plugin. It
// implements [AnalyticsSource] and [Configurer] over gRPC; errors are
// [*Error], rebuilt from what the plugin sent.
type AnalyticsClient struct {
	rpc pluginv1.AnalyticsSourceClient
}

// NewAnalyticsClient returns an AnalyticsClient over an established
// connection. Hosts normally get one from go-plugin by dispensing
// [AnalyticsPluginName].
func NewAnalyticsClient(conn grpc.ClientConnInterface) *AnalyticsClient {
	return &AnalyticsClient{rpc: pluginv1.NewAnalyticsSourceClient(conn)}
}

// Info asks the plugin to describe itself.
func (c *AnalyticsClient) Info(ctx context.Context) (AnalyticsInfo, error) {
	r, err := c.rpc.Info(ctx, &pluginv1.AnalyticsInfoRequest{})
	if err != nil {
		return AnalyticsInfo{}, errorFromStatus(ctx, "analytics info", err)
	}
	return AnalyticsInfo{Name: r.GetName(), DisplayName: r.GetDisplayName(), OAuth: r.GetOauth(), KeyFields: r.GetKeyFields()}, nil
}

// Configure sends operator settings to the plugin.
func (c *AnalyticsClient) Configure(ctx context.Context, settings map[string]string) error {
	_, err := c.rpc.Configure(ctx, &pluginv1.AnalyticsConfigureRequest{Settings: settings})
	return errorFromStatus(ctx, "analytics configure", err)
}

// AuthURL asks the plugin for a consent page address.
func (c *AnalyticsClient) AuthURL(ctx context.Context, req AuthURLRequest) (string, error) {
	r, err := c.rpc.AuthURL(ctx, &pluginv1.AnalyticsAuthURLRequest{RedirectUri: req.RedirectURI, State: req.State, CodeChallenge: req.CodeChallenge})
	if err != nil {
		return "", errorFromStatus(ctx, "analytics auth url", err)
	}
	return r.GetUrl(), nil
}

// Exchange asks the plugin to turn a code or key into credentials.
func (c *AnalyticsClient) Exchange(ctx context.Context, req ExchangeRequest) (Grant, error) {
	r, err := c.rpc.Exchange(ctx, &pluginv1.AnalyticsExchangeRequest{Code: req.Code, CodeVerifier: req.CodeVerifier, RedirectUri: req.RedirectURI, Key: req.Key})
	if err != nil {
		return Grant{}, errorFromStatus(ctx, "analytics exchange", err)
	}
	return grantFromProto(r), nil
}

// Refresh asks the plugin to renew credentials.
func (c *AnalyticsClient) Refresh(ctx context.Context, credentials map[string]string) (Grant, error) {
	r, err := c.rpc.Refresh(ctx, &pluginv1.AnalyticsRefreshRequest{Credentials: credentials})
	if err != nil {
		return Grant{}, errorFromStatus(ctx, "analytics refresh", err)
	}
	return grantFromProto(r), nil
}

// Revoke asks the plugin to withdraw credentials.
func (c *AnalyticsClient) Revoke(ctx context.Context, credentials map[string]string) error {
	_, err := c.rpc.Revoke(ctx, &pluginv1.AnalyticsRevokeRequest{Credentials: credentials})
	return errorFromStatus(ctx, "analytics revoke", err)
}

// Properties asks the plugin for the readable properties.
func (c *AnalyticsClient) Properties(ctx context.Context, credentials map[string]string) ([]AnalyticsProperty, error) {
	r, err := c.rpc.Properties(ctx, &pluginv1.AnalyticsPropertiesRequest{Credentials: credentials})
	if err != nil {
		return nil, errorFromStatus(ctx, "analytics properties", err)
	}
	out := make([]AnalyticsProperty, len(r.GetProperties()))
	for i, p := range r.GetProperties() {
		out[i] = AnalyticsProperty{ID: p.GetId(), DisplayName: p.GetDisplayName(), Account: p.GetAccount(), AccountDisplayName: p.GetAccountDisplayName()}
	}
	return out, nil
}

// Report asks the plugin for one property's report.
func (c *AnalyticsClient) Report(ctx context.Context, req AnalyticsReportRequest) (AnalyticsReport, error) {
	r, err := c.rpc.Report(ctx, &pluginv1.AnalyticsReportRequest{Credentials: req.Credentials, PropertyId: req.PropertyID,
		StartDate: req.StartDate, EndDate: req.EndDate})
	if err != nil {
		return AnalyticsReport{}, errorFromStatus(ctx, "analytics report", err)
	}
	return reportFromProto(r), nil
}

func grantToProto(g Grant) *pluginv1.AnalyticsGrant {
	return &pluginv1.AnalyticsGrant{Credentials: g.Credentials, ExpiresAtMs: g.ExpiresAtMs, Account: g.Account}
}

func grantFromProto(g *pluginv1.AnalyticsGrant) Grant {
	return Grant{Credentials: nonNilMap(g.GetCredentials()), ExpiresAtMs: g.GetExpiresAtMs(), Account: g.GetAccount()}
}

func reportToProto(r AnalyticsReport) *pluginv1.AnalyticsReportResponse {
	out := &pluginv1.AnalyticsReportResponse{Sampled: r.Sampled,
		Days: make([]*pluginv1.AnalyticsDayRow, len(r.Days)), Pages: make([]*pluginv1.AnalyticsPageRow, len(r.Pages))}
	for i, d := range r.Days {
		out.Days[i] = &pluginv1.AnalyticsDayRow{Date: d.Date, Source: d.Source, Medium: d.Medium, Channel: d.Channel,
			Sessions: d.Sessions, Pageviews: d.Pageviews, EngagedSessions: d.EngagedSessions, DurationMs: d.DurationMs}
	}
	for i, p := range r.Pages {
		out.Pages[i] = &pluginv1.AnalyticsPageRow{Path: p.Path, Source: p.Source, Medium: p.Medium, Channel: p.Channel,
			Sessions: p.Sessions, Pageviews: p.Pageviews, DurationMs: p.DurationMs}
	}
	return out
}

func reportFromProto(r *pluginv1.AnalyticsReportResponse) AnalyticsReport {
	out := AnalyticsReport{Sampled: r.GetSampled(),
		Days: make([]AnalyticsDayRow, len(r.GetDays())), Pages: make([]AnalyticsPageRow, len(r.GetPages()))}
	for i, d := range r.GetDays() {
		out.Days[i] = AnalyticsDayRow{Date: d.GetDate(), Source: d.GetSource(), Medium: d.GetMedium(), Channel: d.GetChannel(),
			Sessions: d.GetSessions(), Pageviews: d.GetPageviews(), EngagedSessions: d.GetEngagedSessions(), DurationMs: d.GetDurationMs()}
	}
	for i, p := range r.GetPages() {
		out.Pages[i] = AnalyticsPageRow{Path: p.GetPath(), Source: p.GetSource(), Medium: p.GetMedium(), Channel: p.GetChannel(),
			Sessions: p.GetSessions(), Pageviews: p.GetPageviews(), DurationMs: p.GetDurationMs()}
	}
	return out
}

// Interface guards.
var (
	_ AnalyticsSource = (*AnalyticsClient)(nil)
	_ Configurer      = (*AnalyticsClient)(nil)
)
