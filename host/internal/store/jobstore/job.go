package jobstore

import (
	"cmp"
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
	"slices"
	"strings"
)

// Job is a stored queued job. Data and Result hold JSON text.
type Job struct {
	ID           string
	WorkspaceID  string
	Queue        string
	Name         string
	State        string
	Data         string
	Progress     int
	Result       *string
	FailedReason *string
	AttemptsMade int
	MaxAttempts  int
	RunAt        int64
	CreatedAt    int64
	ProcessedOn  *int64
	FinishedOn   *int64
	LeaseOwner   *string
	LeaseUntil   *int64
}

// JobOutcome is the end of one attempt, recorded by FinishJobs. The attempt
// and the lease owner guard the write: an attempt whose lease was taken over
// by another worker records nothing.
type JobOutcome struct {
	ID      string
	Attempt int
	// State is store.JobCompleted, store.JobFailed or JobDelayed (retry at RunAt).
	State  string
	Result *string
	// Reason is the failure message of a failed or retried attempt.
	Reason *string
	RunAt  int64
}

const jobColumns = `id, workspace_id, queue, name, state, data, progress, result, failed_reason, attempts_made, max_attempts, run_at, created_at, processed_on, finished_on, lease_owner, lease_until`

// jobReady selects claimable jobs; it repeats the predicate of the partial
// index jobs_ready so that every backend can use that index.
const jobReady = `state IN ('waiting', 'delayed')`

// maxJobKeys bounds the ids of one IN list of job ids (a power of two:
// inList pads a list to one).
const maxJobKeys = 256

func scanJob(r interface{ Scan(...any) error }) (Job, error) {
	var j Job
	err := r.Scan(&j.ID, &j.WorkspaceID, &j.Queue, &j.Name, &j.State, &j.Data, &j.Progress, &j.Result, &j.FailedReason,
		&j.AttemptsMade, &j.MaxAttempts, &j.RunAt, &j.CreatedAt, &j.ProcessedOn, &j.FinishedOn, &j.LeaseOwner, &j.LeaseUntil)
	return j, err
}

func scanJobs(rows store.Rows, err error) ([]Job, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// InsertJobs stores new jobs through q (nil: the store itself; a transaction
// so that jobs commit atomically with other rows). Each job needs ID,
// WorkspaceID, Queue, Name, State (waiting or delayed), Data, MaxAttempts,
// RunAt and CreatedAt.
func (s *Store) InsertJobs(ctx context.Context, q store.Querier, jobs []Job) error {
	if q == nil {
		q = s.db
	}
	err := store.InsertRows(ctx, q, s.db.Dialect, `INSERT INTO jobs (id, workspace_id, queue, name, state, data, max_attempts, run_at, created_at) VALUES `, 9, len(jobs),
		func(args []any, i int) []any {
			j := jobs[i]
			return append(args, j.ID, j.WorkspaceID, j.Queue, j.Name, j.State, j.Data, j.MaxAttempts, j.RunAt, j.CreatedAt)
		}, "")
	if err != nil {
		return fmt.Errorf("insert %d jobs: %w", len(jobs), err)
	}
	return nil
}

func sortJobs(jobs []Job) {
	slices.SortFunc(jobs, func(a, b Job) int {
		if c := cmp.Compare(a.RunAt, b.RunAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// FinishJobs records the outcomes of attempts leased to owner at now:
// completions in one statement per batch, failures and retries one by one.
// It returns how many outcomes were recorded; an outcome whose lease was
// lost (rescued, re-claimed) is skipped.
func (s *Store) FinishJobs(ctx context.Context, owner string, now int64, outcomes []JobOutcome) (int, error) {
	var done []JobOutcome
	recorded := 0
	for _, o := range outcomes {
		if o.State == store.JobCompleted {
			done = append(done, o)
			continue
		}
		var finished *int64
		if o.State == store.JobFailed {
			finished = &now
		}
		n, err := s.db.Exec(ctx, `UPDATE jobs SET state = $1, run_at = $2, failed_reason = $3, finished_on = $4, lease_owner = NULL, lease_until = NULL
			WHERE id = $5 AND attempts_made = $6 AND lease_owner = $7 AND state = 'active'`,
			o.State, o.RunAt, o.Reason, finished, o.ID, o.Attempt, owner)
		if err != nil {
			return recorded, fmt.Errorf("record %s of job %s: %w", o.State, o.ID, err)
		}
		recorded += int(n)
	}
	// Each row carries the finish time and the owner too, so that every
	// parameter is written in order (see placeholder).
	c, err := store.ValuesRows(ctx, s.db, s.db.Dialect, `WITH done (id, attempt, result, finished, owner) AS (VALUES `,
		[]string{"TEXT", "INTEGER", "TEXT", "BIGINT", "TEXT"}, len(done),
		func(args []any, i int) []any {
			o := done[i]
			return append(args, o.ID, o.Attempt, o.Result, now, owner)
		}, `) UPDATE jobs SET state = 'completed', progress = 100, result = done.result, failed_reason = NULL,
			finished_on = done.finished, lease_owner = NULL, lease_until = NULL
			FROM done WHERE jobs.id = done.id AND jobs.attempts_made = done.attempt AND jobs.lease_owner = done.owner AND jobs.state = 'active'`)
	recorded += int(c)
	if err != nil {
		return recorded, fmt.Errorf("complete %d jobs: %w", len(done), err)
	}
	return recorded, nil
}

// UpdateJobProgress writes progress and, when partial is not nil, a partial
// result of an attempt that owner still holds. store.ErrNotFound when the lease
// is lost.
func (s *Store) UpdateJobProgress(ctx context.Context, owner, id string, attempt, progress int, partial *string) error {
	n, err := s.db.Exec(ctx, `UPDATE jobs SET progress = $1, result = COALESCE($2, result)
		WHERE id = $3 AND attempts_made = $4 AND lease_owner = $5 AND state = 'active'`, progress, partial, id, attempt, owner)
	if err != nil {
		return fmt.Errorf("update progress of job %s: %w", id, err)
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// ExtendJobLeases moves the lease of owner's active jobs ids to until and
// returns the ids it extended: an id missing from them has lost its lease
// (rescued after expiring, then perhaps claimed by another worker).
func (s *Store) ExtendJobLeases(ctx context.Context, owner string, ids []string, until int64) ([]string, error) {
	var extended []string
	err := store.InList(s.db.Dialect, []any{until, owner}, ids, maxJobKeys, func(list string, args []any) error {
		rows, err := s.db.Query(ctx, `UPDATE jobs SET lease_until = `+store.Placeholder(s.db.Dialect, 1)+` WHERE lease_owner = `+store.Placeholder(s.db.Dialect, 2)+
			` AND state = 'active' AND id IN (`+list+`) RETURNING id`, args...)
		if err != nil {
			return err
		}
		extended, err = appendStrings(extended, rows)
		return err
	})
	if err != nil {
		return extended, fmt.Errorf("extend %d job leases: %w", len(ids), err)
	}
	return extended, nil
}

// ReleaseJobs hands owner's active jobs ids back to waiting, runnable at
// now, and takes back the attempt: the worker is stopping, the job did not
// fail. It returns the queues of the released jobs.
func (s *Store) ReleaseJobs(ctx context.Context, owner string, ids []string, now int64) ([]string, error) {
	var queues []string
	err := store.InList(s.db.Dialect, []any{now, owner}, ids, maxJobKeys, func(list string, args []any) error {
		rows, err := s.db.Query(ctx, `UPDATE jobs SET state = 'waiting', attempts_made = attempts_made - 1, run_at = `+store.Placeholder(s.db.Dialect, 1)+
			`, lease_owner = NULL, lease_until = NULL WHERE lease_owner = `+store.Placeholder(s.db.Dialect, 2)+` AND state = 'active' AND id IN (`+list+`) RETURNING queue`, args...)
		if err != nil {
			return err
		}
		queues, err = appendStrings(queues, rows)
		return err
	})
	if err != nil {
		return queues, fmt.Errorf("release %d jobs: %w", len(ids), err)
	}
	return queues, nil
}

func appendStrings(out []string, rows store.Rows) ([]string, error) {
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RescuedJob is a job whose lease expired, as RescueJobs left it.
type RescuedJob struct {
	ID, Queue, State string
}

// RescueJobs returns up to limit active jobs whose lease expired before now
// (their worker died or lost the database) to waiting, or to failed with
// reason when the lost attempt was the last one. The lost attempt counts.
func (s *Store) RescueJobs(ctx context.Context, now int64, reason string, limit int) ([]RescuedJob, error) {
	rows, err := s.db.Query(ctx, `UPDATE jobs SET
			state = CASE WHEN attempts_made >= max_attempts THEN 'failed' ELSE 'waiting' END,
			finished_on = CASE WHEN attempts_made >= max_attempts THEN CAST($1 AS BIGINT) ELSE NULL END,
			failed_reason = $2, run_at = $1, lease_owner = NULL, lease_until = NULL
		WHERE id IN (SELECT id FROM jobs WHERE state = 'active' AND lease_until < $1 LIMIT $3`+s.db.SkipLocked()+`)
		RETURNING id, queue, state`, now, reason, limit)
	if err != nil {
		return nil, fmt.Errorf("rescue jobs: %w", err)
	}
	defer rows.Close()
	var out []RescuedJob
	for rows.Next() {
		var r RescuedJob
		if err := rows.Scan(&r.ID, &r.Queue, &r.State); err != nil {
			return out, fmt.Errorf("rescue jobs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// NextJobRunAt returns the earliest run time of a claimable job of queue,
// or nil when there is none.
func (s *Store) NextJobRunAt(ctx context.Context, queue string) (*int64, error) {
	var at *int64
	if err := s.db.QueryRow(ctx, `SELECT MIN(run_at) FROM jobs WHERE queue = $1 AND `+jobReady, queue).Scan(&at); err != nil {
		return nil, fmt.Errorf("next run time of %s: %w", queue, err)
	}
	return at, nil
}

// GetJob returns a job of the workspace, or store.ErrNotFound (also for a job of
// another workspace).
func (s *Store) GetJob(ctx context.Context, workspaceID, id string) (Job, error) {
	j, err := scanJob(s.db.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1 AND workspace_id = $2`, id, workspaceID))
	if err != nil {
		return j, fmt.Errorf("get job %s: %w", id, err)
	}
	return j, nil
}

// PruneJobs deletes up to limit completed or failed jobs that finished
// before cutoff and returns how many it deleted.
func (s *Store) PruneJobs(ctx context.Context, cutoff int64, limit int) (int, error) {
	n, err := s.db.Exec(ctx, `DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE state IN ('completed', 'failed') AND finished_on < $1 LIMIT $2)`, cutoff, limit)
	if err != nil {
		return 0, fmt.Errorf("prune jobs: %w", err)
	}
	return int(n), nil
}

// JobCount is the number of unfinished jobs of one queue in one state.
type JobCount struct {
	Queue, State string
	Count        int64
}

// CountUnfinishedJobs counts waiting, delayed and active jobs by queue and
// state: the queue depth operators watch.
func (s *Store) CountUnfinishedJobs(ctx context.Context) ([]JobCount, error) {
	rows, err := s.db.Query(ctx, `SELECT queue, state, COUNT(*) FROM jobs WHERE state IN ('waiting', 'delayed', 'active') GROUP BY queue, state`)
	if err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	defer rows.Close()
	var out []JobCount
	for rows.Next() {
		var c JobCount
		if err := rows.Scan(&c.Queue, &c.State, &c.Count); err != nil {
			return nil, fmt.Errorf("count jobs: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Store reads and writes the job queue's tables of the one schema.
type Store struct{ db *store.Store }

// New returns the job queue's queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
