package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// TestJobPolling drives GET /v1/ai/generate/job/{jobId} and JobService.GetJob
// through the real API server.
func TestJobPolling(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		b := setup(t, s)
		q := b.queue(t)
		key, err := auth.CreateKey(ctx, s, "acme", "business", "a@acme.test")
		if err != nil {
			t.Fatal(err)
		}
		otherKey, err := auth.CreateKey(ctx, s, "other", "business", "m@other.test")
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := s.PrincipalByKeyHash(ctx, auth.HashKey(key))
		if err != nil {
			t.Fatal(err)
		}
		srv := apitest.Start(t, api.Deps{Store: s, Jobs: jobs.NewAPIHandler(q)})

		q.Register("ai_tool_content", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
			return map[string]any{"text": "done", "tokens": 12}, nil
		}), jobs.HandlerOptions{})
		start(t, q)
		done, err := q.Enqueue(ctx, jobs.NewJob{Workspace: p.Workspace.ID, Queue: jobs.AIQueue, Name: "ai_tool_content", Data: map[string]any{"prompt": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		waiting, err := q.Enqueue(ctx, jobs.NewJob{Workspace: p.Workspace.ID, Queue: jobs.SEOQueue, Name: "report", RunAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		testwait.For(t, 30*time.Second, "job completed", func() bool {
			j, err := q.Get(ctx, p.Workspace.ID, done)
			return err == nil && jobs.StateOf(j) == jobs.StateCompleted
		})

		get := func(key, id string) (int, map[string]any) {
			r := srv.Do(t, "GET", "/v1/ai/generate/job/"+id, key, "")
			return r.Status, r.Numbers(t)
		}

		cases := []struct {
			name  string
			check func(t *testing.T)
		}{
			{"a completed job has every SPEC field, times as integers", func(t *testing.T) {
				status, body := get(key, done)
				if status != 200 {
					t.Fatalf("status %d: %v", status, body)
				}
				for _, k := range []string{"jobId", "name", "state", "progress", "result", "failedReason", "attemptsMade", "processedOn", "finishedOn", "data", "queue"} {
					if _, ok := body[k]; !ok {
						t.Errorf("field %s missing: %v", k, body)
					}
				}
				if body["jobId"] != done || body["name"] != "ai_tool_content" || body["state"] != "completed" || body["queue"] != "aiQueue" ||
					body["progress"] != json.Number("100") || body["attemptsMade"] != json.Number("1") || body["failedReason"] != nil {
					t.Fatalf("job: %v", body)
				}
				for _, k := range []string{"processedOn", "finishedOn"} {
					n, ok := body[k].(json.Number)
					if _, err := n.Int64(); !ok || err != nil {
						t.Fatalf("%s is not an integer: %#v", k, body[k])
					}
				}
				if r := body["result"].(map[string]any); r["text"] != "done" || r["tokens"] != json.Number("12") {
					t.Fatalf("result: %v", body["result"])
				}
				if d := body["data"].(map[string]any); d["prompt"] != "hi" {
					t.Fatalf("data: %v", body["data"])
				}
			}},
			{"a waiting job has null result and times", func(t *testing.T) {
				status, body := get(key, waiting)
				if status != 200 || body["state"] != "delayed" || body["result"] != nil || body["processedOn"] != nil ||
					body["finishedOn"] != nil || body["attemptsMade"] != json.Number("0") {
					t.Fatalf("status %d: %v", status, body)
				}
			}},
			{"an unknown job is 404 with its id", func(t *testing.T) {
				status, body := get(key, "no-such-job")
				if status != 404 || body["jobId"] != "no-such-job" || !nonEmptyString(body["message"]) {
					t.Fatalf("status %d: %v", status, body)
				}
			}},
			{"a job of another workspace is 404 like an unknown one", func(t *testing.T) {
				status, body := get(otherKey, done)
				if status != 404 || body["jobId"] != done {
					t.Fatalf("status %d: %v", status, body)
				}
			}},
			{"polling needs an api key", func(t *testing.T) {
				if status, _ := get("", done); status != 401 {
					t.Fatalf("status %d", status)
				}
			}},
			{"the Connect face returns the same job", func(t *testing.T) {
				client := apiv1connect.NewJobServiceClient(http.DefaultClient, srv.URL)
				req := connect.NewRequest(&apiv1.GetJobRequest{JobId: done})
				req.Header().Set("api-key", key)
				res, err := client.GetJob(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if res.Msg.State != "completed" || res.Msg.GetFinishedOn() == 0 || res.Msg.Result.Fields["text"].GetStringValue() != "done" {
					t.Fatalf("job: %v", res.Msg)
				}
				req = connect.NewRequest(&apiv1.GetJobRequest{JobId: "nope"})
				req.Header().Set("api-key", key)
				_, err = client.GetJob(ctx, req)
				var ce *connect.Error
				if !errors.As(err, &ce) || ce.Code() != connect.CodeNotFound {
					t.Fatalf("unknown job: %v", err)
				}
			}},
		}
		for _, tc := range cases {
			t.Run(tc.name, tc.check)
		}
	})
}

// nonEmptyString reports whether a decoded JSON field is present, a
// string, and not empty (a missing field is nil, which "" would not catch).
func nonEmptyString(v any) bool {
	s, ok := v.(string)
	return ok && s != ""
}
