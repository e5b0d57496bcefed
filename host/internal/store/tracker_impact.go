package store

import (
	"context"
	"fmt"
)

// The reads of a tracker's impact view: one query per table for all of the
// runs it reads, and only the columns it uses.

// ImpactAnswer is what the impact view reads of one prompt answer that did
// not fail.
type ImpactAnswer struct {
	ReportID, Engine, Item, Question, Text, Citations string
}

// ImpactAnswers returns the prompt answers of the given reports of the
// workspace that have no error, in no particular order.
func (s *Store) ImpactAnswers(ctx context.Context, workspaceID string, reportIDs []string) ([]ImpactAnswer, error) {
	out := []ImpactAnswer{}
	err := inList(s.Dialect, []any{workspaceID}, reportIDs, maxBatchParams, func(list string, args []any) error {
		rows, err := s.query(ctx, `SELECT report_id, engine, item, question, text, citations FROM visibility_answers
			WHERE workspace_id = `+placeholder(s.Dialect, 1)+` AND kind = 'prompt' AND error IS NULL AND report_id IN (`+list+`)`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a ImpactAnswer
			if err := rows.Scan(&a.ReportID, &a.Engine, &a.Item, &a.Question, &a.Text, &a.Citations); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list impact answers: %w", err)
	}
	return out, nil
}

// VisibilityEvidenceBodies returns the stored evidence body of each of the
// given reports of the workspace that has one, by report id.
func (s *Store) VisibilityEvidenceBodies(ctx context.Context, workspaceID string, reportIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(reportIDs))
	err := inList(s.Dialect, []any{workspaceID}, reportIDs, maxBatchParams, func(list string, args []any) error {
		rows, err := s.query(ctx, `SELECT report_id, body FROM visibility_evidence
			WHERE workspace_id = `+placeholder(s.Dialect, 1)+` AND report_id IN (`+list+`)`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, body string
			if err := rows.Scan(&id, &body); err != nil {
				return err
			}
			out[id] = body
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list visibility evidence: %w", err)
	}
	return out, nil
}
