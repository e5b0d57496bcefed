package agent

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/agentstore"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

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
	ok, err := agentstore.New(s.store).ChatBlockOwned(ctx, p.WorkspaceID, p.UserID, in.SessionID, in.BlockID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", apierr.NotFound("block %s not found in session %s", in.BlockID, in.SessionID)
	}
	return s.saveFeedback(ctx, p, agentstore.FeedbackChatBlock, in.BlockID, in.FeedbackInput)
}

// GenerationFeedback rates a queued (jobId) or inline (generationId)
// generation of the caller's workspace.
func (s *Service) GenerationFeedback(ctx context.Context, p auth.Principal, in GenerationFeedbackInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	if in.JobID != "" {
		err := store.ErrNotFound // a service built without the job queue knows no job
		if s.jobs != nil {
			_, err = s.jobs.Get(ctx, p.WorkspaceID, in.JobID)
		}
		if errors.Is(err, store.ErrNotFound) {
			return "", apierr.NotFound("job %s not found", in.JobID)
		}
		if err != nil {
			return "", err
		}
		return s.saveFeedback(ctx, p, agentstore.FeedbackJob, in.JobID, in.FeedbackInput)
	}
	ok, err := agentstore.New(s.store).GenerationExists(ctx, p.WorkspaceID, in.GenerationID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", apierr.NotFound("generation %s not found", in.GenerationID)
	}
	return s.saveFeedback(ctx, p, agentstore.FeedbackGeneration, in.GenerationID, in.FeedbackInput)
}

func (s *Service) saveFeedback(ctx context.Context, p auth.Principal, kind, target string, in FeedbackInput) (string, error) {
	f := agentstore.Feedback{WorkspaceID: p.WorkspaceID, UserID: p.UserID, TargetKind: kind, TargetID: target, Rating: in.Rating, Comment: in.Comment}
	if err := agentstore.New(s.store).InsertFeedback(ctx, &f); err != nil {
		return "", err
	}
	s.met.feedback.WithLabelValues(kind, in.Rating).Inc()
	return f.ID, nil
}
