package traffic

import (
	"context"
	"fmt"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves AITrafficService on both API faces.
type Handler struct {
	svc *Service
}

var _ apiv1connect.AITrafficServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// ListSites lists the workspace's sites.
func (h *Handler) ListSites(ctx context.Context, _ *connect.Request[apiv1.ListSitesRequest]) (*connect.Response[apiv1.ListSitesResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	sites, err := h.svc.ListSites(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListSitesResponse{Message: "Sites fetched", Sites: make([]*apiv1.AITrafficSite, 0, len(sites))}
	for _, s := range sites {
		out.Sites = append(out.Sites, h.site(s))
	}
	return connect.NewResponse(out), nil
}

// CreateSite adds a site, or returns the workspace's site with that domain.
func (h *Handler) CreateSite(ctx context.Context, req *connect.Request[apiv1.CreateSiteRequest]) (*connect.Response[apiv1.AITrafficSite], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	site, created, err := h.svc.CreateSite(ctx, p, NewSite{Domain: req.Msg.Domain, Name: req.Msg.Name})
	if err != nil {
		return nil, err
	}
	out := h.site(site)
	// false: the workspace already has this domain and this is its site.
	out.Created = created
	return connect.NewResponse(out), nil
}

// EnsureSite returns the workspace's site, creating it from the website.
func (h *Handler) EnsureSite(ctx context.Context, _ *connect.Request[apiv1.EnsureSiteRequest]) (*connect.Response[apiv1.EnsureSiteResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	site, err := h.svc.EnsureSite(ctx, p)
	if err != nil {
		return nil, err
	}
	if site == nil {
		return connect.NewResponse(&apiv1.EnsureSiteResponse{Message: needsDomainMessage, NeedsDomain: true}), nil
	}
	return connect.NewResponse(&apiv1.EnsureSiteResponse{Message: "Site ready: " + site.Domain, Site: h.site(*site)}), nil
}

// GetStats reports a site's AI traffic.
func (h *Handler) GetStats(ctx context.Context, req *connect.Request[apiv1.GetStatsRequest]) (*connect.Response[apiv1.GetStatsResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	r, err := h.svc.Stats(ctx, p, StatsQuery{SiteKey: m.SiteKey, Days: m.Days, Source: m.Source, SiteKeyIfSeveral: true})
	if err != nil {
		return nil, err
	}
	out := statsProto(r)
	out.Message = statsMessage(out.Domain, out.Days)
	return connect.NewResponse(out), nil
}

// needsDomainMessage answers sites/ensure when the workspace has no site and
// neither the team nor the user has a website to create one from.
const needsDomainMessage = "No site yet and no website to create one from: add one with POST /v1/ai-traffic/sites"

// statsMessage names the site and the window of a report.
func statsMessage(domain string, days int32) string {
	if days == 1 {
		return "AI traffic for " + domain + " today"
	}
	return fmt.Sprintf("AI traffic for %s over the last %d days", domain, days)
}

// Collect records a beacon; it is public.
func (h *Handler) Collect(ctx context.Context, req *connect.Request[apiv1.CollectRequest]) (*connect.Response[apiv1.CollectResponse], error) {
	m := req.Msg
	c, err := h.svc.Collect(ctx, Beacon{
		SiteKey: m.SiteKey, Path: m.Path, Referrer: m.Referrer, Title: m.Title, SessionID: m.SessionId, UserAgent: m.UserAgent,
		UTMSource: m.UtmSource, UTMMedium: m.UtmMedium, UTMCampaign: m.UtmCampaign,
		SessionDurationMs: m.SessionDurationMs, ScrollDepth: m.ScrollDepth,
	}, req.Header().Get("User-Agent"))
	if err != nil {
		return nil, err
	}
	msg := "accepted"
	if c.Kind == "ignored" {
		msg = "ignored: not stored"
	}
	return connect.NewResponse(&apiv1.CollectResponse{Message: msg, Kind: c.Kind, AiSource: c.Source}), nil
}

func (h *Handler) site(s Site) *apiv1.AITrafficSite {
	return &apiv1.AITrafficSite{
		Id: s.ID, SiteKey: s.SiteKey, Domain: s.Domain, Name: s.Name, IsActive: s.IsActive,
		Snippet: h.svc.Snippet(s.SiteKey), ScriptUrl: h.svc.ScriptURL(), CreatedAt: apiconv.Timestamp(s.CreatedAt),
		IngestSecret: s.IngestSecret,
	}
}
