package sdk

import (
	"context"
	"time"

	"github.com/heraldhq/herald/sdk/proto/pluginv1"
)

// FineTuner is implemented by providers that can fine-tune models. It is
// optional: the host discovers it by type assertion, and a plugin without it
// answers [CodeUnimplemented].
type FineTuner interface {
	// StartFineTune uploads the training file and starts a job.
	StartFineTune(ctx context.Context, req FineTuneRequest) (FineTuneJob, error)
	// GetFineTune answers a job's current state.
	GetFineTune(ctx context.Context, id string) (FineTuneJob, error)
}

// FineTuneRequest starts one fine-tuning job.
type FineTuneRequest struct {
	// BaseModel is the model to fine-tune.
	BaseModel string
	// TrainingFile is the JSONL training file, one {"messages": [...]} per line.
	TrainingFile []byte
	// Suffix is an optional label the remote adds to the fine-tuned model's name.
	Suffix string
}

// The statuses of a [FineTuneJob]; the last three are final.
const (
	FineTuneValidatingFiles = "validating_files"
	FineTuneQueued          = "queued"
	FineTuneRunning         = "running"
	FineTuneSucceeded       = "succeeded"
	FineTuneFailed          = "failed"
	FineTuneCancelled       = "cancelled"
)

// FineTuneJob is the state of one fine-tuning job.
type FineTuneJob struct {
	// ID is the remote's job id.
	ID string
	// Status is one of the FineTune* constants.
	Status string
	// FineTunedModel is the model id to call once the job succeeded.
	FineTunedModel string
	// Error is the remote's reason when the job failed.
	Error      string
	CreatedAt  time.Time
	FinishedAt time.Time
}

// StartFineTune asks the plugin to start a fine-tuning job.
func (c *ProviderClient) StartFineTune(ctx context.Context, req FineTuneRequest) (FineTuneJob, error) {
	resp, err := c.rpc.StartFineTune(ctx, &pluginv1.StartFineTuneRequest{BaseModel: req.BaseModel, TrainingFile: req.TrainingFile, Suffix: req.Suffix})
	if err != nil {
		return FineTuneJob{}, errorFromStatus(ctx, "start fine-tune", err)
	}
	return fineTuneJobFromProto(resp), nil
}

// GetFineTune asks the plugin for a fine-tuning job's state.
func (c *ProviderClient) GetFineTune(ctx context.Context, id string) (FineTuneJob, error) {
	resp, err := c.rpc.GetFineTune(ctx, &pluginv1.GetFineTuneRequest{Id: id})
	if err != nil {
		return FineTuneJob{}, errorFromStatus(ctx, "get fine-tune", err)
	}
	return fineTuneJobFromProto(resp), nil
}

var _ FineTuner = (*ProviderClient)(nil)

func (s *providerServer) StartFineTune(ctx context.Context, req *pluginv1.StartFineTuneRequest) (*pluginv1.FineTuneJob, error) {
	ft, ok := s.impl.(FineTuner)
	if !ok {
		return nil, errorToStatus(Errorf(CodeUnimplemented, "this provider does not fine-tune models"))
	}
	job, err := ft.StartFineTune(ctx, FineTuneRequest{BaseModel: req.GetBaseModel(), TrainingFile: req.GetTrainingFile(), Suffix: req.GetSuffix()})
	if err != nil {
		return nil, errorToStatus(err)
	}
	return fineTuneJobToProto(job), nil
}

func (s *providerServer) GetFineTune(ctx context.Context, req *pluginv1.GetFineTuneRequest) (*pluginv1.FineTuneJob, error) {
	ft, ok := s.impl.(FineTuner)
	if !ok {
		return nil, errorToStatus(Errorf(CodeUnimplemented, "this provider does not fine-tune models"))
	}
	job, err := ft.GetFineTune(ctx, req.GetId())
	if err != nil {
		return nil, errorToStatus(err)
	}
	return fineTuneJobToProto(job), nil
}

func fineTuneJobToProto(j FineTuneJob) *pluginv1.FineTuneJob {
	return &pluginv1.FineTuneJob{Id: j.ID, Status: j.Status, FineTunedModel: j.FineTunedModel, Error: j.Error,
		CreatedAt: unixOrZero(j.CreatedAt), FinishedAt: unixOrZero(j.FinishedAt)}
}

func fineTuneJobFromProto(j *pluginv1.FineTuneJob) FineTuneJob {
	return FineTuneJob{ID: j.GetId(), Status: j.GetStatus(), FineTunedModel: j.GetFineTunedModel(), Error: j.GetError(),
		CreatedAt: timeOrZero(j.GetCreatedAt()), FinishedAt: timeOrZero(j.GetFinishedAt())}
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func timeOrZero(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}
