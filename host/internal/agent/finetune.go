package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// FineTuneStatusFunc asks the provider for a job's current state and
// returns it updated (status, fine-tuned model, error, finished time).
// The host wires finetune.StatusFunc: the provider plugin's GetFineTune.
type FineTuneStatusFunc func(ctx context.Context, job store.FineTuningJob) (store.FineTuningJob, error)

// finished reports whether a job's status can no longer change.
func finished(status string) bool {
	return status == "succeeded" || status == "failed" || status == "cancelled"
}

// FineTuningJob returns the workspace's latest fine-tuning job, or nil.
// An unfinished job's status is refreshed from the provider when
// Deps.FineTuneStatus is set (and stored); a refresh that fails answers
// the stored status, so the route never fails on the provider's account.
func (s *Service) FineTuningJob(ctx context.Context, p auth.Principal) (*store.FineTuningJob, error) {
	j, err := s.Store.LatestFineTuningJob(ctx, p.WorkspaceID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if s.FineTuneStatus != nil && !finished(j.Status) {
		fresh, err := s.FineTuneStatus(ctx, j)
		switch {
		case err != nil:
			s.Logger.Warn("refresh fine-tuning job", "workspace", p.WorkspaceID, "job", j.ID, "error", err)
		case fresh.Status != j.Status || finished(fresh.Status):
			fresh.ID, fresh.WorkspaceID = j.ID, j.WorkspaceID
			if err := s.Store.UpdateFineTuningJob(ctx, fresh); err != nil {
				return nil, err
			}
			j = fresh
		}
	}
	return &j, nil
}

// TrainingFile builds the JSONL training file of a fine-tuning job in the
// chat format OpenAI documents ({"messages": [system, user, assistant]} per
// line) from the workspace's up-rated exchanges, with voice as the system
// message. It returns the file and its number of examples.
func (s *Service) TrainingFile(ctx context.Context, workspaceID, voice string) ([]byte, int, error) {
	ex, err := s.Store.UpRatedExchanges(ctx, workspaceID)
	if err != nil {
		return nil, 0, err
	}
	if voice == "" {
		voice = "You are Herald's assistant for this workspace."
	}
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, e := range ex {
		line := struct {
			Messages []msg `json:"messages"`
		}{[]msg{{"system", voice}, {"user", textOf(e.User)}, {"assistant", textOf(e.Assistant)}}}
		if err := enc.Encode(line); err != nil {
			return nil, 0, err
		}
	}
	return buf.Bytes(), len(ex), nil
}
