package finetune

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/finetunestore"
	"strings"

	"github.com/heraldhq/herald/sdk"
)

// MinExamples is the fewest training examples a job may have: OpenAI
// refuses files with fewer than 10, and a job refused after the upload
// would leave a file behind at the provider for nothing.
const MinExamples = 10

// MaxTrainingFileBytes bounds the training file: it travels to the plugin
// in one gRPC message, capped at sdk.MaxMessageBytes (32 MiB).
const MaxTrainingFileBytes = sdk.MaxMessageBytes - 1<<20

// StartInput names the workspace, the configured model (or alias) to
// fine-tune and the voice used as the examples' system message.
type StartInput struct {
	WorkspaceID, WorkspaceName, Model, Voice string
}

func (in StartInput) validate() error {
	if in.WorkspaceID == "" || in.Model == "" {
		return errors.New("a workspace and a model are required")
	}
	return nil
}

// TooFewExamplesError refuses a job before anything is uploaded.
type TooFewExamplesError struct {
	Workspace string
	Have      int
}

func (e *TooFewExamplesError) Error() string {
	return fmt.Sprintf("workspace %q has %d up-rated chat exchanges in sessions opted in to training; fine-tuning needs at least %d (rate assistant answers up with POST /v1/ai/chat/feedback; each session's owner opts in with PUT /v1/ai/chat/session/{sessionId}/training)",
		e.Workspace, e.Have, MinExamples)
}

// Start builds the workspace's training file, starts a job of in.Model
// through its provider plugin and stores the job as the workspace's latest.
// Nothing is uploaded or stored when the file has too few examples.
func (s *Service) Start(ctx context.Context, in StartInput) (Job, error) {
	if err := in.validate(); err != nil {
		return Job{}, err
	}
	if s.plugins == nil {
		return Job{}, errors.New("no provider plugins to fine-tune with")
	}
	file, n, err := s.TrainingFile(ctx, in.WorkspaceID, in.Voice)
	if err != nil {
		return Job{}, fmt.Errorf("build training file: %w", err)
	}
	if n < MinExamples {
		return Job{}, &TooFewExamplesError{Workspace: in.WorkspaceName, Have: n}
	}
	if len(file) > MaxTrainingFileBytes {
		return Job{}, fmt.Errorf("the training file of workspace %q is %d bytes; the limit is %d", in.WorkspaceName, len(file), MaxTrainingFileBytes)
	}
	started, err := s.plugins.StartFineTune(ctx, in.Model, sdk.FineTuneRequest{BaseModel: in.Model, TrainingFile: file, Suffix: suffix(in.WorkspaceName)})
	if err != nil {
		return Job{}, fmt.Errorf("start fine-tuning of %s: %w", in.Model, err)
	}
	row := apply(Job{
		WorkspaceID: in.WorkspaceID, Provider: started.Provider, ProviderJobID: started.Job.ID,
		BaseModel: started.BaseModel, Status: sdk.FineTuneQueued,
	}, started.Job).row()
	if err := finetunestore.New(s.store).InsertFineTuningJob(ctx, &row); err != nil {
		// The job runs at the provider anyway; say which, so the operator
		// can find it.
		return Job{}, fmt.Errorf("provider %s started job %s but storing it failed: %w", started.Provider, started.Job.ID, err)
	}
	return jobOf(row), nil
}

// apply copies the provider's view of a job onto the stored one.
func apply(j Job, job sdk.FineTuneJob) Job {
	if job.Status != "" {
		j.Status = job.Status
	}
	if job.FineTunedModel != "" {
		m := job.FineTunedModel
		j.FineTunedModel = &m
	}
	if job.Error != "" {
		e := job.Error
		j.Error = &e
	}
	if !job.FinishedAt.IsZero() {
		f := job.FinishedAt.UnixMilli()
		j.FinishedAt = &f
	}
	return j
}

// suffix is the label OpenAI puts in the fine-tuned model's name: the
// workspace name in lowercase letters, digits and dashes, at most 40
// characters (OpenAI allows 64).
func suffix(workspace string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(workspace) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		if b.Len() == 40 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}
