package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Post is what a person plans: one or more schedules, one per destination.
// RuleID and OccurrenceAt are set on an occurrence of a repeat rule.
type Post struct {
	ID           string
	WorkspaceID  string
	UserID       string
	Title        string
	WhenToExport *int64
	RuleID       *string
	OccurrenceAt *int64
	CreatedAt    int64
	UpdatedAt    int64
}

const postColumns = `id, workspace_id, user_id, title, when_to_export, rule_id, occurrence_at, created_at, updated_at`

func scanPost(r interface{ Scan(...any) error }) (Post, error) {
	var p Post
	err := r.Scan(&p.ID, &p.WorkspaceID, &p.UserID, &p.Title, &p.WhenToExport, &p.RuleID, &p.OccurrenceAt, &p.CreatedAt, &p.UpdatedAt)
	return p, err
}

// InsertPost stores a new post through q (the transaction that stores its
// schedules). An occurrence of a repeat rule that is already stored is not
// stored again: InsertPost then reports false and writes nothing, so of
// two hosts creating the same occurrence one does.
func (s *Store) InsertPost(ctx context.Context, q Querier, p *Post) (bool, error) {
	if p.ID == "" {
		p.ID = NewID()
	}
	if p.CreatedAt == 0 {
		p.CreatedAt = s.Now()
	}
	p.UpdatedAt = p.CreatedAt
	n, err := q.Exec(ctx, `INSERT INTO posts (`+postColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (rule_id, occurrence_at) DO NOTHING`,
		p.ID, p.WorkspaceID, p.UserID, p.Title, p.WhenToExport, p.RuleID, p.OccurrenceAt, p.CreatedAt, p.UpdatedAt)
	if err != nil {
		return false, fmt.Errorf("create post: %w", err)
	}
	return n == 1, nil
}

// GetPost returns a post of the workspace and its schedules in the order
// they were stored, or ErrNotFound (also for another workspace's post).
func (s *Store) GetPost(ctx context.Context, workspaceID, id string) (Post, []Schedule, error) {
	p, err := scanPost(s.queryRow(ctx, `SELECT `+postColumns+` FROM posts WHERE workspace_id = $1 AND id = $2`, workspaceID, id))
	if err != nil {
		return Post{}, nil, err
	}
	rows, err := s.query(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE workspace_id = $1 AND post_id = $2 ORDER BY created_at, id`, workspaceID, id)
	if err != nil {
		return Post{}, nil, fmt.Errorf("read post %s: %w", id, err)
	}
	defer rows.Close()
	var list []Schedule
	for rows.Next() {
		sc, err := scanSchedule(rows)
		if err != nil {
			return Post{}, nil, fmt.Errorf("read post %s: %w", id, err)
		}
		list = append(list, sc)
	}
	return p, list, rows.Err()
}

// DropEmptyPost removes the post when none of its schedules is left (its
// last draft or failed schedule was removed).
func (s *Store) DropEmptyPost(ctx context.Context, workspaceID, id string) error {
	_, err := s.exec(ctx, `DELETE FROM posts WHERE workspace_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM schedules WHERE post_id = $2)`, workspaceID, id)
	if err != nil {
		return fmt.Errorf("remove empty post %s: %w", id, err)
	}
	return nil
}

// MoveSchedule gives a pending or draft schedule of the workspace a new time
// through q, and a pending one the new publish job jobID (nil for a draft);
// the old job finds itself replaced and does nothing. It reports false when
// the schedule is neither pending nor draft any more.
func (s *Store) MoveSchedule(ctx context.Context, q Querier, workspaceID, id string, when int64, jobID *string) (bool, error) {
	n, err := q.Exec(ctx, `UPDATE schedules SET when_to_export = $1, job_id = COALESCE($2, job_id), updated_at = $3
		WHERE workspace_id = $4 AND id = $5 AND status IN ($6, $7)`,
		when, jobID, s.Now(), workspaceID, id, SchedulePending, ScheduleDraft)
	if err != nil {
		return false, fmt.Errorf("move schedule %s: %w", id, err)
	}
	return n == 1, nil
}

// SetPostTime records the post's new time through q.
func (s *Store) SetPostTime(ctx context.Context, q Querier, workspaceID, id string, when int64) error {
	if _, err := q.Exec(ctx, `UPDATE posts SET when_to_export = $1, updated_at = $2 WHERE workspace_id = $3 AND id = $4`, when, s.Now(), workspaceID, id); err != nil {
		return fmt.Errorf("move post %s: %w", id, err)
	}
	return nil
}

// CalendarEntry is one schedule of a post in the calendar.
type CalendarEntry struct {
	PostID       string
	Title        string
	WhenToExport int64
	RuleID       *string
	ScheduleID   string
	ExportTo     string
	Status       string
}

// Calendar returns the schedules of the workspace's posts timed in [from,
// to) (epoch ms), in time order, at most limit rows.
func (s *Store) Calendar(ctx context.Context, workspaceID string, from, to int64, limit int) ([]CalendarEntry, error) {
	rows, err := s.query(ctx, `SELECT p.id, p.title, p.when_to_export, p.rule_id, s.id, s.export_to, s.status
		FROM posts p JOIN schedules s ON s.post_id = p.id
		WHERE p.workspace_id = $1 AND p.when_to_export >= $2 AND p.when_to_export < $3
		ORDER BY p.when_to_export, p.id LIMIT $4`, workspaceID, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("read the calendar: %w", err)
	}
	defer rows.Close()
	out := []CalendarEntry{}
	for rows.Next() {
		var e CalendarEntry
		if err := rows.Scan(&e.PostID, &e.Title, &e.WhenToExport, &e.RuleID, &e.ScheduleID, &e.ExportTo, &e.Status); err != nil {
			return nil, fmt.Errorf("read the calendar: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ScheduleRule is a repeat rule of the post scheduler. Rule and Template
// are JSON the schedule package reads; NextAt is the time of the next
// occurrence to create (nil: the rule has ended or was cancelled).
type ScheduleRule struct {
	ID           string
	WorkspaceID  string
	UserID       string
	Rule         string
	Template     string
	CreatedCount int
	NextAt       *int64
	CancelledAt  *int64
	CreatedAt    int64
	UpdatedAt    int64
}

const ruleColumns = `id, workspace_id, user_id, rule, template, created_count, next_at, cancelled_at, created_at, updated_at`

func scanRule(r interface{ Scan(...any) error }) (ScheduleRule, error) {
	var x ScheduleRule
	err := r.Scan(&x.ID, &x.WorkspaceID, &x.UserID, &x.Rule, &x.Template, &x.CreatedCount, &x.NextAt, &x.CancelledAt, &x.CreatedAt, &x.UpdatedAt)
	return x, err
}

// InsertScheduleRule stores a new repeat rule.
func (s *Store) InsertScheduleRule(ctx context.Context, r *ScheduleRule) error {
	if r.ID == "" {
		r.ID = NewID()
	}
	r.CreatedAt = s.Now()
	r.UpdatedAt = r.CreatedAt
	_, err := s.exec(ctx, `INSERT INTO schedule_rules (`+ruleColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		r.ID, r.WorkspaceID, r.UserID, r.Rule, r.Template, r.CreatedCount, r.NextAt, r.CancelledAt, r.CreatedAt, r.UpdatedAt)
	if err != nil {
		return fmt.Errorf("create repeat rule: %w", err)
	}
	return nil
}

// GetScheduleRule returns a rule of the workspace, or ErrNotFound.
func (s *Store) GetScheduleRule(ctx context.Context, workspaceID, id string) (ScheduleRule, error) {
	return scanRule(s.queryRow(ctx, `SELECT `+ruleColumns+` FROM schedule_rules WHERE workspace_id = $1 AND id = $2`, workspaceID, id))
}

// DueScheduleRules returns up to limit rules whose next occurrence is at or
// before before (epoch ms), soonest first.
func (s *Store) DueScheduleRules(ctx context.Context, before int64, limit int) ([]ScheduleRule, error) {
	rows, err := s.query(ctx, `SELECT `+ruleColumns+` FROM schedule_rules WHERE next_at IS NOT NULL AND next_at <= $1 ORDER BY next_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("find due repeat rules: %w", err)
	}
	defer rows.Close()
	var out []ScheduleRule
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, fmt.Errorf("find due repeat rules: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ErrRuleMoved rolls back an advance of a rule that another host advanced
// (or that was cancelled) since it was read.
var ErrRuleMoved = errors.New("the repeat rule moved on since it was read")

// AdvanceScheduleRule records through q that the rule's occurrences up to
// next (nil: all of them) exist, created in all, guarded by the next
// occurrence seen when the rule was read: ErrRuleMoved when it changed.
func (s *Store) AdvanceScheduleRule(ctx context.Context, q Querier, id string, seenNext int64, next *int64, created int) error {
	n, err := q.Exec(ctx, `UPDATE schedule_rules SET next_at = $1, created_count = $2, updated_at = $3 WHERE id = $4 AND next_at = $5`,
		next, created, s.Now(), id, seenNext)
	if err != nil {
		return fmt.Errorf("advance repeat rule %s: %w", id, err)
	}
	if n == 0 {
		return ErrRuleMoved
	}
	return nil
}

// CancelScheduleRule stops the rule creating occurrences; those created
// stay (each is a post of its own). It reports false for an unknown rule.
func (s *Store) CancelScheduleRule(ctx context.Context, workspaceID, id string) (bool, error) {
	now := s.Now()
	n, err := s.exec(ctx, `UPDATE schedule_rules SET next_at = NULL, cancelled_at = COALESCE(cancelled_at, $1), updated_at = $1 WHERE workspace_id = $2 AND id = $3`,
		now, workspaceID, id)
	if err != nil {
		return false, fmt.Errorf("cancel repeat rule %s: %w", id, err)
	}
	return n == 1, nil
}

// ScheduleTarget is what a post is written for: a tracker of the same
// workspace and the prompts (ids or tags) it targets.
type ScheduleTarget struct {
	ScheduleID  string
	WorkspaceID string
	TrackerID   string
	Prompts     []string
	CreatedAt   int64
}

// TargetedPost is a targeted schedule with its publishing state.
type TargetedPost struct {
	ScheduleTarget
	Status      string
	ExternalURL *string
	PublishedAt *int64
}

// InsertScheduleTarget stores a schedule's targets through q (nil: the
// store itself), in the transaction that stores the schedule.
func (s *Store) InsertScheduleTarget(ctx context.Context, q Querier, t ScheduleTarget) error {
	if q == nil {
		q = s.b
	}
	prompts, err := json.Marshal(t.Prompts)
	if err != nil {
		return err
	}
	if t.CreatedAt == 0 {
		t.CreatedAt = s.Now()
	}
	if _, err := q.Exec(ctx, `INSERT INTO schedule_targets (schedule_id, workspace_id, tracker_id, target_prompts, created_at)
		VALUES ($1, $2, $3, $4, $5)`, t.ScheduleID, t.WorkspaceID, t.TrackerID, string(prompts), t.CreatedAt); err != nil {
		return fmt.Errorf("insert schedule target: %w", err)
	}
	return nil
}

// ScheduleTargets returns the targets of the given schedules of a
// workspace, by schedule id (schedules without targets are absent).
func (s *Store) ScheduleTargets(ctx context.Context, workspaceID string, ids []string) (map[string]ScheduleTarget, error) {
	out := map[string]ScheduleTarget{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{workspaceID}
	marks := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	rows, err := s.query(ctx, `SELECT schedule_id, workspace_id, tracker_id, target_prompts, created_at FROM schedule_targets
		WHERE workspace_id = $1 AND schedule_id IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("list schedule targets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t ScheduleTarget
		var prompts string
		if err := rows.Scan(&t.ScheduleID, &t.WorkspaceID, &t.TrackerID, &prompts, &t.CreatedAt); err != nil {
			return nil, fmt.Errorf("list schedule targets: %w", err)
		}
		if err := json.Unmarshal([]byte(prompts), &t.Prompts); err != nil {
			return nil, fmt.Errorf("schedule target %s: %w", t.ScheduleID, err)
		}
		out[t.ScheduleID] = t
	}
	return out, rows.Err()
}

// TargetedPosts returns a tracker's targeted schedules of a workspace with
// their publishing state, oldest published first (unpublished last).
func (s *Store) TargetedPosts(ctx context.Context, workspaceID, trackerID string) ([]TargetedPost, error) {
	rows, err := s.query(ctx, `SELECT t.schedule_id, t.workspace_id, t.tracker_id, t.target_prompts, t.created_at,
		s.status, s.external_url, s.published_at
		FROM schedule_targets t JOIN schedules s ON s.workspace_id = t.workspace_id AND s.id = t.schedule_id
		WHERE t.workspace_id = $1 AND t.tracker_id = $2
		ORDER BY CASE WHEN s.published_at IS NULL THEN 1 ELSE 0 END, s.published_at, t.schedule_id`, workspaceID, trackerID)
	if err != nil {
		return nil, fmt.Errorf("list targeted posts: %w", err)
	}
	defer rows.Close()
	var out []TargetedPost
	for rows.Next() {
		var p TargetedPost
		var prompts string
		if err := rows.Scan(&p.ScheduleID, &p.WorkspaceID, &p.TrackerID, &prompts, &p.CreatedAt, &p.Status, &p.ExternalURL, &p.PublishedAt); err != nil {
			return nil, fmt.Errorf("list targeted posts: %w", err)
		}
		if err := json.Unmarshal([]byte(prompts), &p.Prompts); err != nil {
			return nil, fmt.Errorf("schedule target %s: %w", p.ScheduleID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
