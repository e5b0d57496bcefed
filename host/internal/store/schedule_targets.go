package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

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
