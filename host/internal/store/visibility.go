package store

import (
	"context"
	"fmt"

	"github.com/heraldhq/herald/host/internal/events/catalog"
)

// VisibilityReport is a stored AI visibility report. Input, Engines,
// Brands, Site and Result are JSON documents owned by package visibility.
type VisibilityReport struct {
	ID              string
	WorkspaceID     string
	JobID           *string
	OneOff          bool
	Refresh         bool
	State           string
	WebsiteURL      string
	Input           string
	Engines         string
	Brands          *string
	Site            *string
	Result          *string
	Error           *string
	CreditsMonth    string
	CreditsReserved int
	CreditsSettled  bool
	CreatedAt       int64
	CompletedAt     *int64
	// TrackerID is set on a tracker's runs.
	TrackerID *string
	// Samples is how many times each prompt is asked on each engine, fixed
	// when the report is queued (0 is stored as 1).
	Samples int
	// AnswerPages is set on reports whose prompt answers are saved with
	// their source pages (VisibilityAnswer.Pages): every report created
	// since migration 62. The pages view reads those pages instead of the
	// answers' text; older reports' answers are read as before.
	AnswerPages bool
}

// States of a visibility report.
const (
	ReportQueued    = "queued"
	ReportRunning   = "running"
	ReportCompleted = "completed"
	ReportFailed    = "failed"
)

const reportColumns = `id, workspace_id, job_id, one_off, refresh, state, website_url, input, engines, brands, site, result, error,
	credits_month, credits_reserved, credits_settled, created_at, completed_at, tracker_id, samples, answer_pages`

func scanReport(r interface{ Scan(...any) error }) (VisibilityReport, error) {
	var v VisibilityReport
	err := r.Scan(&v.ID, &v.WorkspaceID, &v.JobID, &v.OneOff, &v.Refresh, &v.State, &v.WebsiteURL, &v.Input, &v.Engines,
		&v.Brands, &v.Site, &v.Result, &v.Error, &v.CreditsMonth, &v.CreditsReserved, &v.CreditsSettled, &v.CreatedAt, &v.CompletedAt, &v.TrackerID, &v.Samples, &v.AnswerPages)
	return v, err
}

// CreateVisibilityReport stores a new queued report; ID and CreatedAt are
// set when empty.
func (s *Store) CreateVisibilityReport(ctx context.Context, q Querier, r *VisibilityReport) error {
	if r.ID == "" {
		r.ID = NewID()
	}
	if r.CreatedAt == 0 {
		r.CreatedAt = s.Now()
	}
	if r.State == "" {
		r.State = ReportQueued
	}
	if r.Samples < 1 {
		r.Samples = 1
	}
	// Every report created from migration 62 on has its prompt answers
	// saved with their pages (the visibility job's save).
	r.AnswerPages = true
	if q == nil {
		q = s.b
	}
	_, err := q.Exec(ctx, `INSERT INTO visibility_reports (`+reportColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
		r.ID, r.WorkspaceID, r.JobID, r.OneOff, r.Refresh, r.State, r.WebsiteURL, r.Input, r.Engines, r.Brands, r.Site, r.Result, r.Error,
		r.CreditsMonth, r.CreditsReserved, r.CreditsSettled, r.CreatedAt, r.CompletedAt, r.TrackerID, r.Samples, r.AnswerPages)
	if err != nil {
		return fmt.Errorf("create visibility report: %w", err)
	}
	return nil
}

// SetVisibilityReportJob sets the job id of a report of the workspace in
// q's transaction (nil q: outside one); another workspace's report is not
// touched.
func (s *Store) SetVisibilityReportJob(ctx context.Context, q Querier, workspaceID, reportID, jobID string) error {
	if q == nil {
		q = s.b
	}
	_, err := q.Exec(ctx, `UPDATE visibility_reports SET job_id = $3 WHERE workspace_id = $1 AND id = $2`, workspaceID, reportID, jobID)
	return err
}

// GetVisibilityReport returns a report of the workspace, or ErrNotFound
// (also for another workspace's report).
func (s *Store) GetVisibilityReport(ctx context.Context, workspaceID, id string) (VisibilityReport, error) {
	return scanReport(s.queryRow(ctx, `SELECT `+reportColumns+` FROM visibility_reports WHERE workspace_id = $1 AND id = $2`, workspaceID, id))
}

// LatestVisibilityReport returns the workspace's newest (oldest when asc)
// completed report of its history (not one-off), or ErrNotFound.
func (s *Store) LatestVisibilityReport(ctx context.Context, workspaceID string, asc bool) (VisibilityReport, error) {
	order := "DESC"
	if asc {
		order = "ASC"
	}
	return scanReport(s.queryRow(ctx, `SELECT `+reportColumns+` FROM visibility_reports
		WHERE workspace_id = $1 AND one_off = FALSE AND state = 'completed' ORDER BY created_at `+order+`, id `+order+` LIMIT 1`, workspaceID))
}

// ListVisibilityReports pages through the workspace's reports, one-off or
// history, newest first.
func (s *Store) ListVisibilityReports(ctx context.Context, workspaceID string, oneOff bool, skip, limit int) ([]VisibilityReport, error) {
	return s.queryReports(ctx, `SELECT `+reportColumns+` FROM visibility_reports WHERE workspace_id = $1 AND one_off = $2
		ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`, workspaceID, oneOff, limit, skip)
}

// CompletedVisibilityReportsSince returns the workspace's completed history
// reports created at or after since, oldest first.
func (s *Store) CompletedVisibilityReportsSince(ctx context.Context, workspaceID string, since int64) ([]VisibilityReport, error) {
	return s.queryReports(ctx, `SELECT `+reportColumns+` FROM visibility_reports
		WHERE workspace_id = $1 AND one_off = FALSE AND state = 'completed' AND created_at >= $2 ORDER BY created_at, id`, workspaceID, since)
}

func (s *Store) queryReports(ctx context.Context, sql string, args ...any) ([]VisibilityReport, error) {
	rows, err := s.query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("list visibility reports: %w", err)
	}
	defer rows.Close()
	out := []VisibilityReport{}
	for rows.Next() {
		r, err := scanReport(rows)
		if err != nil {
			return nil, fmt.Errorf("list visibility reports: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CountVisibilityReports counts the workspace's reports that did not fail
// (free audits are spent by reports that ran or will run); a tracker's
// runs never count as the free audit.
func (s *Store) CountVisibilityReports(ctx context.Context, workspaceID string) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT COUNT(*) FROM visibility_reports WHERE workspace_id = $1 AND state <> 'failed' AND tracker_id IS NULL`, workspaceID).Scan(&n)
	return n, err
}

// VisibilityRefreshes returns the creation times of the workspace's
// refreshes (not failed) after since, oldest first, and the number of
// refreshes in all.
func (s *Store) VisibilityRefreshes(ctx context.Context, workspaceID string, since int64) (times []int64, total int, err error) {
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM visibility_reports WHERE workspace_id = $1 AND refresh = TRUE AND state <> 'failed'`,
		workspaceID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count refreshes: %w", err)
	}
	rows, err := s.query(ctx, `SELECT created_at FROM visibility_reports WHERE workspace_id = $1 AND refresh = TRUE AND state <> 'failed'
		AND created_at > $2 ORDER BY created_at`, workspaceID, since)
	if err != nil {
		return nil, 0, fmt.Errorf("list refreshes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t int64
		if err := rows.Scan(&t); err != nil {
			return nil, 0, err
		}
		times = append(times, t)
	}
	return times, total, rows.Err()
}

// ReportUpdate changes the fields that are not nil.
type ReportUpdate struct {
	JobID, State, Brands, Site, Result, Error *string
	CompletedAt                               *int64
	// Events are written in the update's transaction (report.completed,
	// report.failed, the tracker's events).
	Events []catalog.Event
}

// UpdateVisibilityReport applies u to a report of the workspace.
func (s *Store) UpdateVisibilityReport(ctx context.Context, workspaceID, id string, u ReportUpdate) error {
	events := make([]*Event, len(u.Events))
	for i, e := range u.Events {
		events[i] = EventOf(e)
	}
	_, err := s.emitTx(ctx, func(q Querier) (bool, error) {
		n, err := q.Exec(ctx, `UPDATE visibility_reports SET job_id = COALESCE($3, job_id), state = COALESCE($4, state),
		brands = COALESCE($5, brands), site = COALESCE($6, site), result = COALESCE($7, result), error = COALESCE($8, error),
		completed_at = COALESCE($9, completed_at) WHERE workspace_id = $1 AND id = $2`,
			workspaceID, id, u.JobID, u.State, u.Brands, u.Site, u.Result, u.Error, u.CompletedAt)
		return n == 1, err
	}, events...)
	if err != nil {
		return fmt.Errorf("update visibility report: %w", err)
	}
	return nil
}

// SettleVisibilityCredits marks the report's credits settled and reports
// whether this call did it, so that a refund happens once.
func (s *Store) SettleVisibilityCredits(ctx context.Context, workspaceID, id string) (bool, error) {
	n, err := s.exec(ctx, `UPDATE visibility_reports SET credits_settled = TRUE WHERE workspace_id = $1 AND id = $2 AND credits_settled = FALSE`, workspaceID, id)
	if err != nil {
		return false, fmt.Errorf("settle visibility credits: %w", err)
	}
	return n == 1, nil
}

// DeleteVisibilityReport removes a report that could not be queued.
func (s *Store) DeleteVisibilityReport(ctx context.Context, workspaceID, id string) error {
	_, err := s.exec(ctx, `DELETE FROM visibility_reports WHERE workspace_id = $1 AND id = $2`, workspaceID, id)
	return err
}

// VisibilityAnswer is one stored engine answer to a prompt or a probe.
type VisibilityAnswer struct {
	ReportID    string
	WorkspaceID string
	Kind        string // "prompt" or "probe"
	Engine      string
	Item        string
	Question    string
	Text        string
	Model       *string
	Citations   string // JSON
	Error       *string
	Cached      bool
	AskedAt     int64
	Verdict     *string
	Fact        *string
	Judgement   *string // JSON
	CreatedAt   int64
	// Sentiment is the judge's sentiment per mentioned brand (JSON).
	Sentiment *string
	// Outcome is AnswerNoAnswer when the engine showed no answer for the
	// question (no text, no error); empty otherwise.
	Outcome string
	// Discovered is the brands and products the judge says the answer
	// names (JSON [{name, domain}]); nil when not judged.
	Discovered *string
	// Pages, when not nil, replaces the answer's source pages
	// (visibility_answer_pages) in the same transaction as the answer;
	// nil leaves them as they are. Only written, never read back here
	// (VisibilityAnswerPages reads them by site).
	Pages []AnswerPage
}

// AnswerPage is one page an answer's sources cite: Domain is the
// registrable domain of Host (the key the pages view reads by), Host the
// URL's host in lower case and Path its escaped path ("/" when empty).
type AnswerPage struct {
	Domain, Host, Path string
}

// AnswerNoAnswer is the Outcome of an answer the engine did not give for
// the question, such as a Google search that shows no AI Overview.
const AnswerNoAnswer = "no_answer"

const answerColumns = `report_id, workspace_id, kind, engine, item, question, text, model, citations, error, cached, asked_at, verdict, fact, judgement, created_at, sentiment, outcome, discovered`

func scanAnswer(r interface{ Scan(...any) error }) (VisibilityAnswer, error) {
	var a VisibilityAnswer
	err := r.Scan(&a.ReportID, &a.WorkspaceID, &a.Kind, &a.Engine, &a.Item, &a.Question, &a.Text, &a.Model, &a.Citations, &a.Error,
		&a.Cached, &a.AskedAt, &a.Verdict, &a.Fact, &a.Judgement, &a.CreatedAt, &a.Sentiment, &a.Outcome, &a.Discovered)
	return a, err
}

// SaveVisibilityAnswer stores an answer as soon as it arrives, replacing a
// previous one of the same report, kind, engine and item (a failed answer
// asked again on resume).
func (s *Store) SaveVisibilityAnswer(ctx context.Context, a *VisibilityAnswer) error {
	if a.CreatedAt == 0 {
		a.CreatedAt = s.Now()
	}
	if a.AskedAt == 0 {
		a.AskedAt = a.CreatedAt
	}
	if a.Citations == "" {
		a.Citations = "[]"
	}
	save := func(q Querier) error {
		_, err := q.Exec(ctx, `INSERT INTO visibility_answers (`+answerColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
		ON CONFLICT (report_id, kind, engine, item) DO UPDATE SET question = excluded.question, text = excluded.text,
		model = excluded.model, citations = excluded.citations, error = excluded.error, cached = excluded.cached,
		asked_at = excluded.asked_at, verdict = excluded.verdict, fact = excluded.fact, judgement = excluded.judgement,
		created_at = excluded.created_at, sentiment = excluded.sentiment, outcome = excluded.outcome, discovered = excluded.discovered`,
			a.ReportID, a.WorkspaceID, a.Kind, a.Engine, a.Item, a.Question, a.Text, a.Model, a.Citations, a.Error,
			a.Cached, a.AskedAt, a.Verdict, a.Fact, a.Judgement, a.CreatedAt, a.Sentiment, a.Outcome, a.Discovered)
		return err
	}
	var err error
	if a.Pages == nil {
		err = save(s.b)
	} else {
		err = s.Tx(ctx, func(q Querier) error {
			if err := save(q); err != nil {
				return err
			}
			return saveAnswerPages(ctx, q, s.Dialect, a)
		})
	}
	if err != nil {
		return fmt.Errorf("save visibility answer: %w", err)
	}
	return nil
}

// ListVisibilityAnswers returns a report's answers of kind.
func (s *Store) ListVisibilityAnswers(ctx context.Context, workspaceID, reportID, kind string) ([]VisibilityAnswer, error) {
	rows, err := s.query(ctx, `SELECT `+answerColumns+` FROM visibility_answers WHERE workspace_id = $1 AND report_id = $2 AND kind = $3`,
		workspaceID, reportID, kind)
	if err != nil {
		return nil, fmt.Errorf("list visibility answers: %w", err)
	}
	defer rows.Close()
	out := []VisibilityAnswer{}
	for rows.Next() {
		a, err := scanAnswer(rows)
		if err != nil {
			return nil, fmt.Errorf("list visibility answers: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// CachedVisibilityAnswer returns, for the sample-th sample (0-based) of
// report reportID, the workspace's sample-th latest successful answer of
// engine to question asked at or after since by another report, or
// ErrNotFound. Only answers an engine gave count (never a copy from the
// cache), newest first, so the samples of one report reuse distinct
// answers and never their own: one stored answer is never two samples.
func (s *Store) CachedVisibilityAnswer(ctx context.Context, workspaceID, reportID, kind, engine, question string, since int64, sample int) (VisibilityAnswer, error) {
	return scanAnswer(s.queryRow(ctx, `SELECT `+answerColumns+` FROM visibility_answers
		WHERE workspace_id = $1 AND engine = $2 AND asked_at >= $3 AND kind = $4 AND question = $5 AND error IS NULL
		AND cached = FALSE AND report_id <> $6
		ORDER BY asked_at DESC, report_id, item LIMIT 1 OFFSET $7`, workspaceID, engine, since, kind, question, reportID, sample))
}
