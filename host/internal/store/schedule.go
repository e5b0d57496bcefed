package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/heraldhq/herald/host/internal/events/catalog"
)

// Schedule statuses as stored. Pending and draft are the ones a client
// creates; the publisher moves pending through publishing to published or
// failed; DELETE moves pending to cancelled.
const (
	ScheduleDraft      = "draft"
	SchedulePending    = "pending"
	SchedulePublishing = "publishing"
	SchedulePublished  = "published"
	ScheduleFailed     = "failed"
	ScheduleCancelled  = "cancelled"
)

// ErrScheduleBusy is returned when a schedule cannot be cancelled because an
// attempt is publishing it right now, or it is already published.
var ErrScheduleBusy = errors.New("schedule is being published or already published")

// Schedule is a stored post to export. Content is contentToExport as JSON
// text; it never holds image bytes, only a durable imageUrl.
type Schedule struct {
	ID           string
	WorkspaceID  string
	UserID       string
	ExportTo     string
	Status       string
	WhenToExport *int64
	WebhookID    *string
	Content      string
	ImageKey     *string
	JobID        *string
	Attempts     int
	LastError    *string
	ExternalID   *string
	ExternalURL  *string
	ClaimedAt    *int64
	PublishedAt  *int64
	CreatedAt    int64
	UpdatedAt    int64
	// PostID is the post the schedule is one destination of.
	PostID *string
}

const scheduleColumns = `id, workspace_id, user_id, export_to, status, when_to_export, webhook_id, content, image_key, job_id, attempts, last_error, external_id, external_url, claimed_at, published_at, created_at, updated_at, post_id`

func scanSchedule(r interface{ Scan(...any) error }) (Schedule, error) {
	var s Schedule
	err := r.Scan(&s.ID, &s.WorkspaceID, &s.UserID, &s.ExportTo, &s.Status, &s.WhenToExport, &s.WebhookID, &s.Content, &s.ImageKey,
		&s.JobID, &s.Attempts, &s.LastError, &s.ExternalID, &s.ExternalURL, &s.ClaimedAt, &s.PublishedAt, &s.CreatedAt, &s.UpdatedAt, &s.PostID)
	return s, err
}

// InsertSchedule stores a new schedule through q (nil: the store itself; the
// transaction that also enqueues its publish job). ID and times are set when
// empty. With a Cap it is an *OverCapError, and nothing is written, when the
// workspace already holds cap.Max waiting schedules, counted in q's
// transaction under the workspace lock.
func (s *Store) InsertSchedule(ctx context.Context, q Querier, sc *Schedule, caps ...Cap) error {
	if q == nil {
		if firstCap(caps).Max > 0 {
			return s.Tx(ctx, func(q Querier) error { return s.InsertSchedule(ctx, q, sc, caps...) })
		}
		q = s.b
	}
	if err := s.holdCap(ctx, q, CountSchedules, sc.WorkspaceID, firstCap(caps)); err != nil {
		return fmt.Errorf("create schedule: %w", err)
	}
	if sc.ID == "" {
		sc.ID = NewID()
	}
	now := s.Now()
	if sc.CreatedAt == 0 {
		sc.CreatedAt = now
	}
	sc.UpdatedAt = sc.CreatedAt
	_, err := q.Exec(ctx, `INSERT INTO schedules (`+scheduleColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
		sc.ID, sc.WorkspaceID, sc.UserID, sc.ExportTo, sc.Status, sc.WhenToExport, sc.WebhookID, sc.Content, sc.ImageKey,
		sc.JobID, sc.Attempts, sc.LastError, sc.ExternalID, sc.ExternalURL, sc.ClaimedAt, sc.PublishedAt, sc.CreatedAt, sc.UpdatedAt, sc.PostID)
	if err != nil {
		return fmt.Errorf("create schedule: %w", err)
	}
	return nil
}

// ListSchedules returns a page of the workspace's schedules, newest first,
// and how many the workspace has in all.
func (s *Store) ListSchedules(ctx context.Context, workspaceID string, skip, limit int) ([]Schedule, int, error) {
	var total int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM schedules WHERE workspace_id = $1`, workspaceID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count schedules: %w", err)
	}
	rows, err := s.query(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
		workspaceID, limit, skip)
	if err != nil {
		return nil, 0, fmt.Errorf("list schedules: %w", err)
	}
	defer rows.Close()
	out := []Schedule{}
	for rows.Next() {
		sc, err := scanSchedule(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list schedules: %w", err)
		}
		out = append(out, sc)
	}
	return out, total, rows.Err()
}

// GetSchedule returns a schedule of the workspace, or ErrNotFound (also for
// another workspace's schedule).
func (s *Store) GetSchedule(ctx context.Context, workspaceID, id string) (Schedule, error) {
	return scanSchedule(s.queryRow(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE workspace_id = $1 AND id = $2`, workspaceID, id))
}

// CancelSchedule ends a schedule on behalf of DELETE: a pending one becomes
// cancelled, a draft or a failed one is removed, a cancelled one stays
// cancelled. It returns the schedule as it was and the resulting status
// ("cancelled" or "removed"); ErrScheduleBusy when it is publishing or
// published, ErrNotFound when there is no such schedule in the workspace.
func (s *Store) CancelSchedule(ctx context.Context, workspaceID, id string) (Schedule, string, error) {
	var before Schedule
	var result string
	err := s.Tx(ctx, func(q Querier) error {
		sc, err := scanSchedule(q.QueryRow(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE workspace_id = $1 AND id = $2`+s.ForUpdate(), workspaceID, id))
		if err != nil {
			return err
		}
		before = sc
		switch sc.Status {
		case SchedulePending:
			// Guarded by status: an attempt that claimed the row in the
			// meantime wins, and the cancel is refused.
			n, err := q.Exec(ctx, `UPDATE schedules SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4`,
				ScheduleCancelled, s.Now(), id, SchedulePending)
			if err != nil {
				return fmt.Errorf("cancel schedule: %w", err)
			}
			if n == 0 {
				return ErrScheduleBusy
			}
			result = ScheduleCancelled
		case ScheduleDraft, ScheduleFailed:
			if _, err := q.Exec(ctx, `DELETE FROM schedules WHERE id = $1 AND status = $2`, id, sc.Status); err != nil {
				return fmt.Errorf("remove schedule: %w", err)
			}
			result = "removed"
		case ScheduleCancelled:
			result = ScheduleCancelled
		default:
			return ErrScheduleBusy
		}
		return nil
	})
	return before, result, err
}

// ClaimSchedule moves a pending schedule to publishing for one attempt,
// atomically: of several workers only one wins. It returns the claimed
// schedule (Attempts counts this attempt and guards FinishSchedule) and
// false when the schedule was not pending.
func (s *Store) ClaimSchedule(ctx context.Context, workspaceID, id string) (Schedule, bool, error) {
	now := s.Now()
	sc, err := scanSchedule(s.queryRow(ctx, `UPDATE schedules SET status = $1, attempts = attempts + 1, claimed_at = $2, updated_at = $2
		WHERE workspace_id = $3 AND id = $4 AND status = $5 RETURNING `+scheduleColumns,
		SchedulePublishing, now, workspaceID, id, SchedulePending))
	if errors.Is(err, ErrNotFound) {
		return Schedule{}, false, nil
	}
	if err != nil {
		return Schedule{}, false, fmt.Errorf("claim schedule %s: %w", id, err)
	}
	return sc, true, nil
}

// ReclaimSchedule takes over a schedule left in publishing by an attempt
// that never recorded its outcome (its host died): it counts a new attempt,
// guarded by the attempt count seen, so that of several workers only one
// wins. It returns false when the schedule moved on in the meantime.
func (s *Store) ReclaimSchedule(ctx context.Context, workspaceID, id string, seenAttempts int) (Schedule, bool, error) {
	now := s.Now()
	sc, err := scanSchedule(s.queryRow(ctx, `UPDATE schedules SET attempts = attempts + 1, claimed_at = $1, updated_at = $1
		WHERE workspace_id = $2 AND id = $3 AND status = $4 AND attempts = $5 RETURNING `+scheduleColumns,
		now, workspaceID, id, SchedulePublishing, seenAttempts))
	if errors.Is(err, ErrNotFound) {
		return Schedule{}, false, nil
	}
	if err != nil {
		return Schedule{}, false, fmt.Errorf("reclaim schedule %s: %w", id, err)
	}
	return sc, true, nil
}

// ScheduleOutcome is the end of one publish attempt.
type ScheduleOutcome struct {
	// Status is SchedulePublished, ScheduleFailed, or SchedulePending (a
	// retry will follow).
	Status      string
	ExternalID  string
	ExternalURL string
	// Error is the reason of a failure or of the coming retry.
	Error string
	// Event is written with the outcome, in its transaction, when the
	// attempt still owns the schedule (schedule.published or failed).
	Event *catalog.Event
}

// FinishSchedule records the outcome of the attempt that claimed the
// schedule with attempt number attempt. It returns false when that attempt
// no longer owns the schedule (another worker took it over), in which case
// nothing is written.
func (s *Store) FinishSchedule(ctx context.Context, workspaceID, id string, attempt int, o ScheduleOutcome) (bool, error) {
	now := s.Now()
	var lastErr, extID, extURL *string
	var publishedAt *int64
	if o.Error != "" {
		lastErr = &o.Error
	}
	if o.Status == SchedulePublished {
		extID, extURL, publishedAt = nullable(o.ExternalID), nullable(o.ExternalURL), &now
	}
	var event *Event
	if o.Event != nil {
		event = EventOf(*o.Event)
	}
	owned, err := s.emitTx(ctx, func(q Querier) (bool, error) {
		n, err := q.Exec(ctx, `UPDATE schedules SET status = $1, last_error = COALESCE($2, last_error), external_id = $3, external_url = $4,
		published_at = $5, updated_at = $6 WHERE workspace_id = $7 AND id = $8 AND status = $9 AND attempts = $10`,
			o.Status, lastErr, extID, extURL, publishedAt, now, workspaceID, id, SchedulePublishing, attempt)
		return n == 1, err
	}, event)
	if err != nil {
		return false, fmt.Errorf("record outcome of schedule %s: %w", id, err)
	}
	return owned, nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// FailUnfinishedSchedule marks a pending or publishing schedule failed with
// reason, whoever holds it; the reconciler uses it when the publish job
// failed for good without recording an outcome.
// The event (schedule.failed), when given, is written in the same
// transaction when the schedule was still unfinished.
func (s *Store) FailUnfinishedSchedule(ctx context.Context, workspaceID, id, reason string, event *catalog.Event) error {
	var e *Event
	if event != nil {
		e = EventOf(*event)
	}
	_, err := s.emitTx(ctx, func(q Querier) (bool, error) {
		n, err := q.Exec(ctx, `UPDATE schedules SET status = $1, last_error = $2, updated_at = $3 WHERE workspace_id = $4 AND id = $5 AND status IN ($6, $7)`,
			ScheduleFailed, reason, s.Now(), workspaceID, id, SchedulePending, SchedulePublishing)
		return n > 0, err
	}, e)
	if err != nil {
		return fmt.Errorf("fail schedule %s: %w", id, err)
	}
	return nil
}

// RetrySchedule puts the failed schedule id back to pending at when with
// publish job jobID, through q (the transaction that enqueued the job). It
// reports false when the schedule is not failed (or not in the workspace):
// only a failed post is retried, so a concurrent retry enqueues nothing twice.
func (s *Store) RetrySchedule(ctx context.Context, q Querier, workspaceID, id string, when int64, jobID string) (bool, error) {
	n, err := q.Exec(ctx, `UPDATE schedules SET status = $1, when_to_export = $2, job_id = $3, last_error = NULL, updated_at = $4
		WHERE workspace_id = $5 AND id = $6 AND status = $7`,
		SchedulePending, when, jobID, s.Now(), workspaceID, id, ScheduleFailed)
	if err != nil {
		return false, fmt.Errorf("retry schedule %s: %w", id, err)
	}
	return n == 1, nil
}

// SetScheduleJob records the publish job of an unfinished schedule through
// q (the transaction that enqueued the job).
func (s *Store) SetScheduleJob(ctx context.Context, q Querier, workspaceID, id, jobID string) error {
	if q == nil {
		q = s.b
	}
	_, err := q.Exec(ctx, `UPDATE schedules SET job_id = $1 WHERE workspace_id = $2 AND id = $3 AND status IN ($4, $5)`,
		jobID, workspaceID, id, SchedulePending, SchedulePublishing)
	if err != nil {
		return fmt.Errorf("set job of schedule %s: %w", id, err)
	}
	return nil
}

// ReplaceScheduleJob records jobID as the publish job of an unfinished
// schedule through q, only if its job is still old (nil: none): of two
// reconcilers that found the same orphan, one wins and the other's
// transaction (and the job it enqueued) must roll back, or both jobs would
// export the schedule. It reports whether it replaced the job.
func (s *Store) ReplaceScheduleJob(ctx context.Context, q Querier, workspaceID, id string, old *string, jobID string) (bool, error) {
	if q == nil {
		q = s.b
	}
	var n int64
	var err error
	if old == nil {
		n, err = q.Exec(ctx, `UPDATE schedules SET job_id = $1 WHERE workspace_id = $2 AND id = $3 AND status IN ($4, $5) AND job_id IS NULL`,
			jobID, workspaceID, id, SchedulePending, SchedulePublishing)
	} else {
		n, err = q.Exec(ctx, `UPDATE schedules SET job_id = $1 WHERE workspace_id = $2 AND id = $3 AND status IN ($4, $5) AND job_id = $6`,
			jobID, workspaceID, id, SchedulePending, SchedulePublishing, *old)
	}
	if err != nil {
		return false, fmt.Errorf("replace job of schedule %s: %w", id, err)
	}
	return n == 1, nil
}

// OrphanSchedule is a due, unfinished schedule whose publish job is gone or
// finished: the reconciler either gives it a new job or fails it.
type OrphanSchedule struct {
	ID, WorkspaceID, Status string
	// ExportTo is the schedule's destination.
	ExportTo string
	// JobID is the recorded job, nil when there is none; ReplaceScheduleJob
	// replaces exactly this one.
	JobID *string
	// JobState is the state of the recorded job, "" when there is none.
	JobState string
	// JobReason is the failure reason of a failed job.
	JobReason *string
}

// OrphanSchedules returns up to limit due pending or publishing schedules
// (whenToExport before dueBefore) whose job is missing, completed or failed.
func (s *Store) OrphanSchedules(ctx context.Context, dueBefore int64, limit int) ([]OrphanSchedule, error) {
	rows, err := s.query(ctx, `SELECT s.id, s.workspace_id, s.status, s.export_to, s.job_id, COALESCE(j.state, ''), j.failed_reason
		FROM schedules s LEFT JOIN jobs j ON j.id = s.job_id
		WHERE s.status IN ($1, $2) AND s.when_to_export <= $3 AND (j.id IS NULL OR j.state IN ($4, $5))
		ORDER BY s.when_to_export LIMIT $6`,
		SchedulePending, SchedulePublishing, dueBefore, JobCompleted, JobFailed, limit)
	if err != nil {
		return nil, fmt.Errorf("find orphan schedules: %w", err)
	}
	defer rows.Close()
	var out []OrphanSchedule
	for rows.Next() {
		var o OrphanSchedule
		if err := rows.Scan(&o.ID, &o.WorkspaceID, &o.Status, &o.ExportTo, &o.JobID, &o.JobState, &o.JobReason); err != nil {
			return nil, fmt.Errorf("find orphan schedules: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// RecentPosts returns the workspace's newest drafts and published posts
// of the scheduler, most recently changed first, at most limit.
func (s *Store) RecentPosts(ctx context.Context, workspaceID string, limit int) ([]Schedule, error) {
	rows, err := s.query(ctx, `SELECT `+scheduleColumns+` FROM schedules
		WHERE workspace_id = $1 AND status IN ('draft', 'published')
		ORDER BY updated_at DESC, id DESC LIMIT $2`, workspaceID, limit)
	if err != nil {
		return nil, fmt.Errorf("recent posts: %w", err)
	}
	defer rows.Close()
	var out []Schedule
	for rows.Next() {
		sc, err := scanSchedule(rows)
		if err != nil {
			return nil, fmt.Errorf("recent posts: %w", err)
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

// ScheduleCounts are a workspace's schedules by state for the agent's
// context: pending now, published and failed since a time.
type ScheduleCounts struct {
	Pending, Published, Failed int64
}

// ScheduleCountsSince counts the workspace's pending schedules, and those
// published or failed since (epoch ms).
func (s *Store) ScheduleCountsSince(ctx context.Context, workspaceID string, since int64) (ScheduleCounts, error) {
	var c ScheduleCounts
	err := s.queryRow(ctx, `SELECT
		COALESCE(SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = 'published' AND updated_at >= $2 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = 'failed' AND updated_at >= $2 THEN 1 ELSE 0 END), 0)
		FROM schedules WHERE workspace_id = $1`, workspaceID, since).Scan(&c.Pending, &c.Published, &c.Failed)
	if err != nil {
		return c, fmt.Errorf("count schedules: %w", err)
	}
	return c, nil
}
