package traffic

import (
	"context"
	"fmt"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// CrawlerHandler serves AICrawlerService on both API faces.
type CrawlerHandler struct {
	svc *Service
}

var _ apiv1connect.AICrawlerServiceHandler = (*CrawlerHandler)(nil)

// NewCrawlerHandler returns the crawler API handler over svc.
func NewCrawlerHandler(svc *Service) *CrawlerHandler { return &CrawlerHandler{svc: svc} }

// IngestLogs stores a batch of a site's log lines. Its route is public to
// the API layer (an api-key is verified when sent); the ingest secret is
// checked here.
func (h *CrawlerHandler) IngestLogs(ctx context.Context, req *connect.Request[apiv1.IngestLogsRequest]) (*connect.Response[apiv1.IngestLogsResponse], error) {
	m := req.Msg
	ct := m.ContentType
	if ct == "" {
		ct = "text/plain"
	}
	r, err := h.svc.IngestLogs(ctx, LogBatch{SiteKey: m.SiteKey, ContentType: ct, Body: m.Body,
		Authorization: req.Header().Get("Authorization")})
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("%d lines accepted, %d rejected; %d AI crawler hits stored (%d verified)", r.Accepted, r.Rejected, r.CrawlerHits, r.VerifiedHits)
	reasons := r.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	return connect.NewResponse(&apiv1.IngestLogsResponse{Message: msg, Accepted: r.Accepted, Rejected: r.Rejected, Reasons: reasons,
		CrawlerHits: r.CrawlerHits, VerifiedHits: r.VerifiedHits, BotHits: r.BotHits, Visits: r.Visits}), nil
}

// RotateIngestSecret replaces a site's ingest secret.
func (h *CrawlerHandler) RotateIngestSecret(ctx context.Context, req *connect.Request[apiv1.RotateIngestSecretRequest]) (*connect.Response[apiv1.RotateIngestSecretResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	site, err := h.svc.RotateIngestSecret(ctx, p, req.Msg.SiteKey)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.RotateIngestSecretResponse{Message: "New ingest secret for " + site.Domain + ": shown only now; the previous one no longer works",
		SiteKey: site.SiteKey, IngestSecret: site.IngestSecret}), nil
}

// GetPages is the per-page view of citations, crawler hits and AI visits.
func (h *CrawlerHandler) GetPages(ctx context.Context, req *connect.Request[apiv1.GetPagesRequest]) (*connect.Response[apiv1.GetPagesResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.svc.Pages(ctx, p, req.Msg.SiteKey, req.Msg.Days)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(pagesProto(r)), nil
}

func pagesProto(r PagesReport) *apiv1.GetPagesResponse {
	out := &apiv1.GetPagesResponse{Message: fmt.Sprintf("Pages of %s: cited, crawled and visited over the last %d days", r.Domain, r.Days),
		SiteKey: r.SiteKey, Domain: r.Domain, Days: r.Days, From: r.From, To: r.To,
		Pages: make([]*apiv1.SitePage, 0, len(r.Pages)), CrawledNotCited: make([]*apiv1.PageOperatorGap, 0, len(r.CrawledNotCited)),
		CitedNotCrawled: make([]*apiv1.PageEngineGap, 0, len(r.CitedNotCrawled)), CitedAndVisited: make([]*apiv1.CitedVisitedPage, 0, len(r.CitedAndVisited))}
	for _, pg := range r.Pages {
		sp := &apiv1.SitePage{Path: pg.Path, Url: "https://" + r.Domain + pg.Path, CitedIn: []*apiv1.PageCitation{}, Crawled: []*apiv1.PageCrawl{}, AiVisits: []*apiv1.PageVisits{}}
		for _, c := range pg.CitedIn {
			sp.CitedIn = append(sp.CitedIn, &apiv1.PageCitation{Engine: c.Engine, Operator: c.Operator, Answers: c.Answers, ReportIds: c.ReportIDs})
		}
		for _, c := range pg.Crawled {
			sp.Crawled = append(sp.Crawled, &apiv1.PageCrawl{Operator: c.Operator, Verified: c.Verified, Claimed: c.Claimed})
		}
		for _, v := range pg.AIVisits {
			sp.AiVisits = append(sp.AiVisits, &apiv1.PageVisits{Source: v.Source, Visits: v.Visits})
		}
		out.Pages = append(out.Pages, sp)
	}
	for _, g := range r.CrawledNotCited {
		out.CrawledNotCited = append(out.CrawledNotCited, &apiv1.PageOperatorGap{Path: g.Path, Operator: g.Operator, Verified: g.Verified})
	}
	for _, g := range r.CitedNotCrawled {
		out.CitedNotCrawled = append(out.CitedNotCrawled, &apiv1.PageEngineGap{Path: g.Path, Engine: g.Engine, Operator: g.Operator, Answers: g.Answers, Claimed: g.Claimed})
	}
	for _, c := range r.CitedAndVisited {
		out.CitedAndVisited = append(out.CitedAndVisited, &apiv1.CitedVisitedPage{Path: c.Path, Engines: c.Engines, AiVisits: c.AIVisits})
	}
	return out
}
