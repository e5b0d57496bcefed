package jobs

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/jobstore"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// APIHandler serves JobService (job polling) on both API faces.
type APIHandler struct {
	q *Queue
}

var _ apiv1connect.JobServiceHandler = (*APIHandler)(nil)

// NewAPIHandler returns the job-polling API over q.
func NewAPIHandler(q *Queue) *APIHandler { return &APIHandler{q: q} }

// GetJob returns a job of the caller's workspace; an unknown job and a job
// of another workspace are both 404 {message, jobId}.
func (s *APIHandler) GetJob(ctx context.Context, req *connect.Request[apiv1.GetJobRequest]) (*connect.Response[apiv1.Job], error) {
	if s == nil || s.q == nil {
		return nil, apierr.Unavailable("the job queue is not running on this host")
	}
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	id := req.Msg.JobId
	notFound := apierr.New(connect.CodeNotFound, "Job not found", "jobId", id)
	if id == "" {
		return nil, notFound
	}
	j, err := s.q.Get(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(s.toProto(j)), nil
}

func (s *APIHandler) toProto(j jobstore.Job) *apiv1.Job {
	state := StateOf(j)
	// A delayed job whose run time has come is simply waiting for a worker.
	if state == StateDelayed && j.RunAt <= s.q.store.Now() {
		state = StateWaiting
	}
	return &apiv1.Job{
		JobId: j.ID, Name: j.Name, State: string(state), Progress: int32(j.Progress),
		Result: toStruct(j.Result), FailedReason: j.FailedReason, AttemptsMade: int32(j.AttemptsMade),
		ProcessedOn: j.ProcessedOn, FinishedOn: j.FinishedOn, Data: toStruct(&j.Data), Queue: j.Queue,
	}
}

// toStruct parses stored JSON object text; nil or unparsable gives nil.
func toStruct(text *string) *structpb.Struct {
	if text == nil {
		return nil
	}
	st := &structpb.Struct{}
	if err := protojson.Unmarshal([]byte(*text), st); err != nil {
		return nil
	}
	return st
}
