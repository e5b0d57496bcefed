package agent

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Handler serves ChatService on both API faces.
type Handler struct{ svc *Service }

var _ apiv1connect.ChatServiceHandler = (*Handler)(nil)

// NewHandler returns the API handler over svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

func message(m *apiv1.ChatRequest) Message {
	return Message{Model: m.Model, Text: m.Text, SessionID: m.SessionId, BrandVoiceID: m.BrandVoiceId, Confirm: m.Confirm}
}

// Send answers one message when the turn is over.
func (h *Handler) Send(ctx context.Context, req *connect.Request[apiv1.ChatRequest]) (*connect.Response[apiv1.ChatResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.svc.Send(ctx, p, message(req.Msg), nil)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.ChatResponse{Message: replyMessage(req.Msg), SessionId: r.SessionID, Data: replyProto(r)}), nil
}

func replyMessage(m *apiv1.ChatRequest) string {
	if m.Confirm != "" {
		return "Proposal confirmed"
	}
	return "Reply generated"
}

// Chat streams one turn: text deltas, tool calls and tool results as they
// happen, then done with the new blocks.
func (h *Handler) Chat(ctx context.Context, req *connect.Request[apiv1.ChatRequest], stream *connect.ServerStream[apiv1.ChatEvent]) error {
	return h.Stream(ctx, req.Msg, stream.Send)
}

// Stream runs one turn and sends its events to send; the REST face uses it
// for Server-Sent Events, the Connect face for the server stream.
func (h *Handler) Stream(ctx context.Context, req *apiv1.ChatRequest, send func(*apiv1.ChatEvent) error) error {
	p, err := auth.Caller(ctx)
	if err != nil {
		return err
	}
	r, err := h.svc.Send(ctx, p, message(req), func(ev Event) error {
		out := &apiv1.ChatEvent{SessionId: ev.SessionID}
		switch {
		case ev.ToolCall != nil:
			out.Kind = &apiv1.ChatEvent_ToolCall{ToolCall: blockProto(*ev.ToolCall)}
		case ev.ToolResult != nil:
			out.Kind = &apiv1.ChatEvent_ToolResult{ToolResult: blockProto(*ev.ToolResult)}
		default:
			out.Kind = &apiv1.ChatEvent_TextDelta{TextDelta: ev.TextDelta}
		}
		return send(out)
	})
	if err != nil {
		return err
	}
	return send(&apiv1.ChatEvent{SessionId: r.SessionID, Kind: &apiv1.ChatEvent_Done{Done: replyProto(r)}})
}

func replyProto(r Reply) *apiv1.ChatReply {
	out := &apiv1.ChatReply{Text: r.Text, Model: r.Model, Blocks: blocksProto(r.Blocks),
		Usage: &apiv1.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens, TotalTokens: r.Usage.TotalTokens}}
	return out
}

func blocksProto(bs []Block) []*apiv1.ChatBlock {
	out := make([]*apiv1.ChatBlock, len(bs))
	for i, b := range bs {
		out[i] = blockProto(b)
	}
	return out
}

func blockProto(b Block) *apiv1.ChatBlock {
	content := &structpb.Value{}
	if protojson.Unmarshal([]byte(b.Content), content) != nil {
		content = structpb.NewStringValue(b.Content)
	}
	out := &apiv1.ChatBlock{Id: b.ID, Role: b.Role, Type: b.Type, Content: content, Model: b.Model, ToolName: b.ToolName,
		CreatedAt: apiconv.Timestamp(b.CreatedAt), Action: b.Action, ConfirmToken: b.ConfirmToken}
	if b.Args != nil {
		args := &structpb.Struct{}
		if protojson.Unmarshal([]byte(*b.Args), args) == nil {
			out.Args = args
		}
	}
	if f := b.Feedback; f != nil {
		out.Feedback = &apiv1.BlockFeedback{Rating: f.Rating, Comment: f.Comment}
	}
	return out
}

func sessionProto(c ChatSession) *apiv1.ChatSession {
	return &apiv1.ChatSession{SessionId: c.ID, Title: c.Title, Model: c.Model, CreatedAt: apiconv.Timestamp(c.CreatedAt), UpdatedAt: apiconv.Timestamp(c.UpdatedAt), MessageCount: c.MessageCount,
		TrainingOptIn: c.TrainingOptIn}
}

// SetSessionTraining opts one of the caller's sessions in to (or out of)
// the workspace's fine-tuning.
func (h *Handler) SetSessionTraining(ctx context.Context, req *connect.Request[apiv1.SetSessionTrainingRequest]) (*connect.Response[apiv1.SetSessionTrainingResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	c, err := h.svc.SetSessionTraining(ctx, p, req.Msg.SessionId, req.Msg.TrainingOptIn)
	if err != nil {
		return nil, err
	}
	msg := "Session opted out of fine-tuning"
	if c.TrainingOptIn {
		msg = "Session opted in to fine-tuning"
	}
	return connect.NewResponse(&apiv1.SetSessionTrainingResponse{Message: msg, Session: sessionProto(c)}), nil
}

// GetAssistantContext returns the workspace summary the agent starts from.
func (h *Handler) GetAssistantContext(ctx context.Context, req *connect.Request[apiv1.GetAssistantContextRequest]) (*connect.Response[apiv1.GetAssistantContextResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	sum, err := h.svc.Summary(ctx, p)
	if err != nil {
		return nil, err
	}
	data := &apiv1.AssistantContext{
		Workspace:   &apiv1.ContextWorkspace{Name: p.WorkspaceName, Plan: p.Plan, Website: p.Website},
		BrandVoices: []*apiv1.ContextVoice{},
		Schedules:   &apiv1.ContextSchedules{Pending: sum.Schedules.Pending, PublishedLast30D: sum.Schedules.Published, FailedLast30D: sum.Schedules.Failed},
		Credits:     &apiv1.ContextCredits{Used: int64(sum.Used), Limit: int64(sum.Limit)},
	}
	data.Documents = make([]*apiv1.ContextDocument, 0, len(sum.Documents))
	for _, d := range sum.Documents {
		data.Documents = append(data.Documents, &apiv1.ContextDocument{Id: d.ID, Title: d.Title, Kind: d.Kind, Date: apiconv.Timestamp(d.Date), Link: d.Link})
	}
	for _, v := range sum.Voices {
		data.BrandVoices = append(data.BrandVoices, &apiv1.ContextVoice{Id: v.ID, Name: v.Name, Type: v.Type})
	}
	if v := sum.Visibility; v != nil {
		data.Visibility = &apiv1.ContextVisibility{Score: v.Score, ShareOfVoice: v.ShareOfVoice, Understanding: v.Understanding, CreatedAt: apiconv.Timestamp(v.CreatedAt)}
	}
	if t := sum.Traffic; t != nil {
		data.Traffic = &apiv1.ContextTraffic{Days: t.Days, AiVisits: t.AIVisits, TopSources: []*apiv1.ContextTrafficSource{}}
		for _, src := range t.TopSources {
			data.Traffic.TopSources = append(data.Traffic.TopSources, &apiv1.ContextTrafficSource{Source: src.Source, Name: src.Name, Visits: src.Visits})
		}
	}
	return connect.NewResponse(&apiv1.GetAssistantContextResponse{Message: "Context fetched", Data: data}), nil
}

// ListSessions lists the caller's sessions, 10 per page.
func (h *Handler) ListSessions(ctx context.Context, req *connect.Request[apiv1.ListSessionsRequest]) (*connect.Response[apiv1.ListSessionsResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	list, total, err := h.svc.ListSessions(ctx, p, int(req.Msg.Skip))
	if err != nil {
		return nil, err
	}
	out := &apiv1.ListSessionsResponse{Message: "Sessions fetched", ChatHistory: []*apiv1.ChatSession{}, Total: int64(total)}
	for _, c := range list {
		out.ChatHistory = append(out.ChatHistory, sessionProto(c))
	}
	return connect.NewResponse(out), nil
}

// GetLatestSession returns the caller's most recent session's blocks.
func (h *Handler) GetLatestSession(ctx context.Context, req *connect.Request[apiv1.GetLatestSessionRequest]) (*connect.Response[apiv1.GetLatestSessionResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	c, blocks, err := h.svc.LatestSession(ctx, p, int(req.Msg.Skip))
	if err != nil {
		return nil, err
	}
	out := &apiv1.GetLatestSessionResponse{Message: "Session fetched", Blocks: blocksProto(blocks)}
	if c == nil {
		out.Message = "No session yet"
	} else {
		out.SessionId = &c.ID
	}
	return connect.NewResponse(out), nil
}

// CreateSession creates a session under a client-generated id.
func (h *Handler) CreateSession(ctx context.Context, req *connect.Request[apiv1.CreateSessionRequest]) (*connect.Response[apiv1.CreateSessionResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	c, created, err := h.svc.CreateSession(ctx, p, req.Msg.SessionId)
	if err != nil {
		return nil, err
	}
	msg := "Session created"
	if !created {
		msg = "Session already exists"
	}
	return connect.NewResponse(&apiv1.CreateSessionResponse{Message: msg, SessionId: c.ID, Session: sessionProto(c), Created: created}), nil
}

// GetSession returns one of the caller's sessions with a page of blocks.
func (h *Handler) GetSession(ctx context.Context, req *connect.Request[apiv1.GetSessionRequest]) (*connect.Response[apiv1.GetSessionResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	c, blocks, err := h.svc.Session(ctx, p, req.Msg.SessionId, int(req.Msg.Skip))
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.GetSessionResponse{Message: "Session fetched", SessionId: c.ID, Session: sessionProto(c), Blocks: blocksProto(blocks)}), nil
}

// DeleteSession deletes one of the caller's sessions.
func (h *Handler) DeleteSession(ctx context.Context, req *connect.Request[apiv1.DeleteSessionRequest]) (*connect.Response[apiv1.DeleteSessionResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.DeleteSession(ctx, p, req.Msg.SessionId); err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.DeleteSessionResponse{Message: "Session deleted", SessionId: req.Msg.SessionId}), nil
}

// SubmitChatFeedback rates a block of one of the caller's sessions.
func (h *Handler) SubmitChatFeedback(ctx context.Context, req *connect.Request[apiv1.SubmitChatFeedbackRequest]) (*connect.Response[apiv1.FeedbackResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := h.svc.ChatFeedback(ctx, p, ChatFeedbackInput{SessionID: m.SessionId, BlockID: m.BlockId, FeedbackInput: FeedbackInput{Rating: m.Rating, Comment: m.Comment}})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.FeedbackResponse{Message: "Feedback saved", Id: id}), nil
}

// SubmitGenerationFeedback rates a queued or inline generation.
func (h *Handler) SubmitGenerationFeedback(ctx context.Context, req *connect.Request[apiv1.SubmitGenerationFeedbackRequest]) (*connect.Response[apiv1.FeedbackResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := h.svc.GenerationFeedback(ctx, p, GenerationFeedbackInput{JobID: m.GetJobId(), GenerationID: m.GetGenerationId(), FeedbackInput: FeedbackInput{Rating: m.Rating, Comment: m.Comment}})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&apiv1.FeedbackResponse{Message: "Feedback saved", Id: id}), nil
}

// GetFineTuningJob returns the workspace's latest fine-tuning job or null.
func (h *Handler) GetFineTuningJob(ctx context.Context, req *connect.Request[apiv1.GetFineTuningJobRequest]) (*connect.Response[apiv1.GetFineTuningJobResponse], error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	j, err := h.svc.FineTuningJob(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &apiv1.GetFineTuningJobResponse{Message: "No fine-tuning job"}
	if j != nil {
		out.Message = "Fine-tuning job fetched"
		out.Data = &apiv1.FineTuningJob{Id: j.ID, Provider: j.Provider, BaseModel: j.BaseModel, Status: j.Status,
			FineTunedModel: j.FineTunedModel, CreatedAt: apiconv.Timestamp(j.CreatedAt), Error: j.Error}
		if j.FinishedAt != nil {
			out.Data.FinishedAt = apiconv.Timestamp(*j.FinishedAt)
		}
	}
	return connect.NewResponse(out), nil
}
