package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// Summary is the workspace context the agent starts from; parts whose
// feature has no data (or is not wired) are nil.
type Summary struct {
	Workspace  auth.Principal
	Voices     []ContextVoice
	Visibility *VisibilitySnapshot
	Traffic    *TrafficSummary
	Schedules  ScheduleCounts
	Used       int
	Limit      int
}

// ContextVoice is a brand voice the caller can use.
type ContextVoice struct {
	ID, Name, Type string
}

// ScheduleCounts are the workspace's pending schedules and those published
// and failed in the last 30 days.
type ScheduleCounts struct {
	Pending, Published, Failed int64
}

// TrafficSummary is the last 30 days of AI traffic.
type TrafficSummary struct {
	Days       int32
	AIVisits   int64
	TopSources []TrafficSource
}

// TrafficSource is one AI source's visits.
type TrafficSource struct {
	Source, Name string
	Visits       int64
}

const summaryDays = 30

// Summary builds the caller's workspace context.
func (s *Service) Summary(ctx context.Context, p auth.Principal) (Summary, error) {
	plan, _ := s.plans.Get(p.Plan)
	sum := Summary{Workspace: p, Limit: plan.MonthlyAICredits}
	var err error
	if s.voices != nil {
		list, err := s.voices.List(ctx, p)
		if err != nil {
			return sum, err
		}
		sum.Voices = make([]ContextVoice, len(list))
		for i, v := range list {
			sum.Voices[i] = ContextVoice{ID: v.ID, Name: v.Name, Type: v.Type}
		}
	}
	if s.visibility != nil {
		if sum.Visibility, err = s.visibility(ctx, p); err != nil {
			return sum, err
		}
	}
	if s.traffic != nil {
		days := int32(summaryDays)
		r, err := s.traffic.Stats(ctx, p, traffic.StatsQuery{Days: &days})
		var ce *connect.Error
		switch {
		case errors.As(err, &ce) && ce.Code() == connect.CodeNotFound:
			// no site yet: null
		case err != nil:
			return sum, err
		default:
			t := &TrafficSummary{Days: days, TopSources: []TrafficSource{}}
			t.AIVisits = r.Totals.AIVisits
			for i, src := range r.Sources {
				if i == 5 {
					break
				}
				t.TopSources = append(t.TopSources, TrafficSource{src.Source, src.Name, src.Visits})
			}
			sum.Traffic = t
		}
	}
	since := s.now().Add(-summaryDays * 24 * time.Hour).UnixMilli()
	counts, err := s.store.CountSchedules(ctx, p.WorkspaceID, since)
	if err != nil {
		return sum, err
	}
	sum.Schedules = ScheduleCounts{Pending: counts.Pending, Published: counts.Published, Failed: counts.Failed}
	if sum.Used, err = s.store.CreditsUsed(ctx, p.WorkspaceID, s.quota.Month()); err != nil {
		return sum, err
	}
	return sum, nil
}

// summaryJSON is the summary as the model reads it.
func summaryJSON(sum Summary) map[string]any {
	voices := make([]map[string]any, 0, len(sum.Voices))
	for _, v := range sum.Voices {
		voices = append(voices, map[string]any{"id": v.ID, "name": v.Name, "type": v.Type})
	}
	out := map[string]any{
		"workspace":   map[string]any{"name": sum.Workspace.WorkspaceName, "plan": sum.Workspace.Plan, "website": sum.Workspace.Website},
		"brandVoices": voices,
		"visibility":  nil,
		"traffic":     nil,
		"schedules":   map[string]any{"pending": sum.Schedules.Pending, "publishedLast30d": sum.Schedules.Published, "failedLast30d": sum.Schedules.Failed},
		"credits":     map[string]any{"used": sum.Used, "limit": sum.Limit},
	}
	if v := sum.Visibility; v != nil {
		out["visibility"] = map[string]any{"score": v.Score, "shareOfVoice": v.ShareOfVoice, "understanding": v.Understanding}
	}
	if t := sum.Traffic; t != nil {
		out["traffic"] = map[string]any{"days": t.Days, "aiVisits": t.AIVisits, "topSources": t.TopSources}
	}
	return out
}

// confirm runs a proposal's action once: the token is claimed first (a
// second confirmation is 409), and released again if the action fails so
// that the user can fix the cause and confirm again.
func (s *Service) confirm(ctx context.Context, p auth.Principal, sessionID, token string) (Reply, error) {
	if _, err := s.ownSession(ctx, p, sessionID); err != nil {
		return Reply{}, err
	}
	prop, err := s.store.ClaimProposal(ctx, p.WorkspaceID, sessionID, token)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Reply{}, apierr.NotFound("no proposal with this confirm token in session %s", sessionID)
	case errors.Is(err, store.ErrAlreadyConfirmed):
		return Reply{}, apierr.Conflict("this proposal was already confirmed")
	case err != nil:
		return Reply{}, err
	}
	release := func() {
		if err := s.store.ReleaseProposal(context.WithoutCancel(ctx), p.WorkspaceID, sessionID, token); err != nil {
			s.log.Error("release proposal", "workspace", p.WorkspaceID, "error", err)
		}
	}
	if prop.Action == nil || prop.Args == nil {
		release()
		return Reply{}, apierr.Unavailable("this proposal's action is not available on this host")
	}
	name := *prop.Action
	var result map[string]any
	var text string
	switch {
	case name == "schedule_content" && s.scheduler != nil:
		var a scheduleArgs
		if err := json.Unmarshal([]byte(*prop.Args), &a); err != nil {
			release()
			return Reply{}, fmt.Errorf("proposal arguments: %w", err)
		}
		yes := true
		sc, err := s.scheduler.Create(ctx, p, schedule.NewSchedule{ExportTo: a.ExportTo, Title: a.Title, Text: a.Text, Body: a.Content,
			WhenToExport: a.WhenToExport, Status: a.Status, WebhookID: a.WebhookID, Confirm: &yes})
		if err != nil {
			release()
			return Reply{}, err
		}
		result = map[string]any{"confirmed": true, "scheduleId": sc.ID, "status": sc.Status, "exportTo": sc.ExportTo}
		text = fmt.Sprintf("Confirmed: schedule %s (%s to %s).", sc.ID, sc.Status, sc.ExportTo)
	case name == "generate_image" && s.images != nil:
		var a imageArgs
		if err := json.Unmarshal([]byte(*prop.Args), &a); err != nil {
			release()
			return Reply{}, fmt.Errorf("proposal arguments: %w", err)
		}
		img, err := s.images.GenerateImage(ctx, p, a.input())
		if err != nil {
			release()
			return Reply{}, err
		}
		result = map[string]any{"confirmed": true, "url": img.URL, "model": img.Model, "size": img.Size, "quality": img.Quality}
		text = fmt.Sprintf("Confirmed: image generated at %s.", img.URL)
	default:
		release()
		return Reply{}, apierr.Unavailable("this proposal's action is not available on this host")
	}
	body, _ := json.Marshal(result)
	t := &turn{p: p, session: sessionID}
	t.add(Block{Role: RoleTool, Type: TypeToolResult, Content: string(body), ToolName: &name})
	t.add(Block{Role: RoleAssistant, Type: TypeText, Content: jsonString(text)})
	if t.blocks, err = s.appendBlocks(ctx, p, sessionID, "", "", t.blocks); err != nil {
		// The action happened and the token stays claimed; only the
		// record of it in the session is missing.
		s.log.Error("record confirmation", "workspace", p.WorkspaceID, "action", name, "error", err)
	}
	return Reply{SessionID: sessionID, Text: text, Blocks: t.blocks}, nil
}

// Ratings of feedback.
var Ratings = []string{"up", "down"}

// FeedbackInput is a rating and its optional comment.
type FeedbackInput struct {
	Rating  string
	Comment *string
}

func (in FeedbackInput) validate() error {
	if in.Rating != "up" && in.Rating != "down" {
		return apierr.Invalid("rating must be up or down, got %q", in.Rating)
	}
	if in.Comment != nil && len([]rune(*in.Comment)) > MaxCommentChars {
		return apierr.Invalid("comment is longer than %d characters", MaxCommentChars)
	}
	return nil
}

// ChatFeedbackInput rates a block of one of the caller's sessions.
type ChatFeedbackInput struct {
	SessionID, BlockID string
	FeedbackInput
}

func (in ChatFeedbackInput) validate() error {
	if strings.TrimSpace(in.SessionID) == "" {
		return apierr.Invalid("sessionId is required")
	}
	if strings.TrimSpace(in.BlockID) == "" {
		return apierr.Invalid("blockId is required")
	}
	return in.FeedbackInput.validate()
}

// GenerationFeedbackInput rates a queued (JobID) or inline (GenerationID)
// generation.
type GenerationFeedbackInput struct {
	JobID, GenerationID string
	FeedbackInput
}

func (in GenerationFeedbackInput) validate() error {
	if (in.JobID == "") == (in.GenerationID == "") {
		return apierr.Invalid("send exactly one of jobId and generationId")
	}
	return in.FeedbackInput.validate()
}

// ChatFeedback rates a block of one of the caller's sessions.
func (s *Service) ChatFeedback(ctx context.Context, p auth.Principal, in ChatFeedbackInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	ok, err := s.store.ChatBlockOwned(ctx, p.WorkspaceID, p.UserID, in.SessionID, in.BlockID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", apierr.NotFound("block %s not found in session %s", in.BlockID, in.SessionID)
	}
	return s.saveFeedback(ctx, p, store.FeedbackChatBlock, in.BlockID, in.FeedbackInput)
}

// GenerationFeedback rates a queued (jobId) or inline (generationId)
// generation of the caller's workspace.
func (s *Service) GenerationFeedback(ctx context.Context, p auth.Principal, in GenerationFeedbackInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if in.JobID != "" {
		_, err := s.store.GetJob(ctx, p.WorkspaceID, in.JobID)
		if errors.Is(err, store.ErrNotFound) {
			return "", apierr.NotFound("job %s not found", in.JobID)
		}
		if err != nil {
			return "", err
		}
		return s.saveFeedback(ctx, p, store.FeedbackJob, in.JobID, in.FeedbackInput)
	}
	ok, err := s.store.GenerationExists(ctx, p.WorkspaceID, in.GenerationID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", apierr.NotFound("generation %s not found", in.GenerationID)
	}
	return s.saveFeedback(ctx, p, store.FeedbackGeneration, in.GenerationID, in.FeedbackInput)
}

func (s *Service) saveFeedback(ctx context.Context, p auth.Principal, kind, target string, in FeedbackInput) (string, error) {
	f := store.Feedback{WorkspaceID: p.WorkspaceID, UserID: p.UserID, TargetKind: kind, TargetID: target, Rating: in.Rating, Comment: in.Comment}
	if err := s.store.InsertFeedback(ctx, &f); err != nil {
		return "", err
	}
	s.met.feedback.WithLabelValues(kind, in.Rating).Inc()
	return f.ID, nil
}
