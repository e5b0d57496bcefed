package store

import (
	"context"
	"errors"
	"fmt"
)

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
