package visibility

import (
	"context"
	"fmt"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves VisibilityService on both API faces.
type Handler struct {
	svc *Service
}

var _ apiv1connect.VisibilityServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// PrefillReport suggests competitors and prompts for a site.
func (h *Handler) PrefillReport(ctx context.Context, req *connect.Request[apiv1.PrefillReportRequest]) (*connect.Response[apiv1.PrefillReportResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	comps, err := analysis.CompetitorsFromValues(req.Msg.Competitors)
	if err != nil {
		return nil, err
	}
	out, err := h.svc.Prefill(ctx, p, Input{WebsiteURL: req.Msg.Websiteurl, Competitors: comps, Prompts: req.Msg.Prompts, SelfAliases: req.Msg.SelfAliases})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.PrefillReportResponse{
		Message:     "Prefill generated",
		PromptLimit: int64(out.PromptLimit),
		Input:       reportInput(out.Input),
		Suggestions: &apiv1.Suggestions{Competitors: analysis.CompetitorValues(out.Suggested.Competitors), Prompts: apiconv.NonNil(out.Suggested.Prompts)},
		Prefill:     &apiv1.Suggestions{Competitors: analysis.CompetitorValues(out.Prefill.Competitors), Prompts: apiconv.NonNil(out.Prefill.Prompts)},
	}), nil
}

// CreateReport queues a report (REST 202 {message, jobId}).
func (h *Handler) CreateReport(ctx context.Context, req *connect.Request[apiv1.CreateReportRequest]) (*connect.Response[apiv1.CreateReportResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	comps, err := analysis.CompetitorsFromValues(m.Competitors)
	if err != nil {
		return nil, err
	}
	id, err := h.svc.Queue(ctx, p, ReportRequest{Input: Input{WebsiteURL: m.Websiteurl, Competitors: comps, Prompts: m.Prompts, SelfAliases: m.SelfAliases}, Refresh: m.Refresh, OneOff: m.OneOff})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CreateReportResponse{Message: "Report queued", JobId: id}), nil
}

// GetReport returns the latest (or oldest) report.
func (h *Handler) GetReport(ctx context.Context, req *connect.Request[apiv1.GetReportRequest]) (*connect.Response[apiv1.GetReportResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.svc.Latest(ctx, p, req.Msg.Sort, req.Msg.Evidence)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return connect.NewResponse(&apiv1.GetReportResponse{Message: "No report yet", IsEmpty: true}), nil
	}
	return reportResponse(v, "Report fetched")
}

// GetOneOffReport returns one one-off report of the workspace.
func (h *Handler) GetOneOffReport(ctx context.Context, req *connect.Request[apiv1.GetOneOffReportRequest]) (*connect.Response[apiv1.GetReportResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.svc.OneOff(ctx, p, req.Msg.Id, req.Msg.Evidence)
	if err != nil {
		return nil, err
	}
	return reportResponse(v, "Report fetched")
}

// GetReportHistory returns the history points.
func (h *Handler) GetReportHistory(ctx context.Context, req *connect.Request[apiv1.GetReportHistoryRequest]) (*connect.Response[apiv1.GetReportHistoryResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	points, err := h.svc.History(ctx, p, int(req.Msg.Days))
	if err != nil {
		return nil, err
	}
	res := &apiv1.GetReportHistoryResponse{Message: "History fetched", Points: make([]*structpb.Struct, 0, len(points))}
	for _, pt := range points {
		st, err := apiconv.Struct(pt)
		if err != nil {
			return nil, fmt.Errorf("history point: %w", err)
		}
		res.Points = append(res.Points, st)
	}
	return connect.NewResponse(res), nil
}

// ListOneOffReports lists one-off reports, newest first.
func (h *Handler) ListOneOffReports(ctx context.Context, req *connect.Request[apiv1.ListOneOffReportsRequest]) (*connect.Response[apiv1.ListOneOffReportsResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := h.svc.OneOffs(ctx, p, int(req.Msg.Skip))
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListOneOffReportsResponse{Message: "One-off reports fetched", Reports: make([]*apiv1.OneOffSummary, 0, len(list))}
	for _, r := range list {
		item := &apiv1.OneOffSummary{Id: r.ID, Websiteurl: r.WebsiteURL, CreatedAt: timestamppb.New(r.CreatedAt), State: r.State}
		if r.Scores != nil {
			item.Scores = &apiv1.ScoreSummary{AiVisibility: r.Scores.AIVisibility.Score, ShareOfVoice: r.Scores.ShareOfVoice.Score,
				EntityUnderstanding: r.Scores.EntityUnderstanding.Score}
		}
		out.Reports = append(out.Reports, item)
	}
	return connect.NewResponse(out), nil
}

func reportResponse(v *View, msg string) (*connect.Response[apiv1.GetReportResponse], error) {
	out := &apiv1.GetReportResponse{
		Message:          msg,
		IdPresent:        &apiv1.GetReportResponse_Id{Id: v.ID},
		CreatedAtPresent: &apiv1.GetReportResponse_CreatedAt{CreatedAt: timestamppb.New(v.CreatedAt)},
		InputPresent:     &apiv1.GetReportResponse_Input{Input: reportInput(v.Input)},
		StatePresent:     &apiv1.GetReportResponse_State{State: v.State},
	}
	out.SamplesPresent = &apiv1.GetReportResponse_Samples{Samples: int32(v.Samples)}
	if v.TrackerID != "" {
		out.TrackerIdPresent = &apiv1.GetReportResponse_TrackerId{TrackerId: v.TrackerID}
	}
	engines, err := apiconv.ListOf(v.Engines)
	if err != nil {
		return nil, err
	}
	out.EnginesPresent = &apiv1.GetReportResponse_Engines{Engines: engines}
	meta := &apiv1.RefreshMeta{Count: int64(v.RefreshMeta.Count), UsedLast_24H: int64(v.RefreshMeta.UsedLast24h), LimitPer_24H: int64(v.RefreshMeta.LimitPer24h)}
	out.RefreshMetaPresent = &apiv1.GetReportResponse_RefreshMeta{RefreshMeta: meta}
	if c := v.Computed; c != nil {
		scores, detail := &apiv1.Scores{}, &apiv1.ReportDetail{}
		if err := apiconv.ViaJSON(c.Scores, scores); err != nil {
			return nil, err
		}
		if err := apiconv.ViaJSON(map[string]any{"geo": c.Geo, "sources": c.Sources, "sourceGaps": c.SourceGaps}, detail); err != nil {
			return nil, err
		}
		recs, err := apiconv.ListOf(c.Recommendations)
		if err != nil {
			return nil, err
		}
		out.ScoresPresent = &apiv1.GetReportResponse_Scores{Scores: scores}
		out.ReportPresent = &apiv1.GetReportResponse_Report{Report: detail}
		out.RecommendationsPresent = &apiv1.GetReportResponse_Recommendations{Recommendations: recs}
		out.ScoringVersionPresent = &apiv1.GetReportResponse_ScoringVersion{ScoringVersion: int32(c.Version())}
	}
	if v.Answers != nil {
		answers, err := apiconv.ListOf(v.Answers)
		if err != nil {
			return nil, err
		}
		out.AnswersPresent = &apiv1.GetReportResponse_Answers{Answers: answers}
	}
	return connect.NewResponse(out), nil
}

func reportInput(in Input) *apiv1.ReportInput {
	return &apiv1.ReportInput{Websiteurl: in.WebsiteURL, Competitors: analysis.CompetitorValues(in.Competitors), Prompts: apiconv.NonNil(in.Prompts), SelfAliases: apiconv.NonNil(in.SelfAliases)}
}
