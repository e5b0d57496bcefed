package finetunestore

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
)

// TunedModel is a workspace's newest fine-tuned model: the job that
// produced it and the workspace's name (ft:<name> routes to it).
type TunedModel struct {
	WorkspaceName string
	Provider      string
	Model         string
}

// LatestTunedModel returns the model of the workspace's newest succeeded
// fine-tuning job, or store.ErrNotFound when no job of the workspace succeeded.
func (s *Store) LatestTunedModel(ctx context.Context, workspaceID string) (TunedModel, error) {
	var m TunedModel
	err := s.db.QueryRow(ctx, `SELECT w.name, j.provider, j.fine_tuned_model FROM fine_tuning_jobs j
		JOIN workspaces w ON w.id = j.workspace_id
		WHERE j.workspace_id = $1 AND j.status = 'succeeded' AND j.fine_tuned_model IS NOT NULL AND j.fine_tuned_model <> ''
		ORDER BY j.created_at DESC, j.id DESC LIMIT 1`, workspaceID).Scan(&m.WorkspaceName, &m.Provider, &m.Model)
	return m, err
}

// FineTuningJob is a workspace's fine-tuning job at a provider.
type FineTuningJob struct {
	ID, WorkspaceID, Provider, ProviderJobID, BaseModel, Status string
	FineTunedModel, Error                                       *string
	CreatedAt                                                   int64
	FinishedAt                                                  *int64
}

const fineTuneColumns = `id, workspace_id, provider, provider_job_id, base_model, status, fine_tuned_model, error, created_at, finished_at`

// InsertFineTuningJob stores a started job; ID and time are set when empty.
func (s *Store) InsertFineTuningJob(ctx context.Context, j *FineTuningJob) error {
	if j.ID == "" {
		j.ID = store.NewID()
	}
	if j.CreatedAt == 0 {
		j.CreatedAt = s.db.Now()
	}
	_, err := s.db.Exec(ctx, `INSERT INTO fine_tuning_jobs (`+fineTuneColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		j.ID, j.WorkspaceID, j.Provider, j.ProviderJobID, j.BaseModel, j.Status, j.FineTunedModel, j.Error, j.CreatedAt, j.FinishedAt)
	if err != nil {
		return fmt.Errorf("insert fine-tuning job: %w", err)
	}
	return nil
}

// LatestFineTuningJob returns the workspace's newest fine-tuning job.
func (s *Store) LatestFineTuningJob(ctx context.Context, workspaceID string) (FineTuningJob, error) {
	var j FineTuningJob
	err := s.db.QueryRow(ctx, `SELECT `+fineTuneColumns+` FROM fine_tuning_jobs WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, workspaceID).
		Scan(&j.ID, &j.WorkspaceID, &j.Provider, &j.ProviderJobID, &j.BaseModel, &j.Status, &j.FineTunedModel, &j.Error, &j.CreatedAt, &j.FinishedAt)
	return j, err
}

// UpdateFineTuningJob stores a job's refreshed status.
func (s *Store) UpdateFineTuningJob(ctx context.Context, j FineTuningJob) error {
	_, err := s.db.Exec(ctx, `UPDATE fine_tuning_jobs SET status = $3, fine_tuned_model = $4, error = $5, finished_at = $6
		WHERE workspace_id = $1 AND id = $2`, j.WorkspaceID, j.ID, j.Status, j.FineTunedModel, j.Error, j.FinishedAt)
	if err != nil {
		return fmt.Errorf("update fine-tuning job: %w", err)
	}
	return nil
}

// Exchange is a user message and the assistant answer that followed it.
type Exchange struct {
	User, Assistant string
}

// UpRatedExchanges returns the workspace's chat exchanges whose answer's
// latest rating is up, oldest rating first: the training data of a
// fine-tuning job. Chat sessions are personal, so only sessions whose
// owner opted in (training_opt_in) are read. Contents are the blocks' JSON
// values as stored.
func (s *Store) UpRatedExchanges(ctx context.Context, workspaceID string) ([]Exchange, error) {
	rows, err := s.db.Query(ctx, `SELECT f.rating, b.id, b.session_id, b.seq, b.content FROM feedback f
		JOIN chat_blocks b ON b.id = f.target_id AND b.workspace_id = f.workspace_id
		JOIN chat_sessions c ON c.id = b.session_id AND c.workspace_id = b.workspace_id
		WHERE f.workspace_id = $1 AND f.target_kind = 'chat_block' AND b.role = 'assistant' AND b.type = 'text'
			AND c.training_opt_in
		ORDER BY f.created_at, f.id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("rated blocks: %w", err)
	}
	type rated struct {
		session string
		seq     int64
		content string
		up      bool
	}
	var order []string
	latest := map[string]*rated{}
	for rows.Next() {
		var rating, id string
		var r rated
		if err := rows.Scan(&rating, &id, &r.session, &r.seq, &r.content); err != nil {
			rows.Close()
			return nil, fmt.Errorf("rated blocks: %w", err)
		}
		r.up = rating == "up"
		if _, seen := latest[id]; !seen {
			order = append(order, id)
		}
		latest[id] = &r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []Exchange
	for _, id := range order {
		r := latest[id]
		if !r.up {
			continue
		}
		var user string
		err := s.db.QueryRow(ctx, `SELECT content FROM chat_blocks WHERE workspace_id = $1 AND session_id = $2 AND seq < $3
			AND role = 'user' AND type = 'text' ORDER BY seq DESC LIMIT 1`, workspaceID, r.session, r.seq).Scan(&user)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("exchange question: %w", err)
		}
		out = append(out, Exchange{User: user, Assistant: r.content})
	}
	return out, nil
}

// Store reads and writes the fine-tuning tables of the one schema.
type Store struct{ db *store.Store }

// New returns the fine-tuning queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
