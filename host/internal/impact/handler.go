package impact

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves ImpactService on both API faces.
type Handler struct {
	svc *Service
}

var _ apiv1connect.ImpactServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// GetScheduleImpact returns a post's impact (GET /v1/scheduler/{id}/impact).
func (h *Handler) GetScheduleImpact(ctx context.Context, req *connect.Request[apiv1.GetScheduleImpactRequest]) (*connect.Response[apiv1.GetScheduleImpactResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	pi, err := h.svc.Schedule(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.GetScheduleImpactResponse{Message: "Impact fetched", Impact: ToProto(pi)}), nil
}

// ListTrackerImpact returns the impact of a tracker's targeted posts (GET
// /v1/visibility/trackers/{id}/impact).
func (h *Handler) ListTrackerImpact(ctx context.Context, req *connect.Request[apiv1.ListTrackerImpactRequest]) (*connect.Response[apiv1.ListTrackerImpactResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := h.svc.Tracker(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListTrackerImpactResponse{Message: "Impact fetched", TrackerId: req.Msg.Id, Posts: make([]*apiv1.PostImpact, 0, len(list))}
	for _, pi := range list {
		out.Posts = append(out.Posts, ToProto(pi))
	}
	return connect.NewResponse(out), nil
}

// ToProto is a post's impact as the API shows it (also the MCP tool's).
func ToProto(pi PostImpact) *apiv1.PostImpact {
	out := &apiv1.PostImpact{
		ScheduleId: pi.ScheduleID, TrackerId: pi.TrackerID, State: pi.State, TargetPrompts: pi.TargetPrompts,
		ControlPrompts: int32(pi.Controls), BaselineRuns: int32(pi.BaselineRuns), AfterRuns: int32(pi.AfterRuns),
		DaysAfter: int32(pi.DaysAfter), Notes: pi.Notes, Targets: []*apiv1.ImpactPrompt{}, Effects: []*apiv1.ImpactEffect{},
	}
	if out.TargetPrompts == nil {
		out.TargetPrompts = []string{}
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, t := range pi.Targets {
		out.Targets = append(out.Targets, &apiv1.ImpactPrompt{Id: t.ID, Text: t.Text, Tags: t.Tags})
	}
	if pi.PublishedAt != nil {
		out.PublishedAt = ts(*pi.PublishedAt)
		out.ReadableAt = ts(pi.ReadableAt)
		out.BaselineFrom = ts(pi.BaselineFrom)
	}
	for _, e := range pi.Effects {
		pe := &apiv1.ImpactEffect{Figure: e.Figure, Value: e.Value, Significant: e.Significant, Note: e.Note, Prompts: int32(e.Prompts),
			Targets:  &apiv1.ImpactGroup{Prompts: int32(e.Targets.Prompts), Baseline: e.Targets.Baseline, After: e.Targets.After},
			Controls: &apiv1.ImpactGroup{Prompts: int32(e.Controls.Prompts), Baseline: e.Controls.Baseline, After: e.Controls.After}}
		if e.Interval != nil {
			pe.Interval = &apiv1.ImpactInterval{Low: e.Interval.Low, High: e.Interval.High}
		}
		out.Effects = append(out.Effects, pe)
	}
	if pg := pi.Page; pg != nil {
		out.Page = &apiv1.ImpactPage{Url: pg.URL, Path: pg.Path, OnTrackedSite: pg.OnTrackedSite, TrafficTracked: pg.TrafficTracked,
			Citations: count(pg.Citations), VerifiedCrawls: count(pg.VerifiedCrawls), ClaimedCrawls: count(pg.ClaimedCrawls), AiVisits: count(pg.AIVisits)}
	}
	return out
}

func count(c Count) *apiv1.ImpactCount {
	return &apiv1.ImpactCount{Before: c.Before, After: c.After, BeforeBy: c.BeforeBy, AfterBy: c.AfterBy}
}

func ts(t time.Time) *timestamppb.Timestamp { return apiconv.Timestamp(t.UnixMilli()) }

// CreateTrackerBrief returns the brief of a tracker's gap (POST
// /v1/visibility/trackers/{id}/brief).
func (h *Handler) CreateTrackerBrief(ctx context.Context, req *connect.Request[apiv1.CreateTrackerBriefRequest]) (*connect.Response[apiv1.CreateTrackerBriefResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	b, err := h.svc.Brief(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CreateTrackerBriefResponse{Message: "Brief written", Brief: briefProto(b)}), nil
}

func briefProto(b Brief) *apiv1.TrackerBrief {
	out := &apiv1.TrackerBrief{TrackerId: b.TrackerID, ReportId: b.ReportID, RunAt: ts(b.RunAt), TargetPrompts: b.TargetPrompts, Outline: b.Outline,
		Prompts: make([]*apiv1.GapPrompt, 0, len(b.Prompts)), Sources: make([]*apiv1.GapSource, 0, len(b.Sources))}
	for _, g := range b.Prompts {
		out.Prompts = append(out.Prompts, &apiv1.GapPrompt{Id: g.ID, Text: g.Text, Engines: g.Engines, Competitors: g.Competitors})
	}
	for _, s := range b.Sources {
		out.Sources = append(out.Sources, &apiv1.GapSource{Url: s.URL, Answers: int32(s.Answers)})
	}
	return out
}

// CreateTrackerDraft writes a post for a tracker's gap and returns it with
// its proposed schedule (POST /v1/visibility/trackers/{id}/drafts); it
// schedules nothing.
func (h *Handler) CreateTrackerDraft(ctx context.Context, req *connect.Request[apiv1.CreateTrackerDraftRequest]) (*connect.Response[apiv1.CreateTrackerDraftResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	in := DraftInput{TrackerID: m.Id, VoiceID: m.VoiceId, Keyphrase: m.Keyphrase, Model: m.Model, Language: m.Language,
		ExportTo: m.ExportTo, WebhookID: m.WebhookId, PublishAt: m.PublishAt}
	if m.MinScore != nil {
		v := int(*m.MinScore)
		in.MinScore = &v
	}
	if m.MaxRounds != nil {
		v := int(*m.MaxRounds)
		in.MaxRounds = &v
	}
	d, err := h.svc.Draft(ctx, p, in)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CreateTrackerDraftResponse{Message: "Draft written; nothing is scheduled until the proposal is posted to POST /v1/scheduler/create", Draft: DraftToProto(d)}), nil
}

// DraftToProto is a draft as the API shows it.
func DraftToProto(d Draft) *apiv1.TrackerDraft {
	out := &apiv1.TrackerDraft{Brief: briefProto(d.Brief), Title: d.Title, Content: d.Content, Keyphrase: d.Keyphrase, MinScore: int32(d.MinScore),
		Met: d.Met, Model: d.Model, Credits: int32(d.Credits), ConfirmWith: "POST /v1/scheduler/create", Stopped: d.Stopped, Rounds: make([]*apiv1.DraftRound, 0, len(d.Rounds))}
	if d.Voice != nil {
		out.BrandVoiceId, out.BrandVoiceName = d.Voice.ID, d.Voice.Name
	}
	for _, r := range d.Rounds {
		out.Rounds = append(out.Rounds, &apiv1.DraftRound{Round: int32(r.Round), Score: int32(r.Score), SeoScore: int32(r.SEOScore),
			ReadabilityScore: int32(r.ReadabilityScore), Failing: r.Failing})
	}
	pr := d.Proposal
	out.Proposal = &apiv1.DraftProposal{ExportTo: pr.ExportTo, WebhookId: pr.WebhookID, Title: pr.Title, Content: pr.Content,
		WhenToExport: pr.WhenToExport, Status: pr.Status, TrackerId: pr.TrackerID, TargetPrompts: pr.TargetPrompts}
	return out
}
