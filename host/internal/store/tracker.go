package store

import (
	"context"
	"errors"
	"fmt"
)

// Tracker is a stored visibility tracker. Input and Engines are JSON
// documents owned by package visibility.
type Tracker struct {
	ID             string
	WorkspaceID    string
	WebsiteURL     string
	Input          string
	Engines        string
	Cadence        string
	Active         bool
	SlotMinute     int
	SlotWeekday    int
	NextRunAt      int64
	LastRunAt      *int64
	LastReportID   *string
	LastLateMs     *int64
	LastSkipAt     *int64
	LastSkipReason *string
	CreatedAt      int64
	UpdatedAt      int64
	// Samples is the tracker's own answers per prompt and engine; nil: the
	// plan's tracker_samples.
	Samples *int
}

const trackerColumns = `id, workspace_id, website_url, input, engines, cadence, active, slot_minute, slot_weekday, next_run_at,
	last_run_at, last_report_id, last_late_ms, last_skip_at, last_skip_reason, created_at, updated_at, samples`

func scanTracker(r interface{ Scan(...any) error }) (Tracker, error) {
	var t Tracker
	err := r.Scan(&t.ID, &t.WorkspaceID, &t.WebsiteURL, &t.Input, &t.Engines, &t.Cadence, &t.Active, &t.SlotMinute, &t.SlotWeekday,
		&t.NextRunAt, &t.LastRunAt, &t.LastReportID, &t.LastLateMs, &t.LastSkipAt, &t.LastSkipReason, &t.CreatedAt, &t.UpdatedAt, &t.Samples)
	return t, err
}

// ErrTrackerCap is returned by CreateTracker and ActivateTracker when the
// workspace already has its plan's number of active trackers.
var ErrTrackerCap = errors.New("active tracker cap reached")

// CreateTracker stores t (ID set when empty) in q's transaction when the
// workspace has fewer than limit active trackers (an inactive tracker is
// not counted). The workspace row is locked first, so two concurrent
// creations cannot both pass the count on PostgreSQL.
func (s *Store) CreateTracker(ctx context.Context, q Querier, t *Tracker, limit int) error {
	if t.ID == "" {
		t.ID = NewID()
	}
	if t.Active {
		if err := s.checkTrackerCap(ctx, q, t.WorkspaceID, "", limit); err != nil {
			return err
		}
	}
	_, err := q.Exec(ctx, `INSERT INTO visibility_trackers (`+trackerColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
		t.ID, t.WorkspaceID, t.WebsiteURL, t.Input, t.Engines, t.Cadence, t.Active, t.SlotMinute, t.SlotWeekday, t.NextRunAt,
		t.LastRunAt, t.LastReportID, t.LastLateMs, t.LastSkipAt, t.LastSkipReason, t.CreatedAt, t.UpdatedAt, t.Samples)
	if err != nil {
		return fmt.Errorf("create tracker: %w", err)
	}
	return nil
}

func (s *Store) checkTrackerCap(ctx context.Context, q Querier, workspaceID, except string, limit int) error {
	var id string
	if err := q.QueryRow(ctx, `SELECT id FROM workspaces WHERE id = $1`+s.ForUpdate(), workspaceID).Scan(&id); err != nil {
		return fmt.Errorf("lock workspace: %w", err)
	}
	var n int
	if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM visibility_trackers WHERE workspace_id = $1 AND active = TRUE AND id <> $2`,
		workspaceID, except).Scan(&n); err != nil {
		return fmt.Errorf("count trackers: %w", err)
	}
	if n >= limit {
		return ErrTrackerCap
	}
	return nil
}

// GetTracker returns a tracker of the workspace, or ErrNotFound (also for
// another workspace's).
func (s *Store) GetTracker(ctx context.Context, workspaceID, id string) (Tracker, error) {
	return scanTracker(s.queryRow(ctx, `SELECT `+trackerColumns+` FROM visibility_trackers WHERE workspace_id = $1 AND id = $2`, workspaceID, id))
}

// ListTrackers returns the workspace's trackers, oldest first.
func (s *Store) ListTrackers(ctx context.Context, workspaceID string) ([]Tracker, error) {
	return s.queryTrackers(ctx, `SELECT `+trackerColumns+` FROM visibility_trackers WHERE workspace_id = $1 ORDER BY created_at, id`, workspaceID)
}

// DueTrackers returns up to limit active trackers whose next slot is at or
// before now, the most overdue first.
func (s *Store) DueTrackers(ctx context.Context, now int64, limit int) ([]Tracker, error) {
	return s.queryTrackers(ctx, `SELECT `+trackerColumns+` FROM visibility_trackers WHERE active = TRUE AND next_run_at <= $1
		ORDER BY next_run_at, id LIMIT $2`, now, limit)
}

func (s *Store) queryTrackers(ctx context.Context, sql string, args ...any) ([]Tracker, error) {
	rows, err := s.query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("list trackers: %w", err)
	}
	defer rows.Close()
	out := []Tracker{}
	for rows.Next() {
		t, err := scanTracker(rows)
		if err != nil {
			return nil, fmt.Errorf("list trackers: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// UpdateTracker writes t's setup (input, engines, cadence, slot, active,
// next slot) in q's transaction. Turning a tracker active checks the cap
// as CreateTracker does. It returns ErrNotFound for another workspace's.
func (s *Store) UpdateTracker(ctx context.Context, q Querier, t Tracker, wasActive bool, limit int) error {
	if t.Active && !wasActive {
		if err := s.checkTrackerCap(ctx, q, t.WorkspaceID, t.ID, limit); err != nil {
			return err
		}
	}
	n, err := q.Exec(ctx, `UPDATE visibility_trackers SET website_url = $3, input = $4, engines = $5, cadence = $6, active = $7,
		slot_minute = $8, slot_weekday = $9, next_run_at = $10, updated_at = $11, samples = $12 WHERE workspace_id = $1 AND id = $2`,
		t.WorkspaceID, t.ID, t.WebsiteURL, t.Input, t.Engines, t.Cadence, t.Active, t.SlotMinute, t.SlotWeekday, t.NextRunAt, t.UpdatedAt, t.Samples)
	if err != nil {
		return fmt.Errorf("update tracker: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteTracker removes a tracker; its runs stay in the history (their
// reports keep the tracker id). ErrNotFound for another workspace's.
func (s *Store) DeleteTracker(ctx context.Context, workspaceID, id string) error {
	return s.Tx(ctx, func(q Querier) error {
		n, err := q.Exec(ctx, `DELETE FROM visibility_trackers WHERE workspace_id = $1 AND id = $2`, workspaceID, id)
		if err != nil {
			return fmt.Errorf("delete tracker: %w", err)
		}
		if n == 0 {
			return ErrNotFound
		}
		_, err = q.Exec(ctx, `DELETE FROM visibility_tracker_runs WHERE workspace_id = $1 AND tracker_id = $2`, workspaceID, id)
		return err
	})
}

// ClaimTrackerSlot claims the tracker's slot (its next_run_at, slot) for
// this transaction: it moves next_run_at to next only if it still is slot
// and the tracker is active, and records the (tracker, slot) row. false
// means another host claimed the slot first (or the tracker was paused or
// changed): the caller must do nothing. Both writes commit or neither, so
// a host that dies mid-claim leaves the slot to the next host.
func (s *Store) ClaimTrackerSlot(ctx context.Context, q Querier, t Tracker, slot, next, now int64, host string) (bool, error) {
	n, err := q.Exec(ctx, `UPDATE visibility_trackers SET next_run_at = $3, updated_at = $4
		WHERE id = $1 AND next_run_at = $2 AND active = TRUE`, t.ID, slot, next, now)
	if err != nil {
		return false, fmt.Errorf("claim tracker slot: %w", err)
	}
	if n != 1 {
		return false, nil
	}
	if _, err := q.Exec(ctx, `INSERT INTO visibility_tracker_runs (tracker_id, slot, workspace_id, started_at, late_ms, host)
		VALUES ($1, $2, $3, $4, $5, $6)`, t.ID, slot, t.WorkspaceID, now, max(0, now-slot), host); err != nil {
		if s.IsConflict(err) {
			return false, nil
		}
		return false, fmt.Errorf("record tracker slot: %w", err)
	}
	return true, nil
}

// RecordTrackerRun notes in q's transaction that the tracker's run of slot
// (0: a run started by hand, no slot row) queued report reportID at
// startedAt, lateMs after its slot.
func (s *Store) RecordTrackerRun(ctx context.Context, q Querier, workspaceID, trackerID string, slot int64, reportID string, startedAt, lateMs int64) error {
	var late *int64 // runs by hand keep the last slot's lateness
	if slot > 0 {
		late = &lateMs
	}
	if _, err := q.Exec(ctx, `UPDATE visibility_trackers SET last_run_at = $3, last_report_id = $4,
		last_late_ms = COALESCE($5, last_late_ms) WHERE workspace_id = $1 AND id = $2`,
		workspaceID, trackerID, startedAt, reportID, late); err != nil {
		return fmt.Errorf("record tracker run: %w", err)
	}
	if slot > 0 {
		if _, err := q.Exec(ctx, `UPDATE visibility_tracker_runs SET report_id = $3 WHERE tracker_id = $1 AND slot = $2`, trackerID, slot, reportID); err != nil {
			return fmt.Errorf("record tracker run: %w", err)
		}
	}
	return nil
}

// RecordTrackerSkip notes that the tracker's slot (0: a run by hand) did
// not run, and why.
func (s *Store) RecordTrackerSkip(ctx context.Context, q Querier, workspaceID, trackerID string, slot, at int64, reason string) error {
	if q == nil {
		q = s.b
	}
	if _, err := q.Exec(ctx, `UPDATE visibility_trackers SET last_skip_at = $3, last_skip_reason = $4 WHERE workspace_id = $1 AND id = $2`,
		workspaceID, trackerID, at, reason); err != nil {
		return fmt.Errorf("record tracker skip: %w", err)
	}
	if slot > 0 {
		if _, err := q.Exec(ctx, `UPDATE visibility_tracker_runs SET skip_reason = $3 WHERE tracker_id = $1 AND slot = $2`, trackerID, slot, reason); err != nil {
			return fmt.Errorf("record tracker skip: %w", err)
		}
	}
	return nil
}

// TrackerSlotRun is one row of visibility_tracker_runs.
type TrackerSlotRun struct {
	TrackerID  string
	Slot       int64
	ReportID   *string
	SkipReason *string
	StartedAt  int64
	LateMs     int64
	Host       string
}

// TrackerSlotRuns lists the slots a tracker ran or skipped, oldest first.
func (s *Store) TrackerSlotRuns(ctx context.Context, workspaceID, trackerID string) ([]TrackerSlotRun, error) {
	rows, err := s.query(ctx, `SELECT tracker_id, slot, report_id, skip_reason, started_at, late_ms, host FROM visibility_tracker_runs
		WHERE workspace_id = $1 AND tracker_id = $2 ORDER BY slot`, workspaceID, trackerID)
	if err != nil {
		return nil, fmt.Errorf("list tracker runs: %w", err)
	}
	defer rows.Close()
	var out []TrackerSlotRun
	for rows.Next() {
		var r TrackerSlotRun
		if err := rows.Scan(&r.TrackerID, &r.Slot, &r.ReportID, &r.SkipReason, &r.StartedAt, &r.LateMs, &r.Host); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TrackerReports returns the tracker's completed runs created at or after
// since, oldest first, plus the last completed run before since (for
// carrying it forward), when there is one.
func (s *Store) TrackerReports(ctx context.Context, workspaceID, trackerID string, since int64) (before *VisibilityReport, runs []VisibilityReport, err error) {
	runs, err = s.queryReports(ctx, `SELECT `+reportColumns+` FROM visibility_reports
		WHERE workspace_id = $1 AND tracker_id = $2 AND state = 'completed' AND created_at >= $3 ORDER BY created_at, id`, workspaceID, trackerID, since)
	if err != nil {
		return nil, nil, err
	}
	prev, err := s.queryReports(ctx, `SELECT `+reportColumns+` FROM visibility_reports
		WHERE workspace_id = $1 AND tracker_id = $2 AND state = 'completed' AND created_at < $3 ORDER BY created_at DESC, id DESC LIMIT 1`,
		workspaceID, trackerID, since)
	if err != nil {
		return nil, nil, err
	}
	if len(prev) == 1 {
		before = &prev[0]
	}
	return before, runs, nil
}

// PreviousCompletedReport returns the completed report of the same series
// created before r: the tracker's previous run for a tracker run, the
// previous history report (not one-off) otherwise; ErrNotFound when none.
func (s *Store) PreviousCompletedReport(ctx context.Context, r VisibilityReport) (VisibilityReport, error) {
	if r.TrackerID != nil {
		return scanReport(s.queryRow(ctx, `SELECT `+reportColumns+` FROM visibility_reports
			WHERE workspace_id = $1 AND tracker_id = $2 AND state = 'completed' AND id <> $3 AND (created_at < $4 OR (created_at = $4 AND id < $3))
			ORDER BY created_at DESC, id DESC LIMIT 1`, r.WorkspaceID, *r.TrackerID, r.ID, r.CreatedAt))
	}
	return scanReport(s.queryRow(ctx, `SELECT `+reportColumns+` FROM visibility_reports
		WHERE workspace_id = $1 AND one_off = FALSE AND tracker_id IS NULL AND state = 'completed' AND id <> $2
		AND (created_at < $3 OR (created_at = $3 AND id < $2)) ORDER BY created_at DESC, id DESC LIMIT 1`, r.WorkspaceID, r.ID, r.CreatedAt))
}

// ReportAnswers returns the prompt answers of the given reports of the
// workspace (the trend's drill-down), in no particular order.
func (s *Store) ReportAnswers(ctx context.Context, workspaceID string, reportIDs []string) ([]VisibilityAnswer, error) {
	out := []VisibilityAnswer{}
	for start := 0; start < len(reportIDs); start += 500 {
		ids := reportIDs[start:min(len(reportIDs), start+500)]
		args := []any{workspaceID}
		in := ""
		for i, id := range ids {
			if i > 0 {
				in += ", "
			}
			args = append(args, id)
			in += fmt.Sprintf("$%d", i+2)
		}
		rows, err := s.query(ctx, `SELECT `+answerColumns+` FROM visibility_answers WHERE workspace_id = $1 AND kind = 'prompt' AND report_id IN (`+in+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("list report answers: %w", err)
		}
		for rows.Next() {
			a, err := scanAnswer(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("list report answers: %w", err)
			}
			out = append(out, a)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
