package tracker

import (
	"bytes"
	"context"
	"encoding/csv"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves TrackerService on both API faces.
type Handler struct {
	svc *Service
}

var _ apiv1connect.TrackerServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler of svc's trackers.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// CreateTracker stores a tracker and starts its first run (REST 201).
func (h *Handler) CreateTracker(ctx context.Context, req *connect.Request[apiv1.CreateTrackerRequest]) (*connect.Response[apiv1.TrackerResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	prompts, err := promptsOf(m.Prompts)
	if err != nil {
		return nil, err
	}
	comps, err := analysis.CompetitorsFromValues(m.Competitors.GetValues())
	if err != nil {
		return nil, err
	}
	t, jobID, err := h.svc.CreateTracker(ctx, p, NewTracker{
		Setup:   TrackerSetup{WebsiteURL: m.Websiteurl, Competitors: comps, Prompts: prompts, SelfAliases: m.SelfAliases},
		Engines: m.Engines, Cadence: m.Cadence, Active: m.Active, Samples: intOf(m.Samples),
	})
	if err != nil {
		return nil, err
	}
	pt, err := trackerProto(t)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.TrackerResponse{Message: "Tracker created", Tracker: pt, JobId: jobID}), nil
}

// ListTrackers lists the workspace's trackers.
func (h *Handler) ListTrackers(ctx context.Context, _ *connect.Request[apiv1.ListTrackersRequest]) (*connect.Response[apiv1.ListTrackersResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := h.svc.ListTrackers(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListTrackersResponse{Message: "Trackers fetched", Trackers: make([]*apiv1.Tracker, 0, len(list))}
	for _, t := range list {
		pt, err := trackerProto(t)
		if err != nil {
			return nil, err
		}
		out.Trackers = append(out.Trackers, pt)
	}
	return connect.NewResponse(out), nil
}

// GetTracker returns one tracker.
func (h *Handler) GetTracker(ctx context.Context, req *connect.Request[apiv1.GetTrackerRequest]) (*connect.Response[apiv1.TrackerResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.svc.GetTracker(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	pt, err := trackerProto(t)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.TrackerResponse{Message: "Tracker fetched", Tracker: pt}), nil
}

// UpdateTracker changes the fields present.
func (h *Handler) UpdateTracker(ctx context.Context, req *connect.Request[apiv1.UpdateTrackerRequest]) (*connect.Response[apiv1.TrackerResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	u := TrackerUpdate{ID: m.Id, WebsiteURL: m.Websiteurl, Cadence: m.Cadence, Active: m.Active, Samples: intOf(m.Samples)}
	if m.Competitors != nil {
		c, err := analysis.CompetitorsFromValues(m.Competitors.GetValues())
		if err != nil {
			return nil, err
		}
		u.Competitors = &c
	}
	if m.Prompts != nil {
		prompts, err := promptsOf(m.Prompts)
		if err != nil {
			return nil, err
		}
		u.Prompts = &prompts
	}
	if m.Engines != nil {
		e, err := stringsOf("engines", m.Engines)
		if err != nil {
			return nil, err
		}
		u.Engines = &e
	}
	if m.SelfAliases != nil {
		a, err := stringsOf("selfAliases", m.SelfAliases)
		if err != nil {
			return nil, err
		}
		u.SelfAliases = &a
	}
	t, err := h.svc.UpdateTracker(ctx, p, u)
	if err != nil {
		return nil, err
	}
	pt, err := trackerProto(t)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.TrackerResponse{Message: "Tracker updated", Tracker: pt}), nil
}

// DeleteTracker removes a tracker; its runs stay in the history.
func (h *Handler) DeleteTracker(ctx context.Context, req *connect.Request[apiv1.DeleteTrackerRequest]) (*connect.Response[apiv1.DeleteTrackerResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.DeleteTracker(ctx, p, req.Msg.Id); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.DeleteTrackerResponse{Message: "Tracker deleted"}), nil
}

// RunTracker queues a run now (REST 202 {message, jobId}).
func (h *Handler) RunTracker(ctx context.Context, req *connect.Request[apiv1.RunTrackerRequest]) (*connect.Response[apiv1.RunTrackerResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	jobID, err := h.svc.QueueRun(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.RunTrackerResponse{Message: "Tracker run queued", JobId: jobID}), nil
}

// GetTrackerTrend returns the tracker's trend.
func (h *Handler) GetTrackerTrend(ctx context.Context, req *connect.Request[apiv1.GetTrackerTrendRequest]) (*connect.Response[apiv1.GetTrackerTrendResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	tr, err := h.svc.Trend(ctx, p, req.Msg.Id, int(req.Msg.Days), int(req.Msg.Answers))
	if err != nil {
		return nil, err
	}
	pt, err := trackerProto(tr.Tracker)
	if err != nil {
		return nil, err
	}
	out := &apiv1.GetTrackerTrendResponse{Message: "Trend fetched", Tracker: pt, Days: int32(tr.Days), Engines: apiconv.NonNil(tr.Engines)}
	if out.Brands, err = apiconv.ListOf(tr.Brands); err != nil {
		return nil, err
	}
	if out.Series, err = apiconv.ListOf(tr.Series); err != nil {
		return nil, err
	}
	if out.Prompts, err = apiconv.ListOf(tr.Prompts); err != nil {
		return nil, err
	}
	if tr.Traffic != nil {
		out.Traffic = &structpb.Struct{}
		if err := apiconv.ViaJSON(tr.Traffic, out.Traffic); err != nil {
			return nil, err
		}
	}
	return connect.NewResponse(out), nil
}

// ExportTrackerTrend returns the trend as CSV (REST: text/csv).
func (h *Handler) ExportTrackerTrend(ctx context.Context, req *connect.Request[apiv1.GetTrackerTrendRequest]) (*connect.Response[apiv1.ExportTrackerTrendResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	tr, err := h.svc.Trend(ctx, p, req.Msg.Id, int(req.Msg.Days), int(req.Msg.Answers))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(tr.CSV()); err != nil {
		return nil, err
	}
	name := "tracker-" + tr.Tracker.ID + "-trend.csv"
	return connect.NewResponse(&apiv1.ExportTrackerTrendResponse{Filename: name, Csv: buf.String()}), nil
}

// promptsOf reads prompts given as strings or objects {text, tags}.
func promptsOf(l *structpb.ListValue) ([]TrackerPrompt, error) {
	var out []TrackerPrompt
	for i, v := range l.GetValues() {
		switch x := v.Kind.(type) {
		case *structpb.Value_StringValue:
			out = append(out, TrackerPrompt{Text: x.StringValue})
		case *structpb.Value_StructValue:
			f := x.StructValue.GetFields()
			text, ok := f["text"].GetKind().(*structpb.Value_StringValue)
			if !ok {
				return nil, apierr.Invalid("prompts[%d].text is required (a string)", i)
			}
			p := TrackerPrompt{Text: text.StringValue}
			if tags := f["tags"]; tags != nil {
				list, ok := tags.Kind.(*structpb.Value_ListValue)
				if !ok {
					return nil, apierr.Invalid("prompts[%d].tags must be a list of strings", i)
				}
				for j, t := range list.ListValue.GetValues() {
					s, ok := t.Kind.(*structpb.Value_StringValue)
					if !ok {
						return nil, apierr.Invalid("prompts[%d].tags[%d] must be a string", i, j)
					}
					p.Tags = append(p.Tags, s.StringValue)
				}
			}
			out = append(out, p)
		default:
			return nil, apierr.Invalid("prompts[%d] must be a string or an object {text, tags}", i)
		}
	}
	return out, nil
}

func stringsOf(field string, l *structpb.ListValue) ([]string, error) {
	out := []string{}
	for i, v := range l.GetValues() {
		s, ok := v.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, apierr.Invalid("%s[%d] must be a string", field, i)
		}
		out = append(out, s.StringValue)
	}
	return out, nil
}

var weekdays = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

func trackerProto(t Tracker) (*apiv1.Tracker, error) {
	comps := &structpb.ListValue{Values: analysis.CompetitorValues(t.Setup.Competitors)}
	out := &apiv1.Tracker{Id: t.ID, Websiteurl: t.Setup.WebsiteURL, Competitors: comps, Engines: apiconv.NonNil(t.Engines), Cadence: t.Cadence,
		Active: t.Active, SlotTime: time.Date(2000, 1, 1, t.SlotMinute/60, t.SlotMinute%60, 0, 0, time.UTC).Format("15:04"),
		CreatedAt: timestamppb.New(t.CreatedAt), UpdatedAt: timestamppb.New(t.UpdatedAt), SelfAliases: apiconv.NonNil(t.Setup.SelfAliases)}
	for _, p := range t.Setup.Prompts {
		out.Prompts = append(out.Prompts, &apiv1.TrackerPrompt{Text: p.Text, Tags: apiconv.NonNil(p.Tags)})
	}
	if t.Cadence == CadenceWeekly {
		wd := weekdays[t.SlotWeekday]
		out.SlotWeekday = &wd
	}
	if t.NextRunAt != nil {
		out.NextRunAt = timestamppb.New(*t.NextRunAt)
	}
	if t.LastRunAt != nil {
		out.LastRunAt = timestamppb.New(*t.LastRunAt)
	}
	if t.LastReportID != "" {
		out.LastReportId = &t.LastReportID
	}
	if t.LastLate != nil {
		ms := t.LastLate.Milliseconds()
		out.LastLateMs = &ms
	}
	if t.LastSkip != nil {
		out.LastSkip = &apiv1.TrackerSkip{At: timestamppb.New(t.LastSkip.At), Reason: t.LastSkip.Reason}
	}
	if t.Samples != nil {
		n := int32(*t.Samples)
		out.Samples = &n
	}
	return out, nil
}

// intOf is an optional proto int32 as an optional int.
func intOf(v *int32) *int {
	if v == nil {
		return nil
	}
	n := int(*v)
	return &n
}
