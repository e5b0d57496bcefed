package schedule

import (
	"context"
	"fmt"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
)

// PostOutcome is what a post-wide action did to each schedule: the
// schedule's result ("cancelled", "removed", "retried", "moved") or why it
// was left as it was.
type PostOutcome struct {
	ScheduleID string
	Result     string
}

// DeletePost cancels the post's pending schedules and removes its drafts
// and failed ones, as DELETE /v1/scheduler/{id} does for each; a schedule
// being published or already published is left and reported.
func (s *Service) DeletePost(ctx context.Context, p auth.Principal, id string) (Post, []PostOutcome, error) {
	post, err := s.GetPost(ctx, p, id)
	if err != nil {
		return Post{}, nil, err
	}
	var out []PostOutcome
	for _, sc := range post.Schedules {
		result, err := s.Delete(ctx, p, sc.ID)
		if err != nil {
			result = "left: " + errMessage(err)
		}
		out = append(out, PostOutcome{ScheduleID: sc.ID, Result: result})
	}
	after, err := s.GetPost(ctx, p, id)
	if err != nil {
		// Every schedule was removed, and the post with them.
		return Post{ID: id, WorkspaceID: p.WorkspaceID, Status: PostCancelled}, out, nil
	}
	return after, out, nil
}

// RetryPost puts every failed schedule of the post back to pending (at
// when, or now), each as POST /v1/scheduler/{id}/retry does; the others are
// left. 409 when none is failed.
func (s *Service) RetryPost(ctx context.Context, p auth.Principal, id, when string) (Post, []PostOutcome, error) {
	if strings.TrimSpace(when) != "" {
		if _, err := ParseTime(when); err != nil {
			return Post{}, nil, apierr.Invalid("whenToExport %q is not an ISO-8601 time such as 2030-01-02T15:04:05Z", when)
		}
	}
	post, err := s.GetPost(ctx, p, id)
	if err != nil {
		return Post{}, nil, err
	}
	var out []PostOutcome
	retried := 0
	for _, sc := range post.Schedules {
		if sc.Status != StatusFailed {
			out = append(out, PostOutcome{ScheduleID: sc.ID, Result: "left: " + sc.Status.String()})
			continue
		}
		if _, err := s.Retry(ctx, p, sc.ID, when); err != nil {
			out = append(out, PostOutcome{ScheduleID: sc.ID, Result: "left: " + errMessage(err)})
			continue
		}
		retried++
		out = append(out, PostOutcome{ScheduleID: sc.ID, Result: "retried"})
	}
	if retried == 0 {
		return Post{}, nil, apierr.Conflict("post %s has no failed schedule to retry", id)
	}
	post, err = s.GetPost(ctx, p, id)
	return post, out, err
}

// MovePost gives the post a new time (the calendar's drag to another day
// and time): its pending schedules get a new publish job at when in the
// same transaction (the old job finds itself replaced and does nothing),
// its drafts the new time. Schedules already publishing or finished are
// left and reported.
func (s *Service) MovePost(ctx context.Context, p auth.Principal, id, when string) (Post, []PostOutcome, error) {
	post, err := s.GetPost(ctx, p, id)
	if err != nil {
		return Post{}, nil, err
	}
	t, err := ParseTime(when)
	if err != nil {
		return Post{}, nil, apierr.Invalid("whenToExport %q is not an ISO-8601 time such as 2030-01-02T15:04:05Z", when)
	}
	if err := checkWhen(t, time.UnixMilli(s.store.Now())); err != nil {
		return Post{}, nil, err
	}
	at := t.UnixMilli()
	var out []PostOutcome
	moved := 0
	err = s.store.Tx(ctx, func(q store.Querier) error {
		out, moved = nil, 0
		for _, sc := range post.Schedules {
			if sc.Status != StatusPending && sc.Status != StatusDraft {
				out = append(out, PostOutcome{ScheduleID: sc.ID, Result: "left: " + sc.Status.String()})
				continue
			}
			var jobID *string
			if sc.Status == StatusPending {
				id, err := s.queue.EnqueueTx(ctx, q, publishJob(sc.WorkspaceID, sc.ID, at))
				if err != nil {
					return fmt.Errorf("enqueue publish job: %w", err)
				}
				jobID = &id
			}
			ok, err := s.store.MoveSchedule(ctx, q, p.WorkspaceID, sc.ID, at, jobID)
			if err != nil {
				return err
			}
			if !ok {
				return errMovedMeanwhile
			}
			moved++
			out = append(out, PostOutcome{ScheduleID: sc.ID, Result: "moved"})
		}
		if moved == 0 {
			return nil
		}
		return s.store.SetPostTime(ctx, q, p.WorkspaceID, id, at)
	})
	if err == errMovedMeanwhile {
		return Post{}, nil, apierr.Conflict("post %s changed while it was being moved (a schedule started publishing); look again", id)
	}
	if err != nil {
		return Post{}, nil, err
	}
	if moved == 0 {
		return Post{}, nil, apierr.Conflict("post %s has no pending or draft schedule to move", id)
	}
	s.queue.Wake(jobs.ContentQueue)
	post, err = s.GetPost(ctx, p, id)
	return post, out, err
}

var errMovedMeanwhile = fmt.Errorf("a schedule of the post changed meanwhile")

func errMessage(err error) string {
	if ce, ok := err.(*connect.Error); ok {
		return ce.Message()
	}
	return err.Error()
}
