package agent

import (
	"context"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/finetune"
)

// FineTuningJob is the workspace's fine-tuning job as the route shows it.
type FineTuningJob = finetune.Job

// FineTuning answers a workspace's latest fine-tuning job, refreshed from
// its provider while unfinished (*finetune.Service).
type FineTuning interface {
	Latest(ctx context.Context, workspaceID string) (*finetune.Job, error)
}

// FineTuningJob returns the workspace's latest fine-tuning job, or nil
// (package finetune owns the job, its refresh and its training file).
func (s *Service) FineTuningJob(ctx context.Context, p auth.Principal) (*FineTuningJob, error) {
	return s.fineTune.Latest(ctx, p.WorkspaceID)
}
