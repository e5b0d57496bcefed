package finetune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/finetunestore"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// Plugins starts and reads jobs at provider plugins (*pluginhost.Manager).
type Plugins interface {
	StartFineTune(ctx context.Context, model string, req sdk.FineTuneRequest) (pluginhost.FineTuneStart, error)
	GetFineTune(ctx context.Context, provider, id string) (sdk.FineTuneJob, error)
}

// Deps are the dependencies of a Service.
type Deps struct {
	// Logger: nil → hclog.NewNullLogger().
	Logger hclog.Logger
	// Store is required.
	Store *store.Store
	// Plugins start jobs and refresh their state; nil: Start fails and
	// Latest answers the stored state.
	Plugins Plugins
}

// Service is fine-tuning's domain logic.
type Service struct {
	log     hclog.Logger
	store   *store.Store
	plugins Plugins
}

// New returns the fine-tuning service.
func New(d Deps) (*Service, error) {
	if err := deps.Check("finetune", deps.Need("Store", d.Store == nil)); err != nil {
		return nil, err
	}
	if d.Logger == nil {
		d.Logger = hclog.NewNullLogger()
	}
	return &Service{log: d.Logger.Named("finetune"), store: d.Store, plugins: d.Plugins}, nil
}

// Job is a workspace's fine-tuning job at a provider. Times are epoch
// milliseconds.
type Job struct {
	ID, WorkspaceID, Provider, ProviderJobID, BaseModel, Status string
	FineTunedModel, Error                                       *string
	CreatedAt                                                   int64
	FinishedAt                                                  *int64
}

func jobOf(j finetunestore.FineTuningJob) Job {
	return Job{ID: j.ID, WorkspaceID: j.WorkspaceID, Provider: j.Provider, ProviderJobID: j.ProviderJobID, BaseModel: j.BaseModel,
		Status: j.Status, FineTunedModel: j.FineTunedModel, Error: j.Error, CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt}
}

func (j Job) row() finetunestore.FineTuningJob {
	return finetunestore.FineTuningJob{ID: j.ID, WorkspaceID: j.WorkspaceID, Provider: j.Provider, ProviderJobID: j.ProviderJobID, BaseModel: j.BaseModel,
		Status: j.Status, FineTunedModel: j.FineTunedModel, Error: j.Error, CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt}
}

// finished reports whether a job's status can no longer change.
func finished(status string) bool {
	return status == sdk.FineTuneSucceeded || status == sdk.FineTuneFailed || status == sdk.FineTuneCancelled
}

// Latest returns the workspace's latest fine-tuning job, or nil. An
// unfinished job's status is refreshed from its provider plugin when
// Deps.Plugins is set (and stored); a refresh that fails answers the
// stored status, so the route never fails on the provider's account.
func (s *Service) Latest(ctx context.Context, workspaceID string) (*Job, error) {
	row, err := finetunestore.New(s.store).LatestFineTuningJob(ctx, workspaceID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	j := jobOf(row)
	if s.plugins == nil || finished(j.Status) {
		return &j, nil
	}
	job, err := s.plugins.GetFineTune(ctx, j.Provider, j.ProviderJobID)
	if err != nil {
		s.log.Warn("refresh fine-tuning job", "workspace", workspaceID, "job", j.ID, "error", err)
		return &j, nil
	}
	fresh := apply(j, job)
	if fresh.Status != j.Status || finished(fresh.Status) {
		if err := finetunestore.New(s.store).UpdateFineTuningJob(ctx, fresh.row()); err != nil {
			return nil, err
		}
		j = fresh
	}
	return &j, nil
}

// TrainingFile builds the JSONL training file of a fine-tuning job in the
// chat format OpenAI documents ({"messages": [system, user, assistant]} per
// line) from the workspace's up-rated exchanges in sessions opted in to
// training, with voice as the system message. It returns the file and its
// number of examples.
func (s *Service) TrainingFile(ctx context.Context, workspaceID, voice string) ([]byte, int, error) {
	ex, err := finetunestore.New(s.store).UpRatedExchanges(ctx, workspaceID)
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

// textOf is a stored chat block's text: its content is a JSON string.
func textOf(content string) string {
	var s string
	if json.Unmarshal([]byte(content), &s) == nil {
		return s
	}
	return content
}
