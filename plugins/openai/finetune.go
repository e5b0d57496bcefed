package openai

import (
	"bytes"
	"context"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"

	"github.com/heraldhq/herald/sdk"
)

// trainingFileName is the name the training file is uploaded under; OpenAI
// wants the .jsonl extension for fine-tuning files.
const trainingFileName = "herald-training.jsonl"

// StartFineTune uploads the JSONL training file (POST /v1/files,
// purpose=fine-tune) and starts a job on it (POST /v1/fine_tuning/jobs).
func (p *Provider) StartFineTune(ctx context.Context, req sdk.FineTuneRequest) (sdk.FineTuneJob, error) {
	if !p.d.FineTuning {
		return sdk.FineTuneJob{}, sdk.Errorf(sdk.CodeUnimplemented, "%s does not fine-tune models", p.d.Name)
	}
	if strings.TrimSpace(req.BaseModel) == "" {
		return sdk.FineTuneJob{}, sdk.Errorf(sdk.CodeInvalidArgument, "%s: a base model is required", p.d.Name)
	}
	if len(req.TrainingFile) == 0 {
		return sdk.FineTuneJob{}, sdk.Errorf(sdk.CodeInvalidArgument, "%s: the training file is empty", p.d.Name)
	}
	client, err := p.client()
	if err != nil {
		return sdk.FineTuneJob{}, err
	}
	file, err := client.Files.New(ctx, oai.FileNewParams{
		File:    oai.File(bytes.NewReader(req.TrainingFile), trainingFileName, "application/jsonl"),
		Purpose: oai.FilePurposeFineTune,
	})
	if err != nil {
		return sdk.FineTuneJob{}, p.mapError("file upload", err)
	}
	params := oai.FineTuningJobNewParams{Model: oai.FineTuningJobNewParamsModel(req.BaseModel), TrainingFile: file.ID}
	if req.Suffix != "" {
		params.Suffix = oai.String(req.Suffix)
	}
	job, err := client.FineTuning.Jobs.New(ctx, params)
	if err != nil {
		return sdk.FineTuneJob{}, p.mapError("fine-tuning job", err)
	}
	return fineTuneJob(job), nil
}

// GetFineTune reads a job (GET /v1/fine_tuning/jobs/{id}).
func (p *Provider) GetFineTune(ctx context.Context, id string) (sdk.FineTuneJob, error) {
	if !p.d.FineTuning {
		return sdk.FineTuneJob{}, sdk.Errorf(sdk.CodeUnimplemented, "%s does not fine-tune models", p.d.Name)
	}
	if strings.TrimSpace(id) == "" {
		return sdk.FineTuneJob{}, sdk.Errorf(sdk.CodeInvalidArgument, "%s: a fine-tuning job id is required", p.d.Name)
	}
	client, err := p.client()
	if err != nil {
		return sdk.FineTuneJob{}, err
	}
	job, err := client.FineTuning.Jobs.Get(ctx, id)
	if err != nil {
		return sdk.FineTuneJob{}, p.mapError("fine-tuning job", err)
	}
	return fineTuneJob(job), nil
}

func fineTuneJob(j *oai.FineTuningJob) sdk.FineTuneJob {
	out := sdk.FineTuneJob{ID: j.ID, Status: fineTuneStatus(j.Status), FineTunedModel: j.FineTunedModel, Error: j.Error.Message}
	if j.Error.Code != "" && j.Error.Message != "" {
		out.Error = j.Error.Code + ": " + j.Error.Message
	}
	if j.CreatedAt > 0 {
		out.CreatedAt = time.Unix(j.CreatedAt, 0).UTC()
	}
	if j.FinishedAt > 0 {
		out.FinishedAt = time.Unix(j.FinishedAt, 0).UTC()
	}
	return out
}

// fineTuneStatus maps OpenAI's job status to the SDK's. A status OpenAI may
// add later counts as running: the host keeps asking until a final one.
func fineTuneStatus(s oai.FineTuningJobStatus) string {
	switch s {
	case oai.FineTuningJobStatusValidatingFiles:
		return sdk.FineTuneValidatingFiles
	case oai.FineTuningJobStatusQueued:
		return sdk.FineTuneQueued
	case oai.FineTuningJobStatusSucceeded:
		return sdk.FineTuneSucceeded
	case oai.FineTuningJobStatusFailed:
		return sdk.FineTuneFailed
	case oai.FineTuningJobStatusCancelled:
		return sdk.FineTuneCancelled
	default:
		return sdk.FineTuneRunning
	}
}

var _ sdk.FineTuner = (*Provider)(nil)
