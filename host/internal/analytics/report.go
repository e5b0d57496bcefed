package analytics

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/analyticsstore"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/sdk"
)

// Property is a GA4 property the connection reads.
type Property struct {
	ID, DisplayName, Account, AccountDisplayName string
}

// Properties lists the GA4 properties the caller's connection can read.
func (s *Service) Properties(ctx context.Context, p auth.Principal) ([]Property, error) {
	creds, err := s.credentials(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	props, err := s.plugin.Properties(ctx, creds)
	if err != nil {
		return nil, pluginError(err, "list the Google Analytics properties")
	}
	out := make([]Property, len(props))
	for i, pr := range props {
		out[i] = Property{ID: pr.ID, DisplayName: pr.DisplayName, Account: pr.Account, AccountDisplayName: pr.AccountDisplayName}
	}
	return out, nil
}

// SiteInput maps SiteKey to PropertyID ("" removes the mapping).
type SiteInput struct {
	SiteKey, PropertyID string
}

func (in SiteInput) validate() error {
	if in.SiteKey == "" {
		return apierr.New(connect.CodeInvalidArgument, "siteKey is required", "field", "siteKey")
	}
	if len(in.PropertyID) > 20 || !digits(in.PropertyID) {
		return apierr.New(connect.CodeInvalidArgument, "propertyId must be the digits of a GA4 property (properties/{propertyId}), or empty to remove the mapping", "field", "propertyId")
	}
	return nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// SetSiteProperty maps one of the caller's sites to a GA4 property that the
// connection can read (checked with Google), or removes its mapping.
func (s *Service) SetSiteProperty(ctx context.Context, p auth.Principal, in SiteInput) (SiteProperty, error) {
	if err := in.validate(); err != nil {
		return SiteProperty{}, err
	}
	site, err := s.store.TrafficSiteByKey(ctx, in.SiteKey)
	if errors.Is(err, store.ErrNotFound) || (err == nil && site.WorkspaceID != p.WorkspaceID) {
		return SiteProperty{}, apierr.NotFound("site %q not found", in.SiteKey)
	}
	if err != nil {
		return SiteProperty{}, err
	}
	if in.PropertyID != "" {
		props, err := s.Properties(ctx, p)
		if err != nil {
			return SiteProperty{}, err
		}
		found := false
		for _, pr := range props {
			found = found || pr.ID == in.PropertyID
		}
		if !found {
			return SiteProperty{}, apierr.New(connect.CodeInvalidArgument, fmt.Sprintf("propertyId %s: the connected Google account cannot read this GA4 property; pick one from GET /v1/analytics/google/properties", in.PropertyID), "field", "propertyId")
		}
	} else if _, err := analyticsstore.New(s.store).GetAnalyticsConnection(ctx, p.WorkspaceID, Google); errors.Is(err, store.ErrNotFound) {
		return SiteProperty{}, errNotConnected
	}
	if err := analyticsstore.New(s.store).SetAnalyticsSiteProperty(ctx, p.WorkspaceID, Google, site.ID, in.PropertyID); err != nil {
		return SiteProperty{}, err
	}
	s.forget(p.WorkspaceID)
	return SiteProperty{SiteKey: site.SiteKey, Domain: site.Domain, PropertyID: in.PropertyID}, nil
}

// Connected reports whether the workspace has a Google Analytics
// connection (traffic.External).
func (s *Service) Connected(ctx context.Context, workspaceID string) bool {
	_, err := analyticsstore.New(s.store).GetAnalyticsConnection(ctx, workspaceID, Google)
	return err == nil
}

// SiteReport answers traffic's External: the GA4 report of the site's
// property over [from, to], from the cache when Google answered the same
// workspace, property and window less than CacheTTL ago. Failures carry a
// message for users (quota, lost permission, deleted property, revoked
// access) and the caller falls back to the script.
func (s *Service) SiteReport(ctx context.Context, workspaceID, siteID, from, to string) (traffic.ExternalReport, error) {
	out := traffic.ExternalReport{}
	if _, err := analyticsstore.New(s.store).GetAnalyticsConnection(ctx, workspaceID, Google); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return out, nil
		}
		return out, s.internal(err)
	}
	out.Connected = true
	prop, err := analyticsstore.New(s.store).AnalyticsSitePropertyOf(ctx, workspaceID, Google, siteID)
	if errors.Is(err, store.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return out, s.internal(err)
	}
	out.PropertyID = prop
	key := cacheKey{workspace: workspaceID, property: prop, from: from, to: to}
	if r, ok := s.cached(key); ok {
		return r, nil
	}
	creds, err := s.credentials(ctx, workspaceID)
	if err != nil {
		return out, userError(err)
	}
	rep, err := s.plugin.Report(ctx, sdk.AnalyticsReportRequest{Credentials: creds, PropertyID: prop, StartDate: from, EndDate: to})
	if err != nil {
		s.log.Warn("Google Analytics report failed", "workspace", workspaceID, "property", prop, "error", sdk.AsError(err).Message)
		return out, userError(pluginError(err, "read the GA4 report"))
	}
	r := externalOf(rep)
	r.Connected, r.PropertyID, r.CachedAt = true, prop, s.now().UnixMilli()
	s.put(key, r)
	return r, nil
}

func (s *Service) internal(err error) error {
	s.log.Error("Google Analytics stats", "error", err)
	return errors.New("Google Analytics could not be read (internal error)")
}

// userError keeps the client message of an API error and hides anything
// else.
func userError(err error) error {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return errors.New(ce.Message())
	}
	return errors.New("Google Analytics could not be read (internal error)")
}

func externalOf(r sdk.AnalyticsReport) traffic.ExternalReport {
	out := traffic.ExternalReport{Sampled: r.Sampled, Days: make([]traffic.ExternalDay, len(r.Days)), Pages: make([]traffic.ExternalPage, len(r.Pages))}
	for i, d := range r.Days {
		out.Days[i] = traffic.ExternalDay{Date: d.Date, Source: d.Source, Medium: d.Medium, Channel: d.Channel, Sessions: d.Sessions,
			Pageviews: d.Pageviews, EngagedSessions: d.EngagedSessions, DurationMs: d.DurationMs}
	}
	for i, p := range r.Pages {
		out.Pages[i] = traffic.ExternalPage{Path: p.Path, Source: p.Source, Medium: p.Medium, Channel: p.Channel, Sessions: p.Sessions,
			Pageviews: p.Pageviews, DurationMs: p.DurationMs}
	}
	return out
}

// pluginError turns the ga4 plugin's failure into the API's error; what
// names the step for the message.
func pluginError(err error, what string) error {
	e := sdk.AsError(err)
	switch e.Code {
	case sdk.CodeUnauthenticated:
		return apierr.Conflict("Google Analytics refused the stored access (%s): reconnect Google Analytics with PUT /v1/analytics/google", e.Message)
	case sdk.CodeInvalidArgument:
		return apierr.Invalid("%s", e.Message)
	case sdk.CodePermissionDenied:
		return apierr.Forbidden("%s", e.Message)
	case sdk.CodeNotFound:
		return apierr.NotFound("%s", e.Message)
	case sdk.CodeRateLimited:
		return apierr.New(connect.CodeResourceExhausted, e.Message)
	case sdk.CodeUnconfigured:
		return apierr.Unavailable("%s", e.Message)
	case sdk.CodeUnimplemented:
		return apierr.Unavailable("Google Analytics is not available on this server: %s", e.Message)
	case sdk.CodeCanceled:
		return apierr.Unavailable("could not %s in time", what)
	case sdk.CodeInternal:
		return apierr.Internal("could not " + what)
	default:
		return apierr.Unavailable("could not %s: %s", what, e.Message)
	}
}
