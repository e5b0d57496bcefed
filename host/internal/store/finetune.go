package store

import "context"

// TunedModel is a workspace's newest fine-tuned model: the job that
// produced it and the workspace's name (ft:<name> routes to it).
type TunedModel struct {
	WorkspaceName string
	Provider      string
	Model         string
}

// LatestTunedModel returns the model of the workspace's newest succeeded
// fine-tuning job, or ErrNotFound when no job of the workspace succeeded.
func (s *Store) LatestTunedModel(ctx context.Context, workspaceID string) (TunedModel, error) {
	var m TunedModel
	err := s.queryRow(ctx, `SELECT w.name, j.provider, j.fine_tuned_model FROM fine_tuning_jobs j
		JOIN workspaces w ON w.id = j.workspace_id
		WHERE j.workspace_id = $1 AND j.status = 'succeeded' AND j.fine_tuned_model IS NOT NULL AND j.fine_tuned_model <> ''
		ORDER BY j.created_at DESC, j.id DESC LIMIT 1`, workspaceID).Scan(&m.WorkspaceName, &m.Provider, &m.Model)
	return m, err
}
