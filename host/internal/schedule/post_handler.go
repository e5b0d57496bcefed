package schedule

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// postOfRequest is the NewPost of a CreatePostRequest.
func postOfRequest(m *apiv1.CreatePostRequest) NewPost {
	in := NewPost{Title: m.Title, Text: m.Text, Body: m.Content, WhenToExport: m.WhenToExport, Status: m.Status, Confirm: m.Confirm,
		Image: ImageInput{URL: m.ImageUrl, Alt: m.ImageAlt}}
	if m.ContentToExport != nil {
		in.Content = m.ContentToExport.AsMap()
	}
	for _, d := range m.Destinations {
		pd := PostDestination{ExportTo: d.ExportTo, WebhookID: d.WebhookId}
		if d.ContentToExport != nil {
			pd.Variant = d.ContentToExport.AsMap()
		}
		in.Destinations = append(in.Destinations, pd)
	}
	if r := m.Repeat; r != nil {
		in.Repeat = &Repeat{Frequency: r.Frequency, Weekdays: r.Weekdays, MonthDay: int(r.MonthDay), TimeZone: r.TimeZone, Until: r.Until, Count: int(r.Count)}
	}
	return in
}

// CreatePost stores a post to several destinations (POST /v1/posts).
func (h *Handler) CreatePost(ctx context.Context, req *connect.Request[apiv1.CreatePostRequest]) (*connect.Response[apiv1.PostResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	post, err := h.svc.CreatePost(ctx, p, postOfRequest(req.Msg))
	if err != nil {
		return nil, err
	}
	msg := "Post scheduled"
	if post.Status == PostDraft {
		msg = "Draft saved"
	}
	return postResponse(msg, post, nil), nil
}

// GetPost returns a post and its schedules (GET /v1/posts/{id}).
func (h *Handler) GetPost(ctx context.Context, req *connect.Request[apiv1.GetPostRequest]) (*connect.Response[apiv1.PostResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	post, err := h.svc.GetPost(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return postResponse("Post fetched", post, nil), nil
}

// DeletePost cancels or removes every schedule of a post (DELETE
// /v1/posts/{id}).
func (h *Handler) DeletePost(ctx context.Context, req *connect.Request[apiv1.GetPostRequest]) (*connect.Response[apiv1.PostResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	post, out, err := h.svc.DeletePost(ctx, p, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return postResponse("Post cancelled", post, out), nil
}

// RetryPost retries a post's failed schedules (POST /v1/posts/{id}/retry).
func (h *Handler) RetryPost(ctx context.Context, req *connect.Request[apiv1.RetryScheduleRequest]) (*connect.Response[apiv1.PostResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	post, out, err := h.svc.RetryPost(ctx, p, req.Msg.Id, req.Msg.WhenToExport)
	if err != nil {
		return nil, err
	}
	return postResponse("Failed destinations queued for another attempt", post, out), nil
}

// MovePost gives a post a new time (POST /v1/posts/{id}/move).
func (h *Handler) MovePost(ctx context.Context, req *connect.Request[apiv1.RetryScheduleRequest]) (*connect.Response[apiv1.PostResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	post, out, err := h.svc.MovePost(ctx, p, req.Msg.Id, req.Msg.WhenToExport)
	if err != nil {
		return nil, err
	}
	return postResponse("Post moved", post, out), nil
}

// CancelRepeatRule stops a repeat rule (DELETE /v1/scheduler/rules/{id}).
func (h *Handler) CancelRepeatRule(ctx context.Context, req *connect.Request[apiv1.GetPostRequest]) (*connect.Response[apiv1.CancelRepeatRuleResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.CancelRule(ctx, p, req.Msg.Id); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.CancelRepeatRuleResponse{Message: "Repeat rule cancelled", Id: req.Msg.Id}), nil
}

// GetCalendar lists posts by day (GET /v1/scheduler/calendar).
func (h *Handler) GetCalendar(ctx context.Context, req *connect.Request[apiv1.GetCalendarRequest]) (*connect.Response[apiv1.GetCalendarResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	cal, err := h.svc.Calendar(ctx, p, req.Msg.From, req.Msg.To, req.Msg.Tz)
	if err != nil {
		return nil, err
	}
	out := &apiv1.GetCalendarResponse{Message: "Calendar fetched", Tz: cal.TimeZone, Truncated: cal.Truncated, Days: make([]*apiv1.CalendarDay, 0, len(cal.Days))}
	for _, d := range cal.Days {
		day := &apiv1.CalendarDay{Date: d.Date, Posts: make([]*apiv1.CalendarPost, 0, len(d.Posts))}
		for _, cp := range d.Posts {
			pp := &apiv1.CalendarPost{Id: cp.ID, Title: cp.Title, WhenToExport: apiconv.Timestamp(cp.WhenToExport), Status: string(cp.Status), RuleId: cp.RuleID,
				Destinations: make([]*apiv1.CalendarDestination, len(cp.Destinations))}
			for i, cd := range cp.Destinations {
				pp.Destinations[i] = &apiv1.CalendarDestination{ScheduleId: cd.ScheduleID, ExportTo: cd.ExportTo, Status: cd.Status.String()}
			}
			day.Posts = append(day.Posts, pp)
		}
		out.Days = append(out.Days, day)
	}
	return connect.NewResponse(out), nil
}

// PreviewPost renders a post per destination (POST /v1/scheduler/preview).
func (h *Handler) PreviewPost(ctx context.Context, req *connect.Request[apiv1.CreatePostRequest]) (*connect.Response[apiv1.PreviewPostResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := h.svc.Preview(ctx, p, postOfRequest(req.Msg))
	if err != nil {
		return nil, err
	}
	out := &apiv1.PreviewPostResponse{Message: "Preview rendered", Ok: true}
	for _, pv := range list {
		d := &apiv1.PreviewDestination{ExportTo: pv.ExportTo, WebhookId: pv.WebhookID, Rendered: pv.Rendered}
		if st, err := apiconv.Struct(pv.Content); err == nil {
			d.ContentToExport = st
		} else {
			d.ContentToExport = &structpb.Struct{}
		}
		for _, pr := range pv.Problems {
			d.Problems = append(d.Problems, &apiv1.PreviewProblem{Key: pr.Key, Message: pr.Message})
			out.Ok = false
		}
		out.Destinations = append(out.Destinations, d)
	}
	if !out.Ok {
		out.Message = "Some destinations would refuse this post"
	}
	return connect.NewResponse(out), nil
}

func postResponse(msg string, post Post, outcomes []PostOutcome) *connect.Response[apiv1.PostResponse] {
	return connect.NewResponse(&apiv1.PostResponse{Message: msg, Post: postToProto(post), Outcomes: outcomesToProto(outcomes)})
}

func postToProto(post Post) *apiv1.Post {
	out := &apiv1.Post{Id: post.ID, Title: post.Title, Status: string(post.Status), RuleId: post.RuleID,
		CreatedAt: apiconv.Timestamp(post.CreatedAt), UpdatedAt: apiconv.Timestamp(post.UpdatedAt), Schedules: make([]*apiv1.Schedule, len(post.Schedules))}
	if post.WhenToExport != nil {
		out.WhenToExport = apiconv.Timestamp(*post.WhenToExport)
	}
	for i, sc := range post.Schedules {
		out.Schedules[i] = toProto(sc)
	}
	return out
}

func outcomesToProto(list []PostOutcome) []*apiv1.PostOutcome {
	var out []*apiv1.PostOutcome
	for _, o := range list {
		out = append(out, &apiv1.PostOutcome{ScheduleId: o.ScheduleID, Result: o.Result})
	}
	return out
}
