package store

import (
	"context"
	"fmt"
)

// AnswerMentions is what is stored beside a prompt answer for the mention
// rules (package visibility): the judge's verdicts (JSON) and whether the
// text was cut when stored.
type AnswerMentions struct {
	Engine    string
	Item      string
	Verdicts  string
	Truncated bool
}

// MarkAnswerTruncated records that a prompt answer's text was cut.
func (s *Store) MarkAnswerTruncated(ctx context.Context, workspaceID, reportID, engine, item string) error {
	_, err := s.exec(ctx, `INSERT INTO visibility_answer_mentions (report_id, workspace_id, engine, item, verdicts, truncated, created_at)
		VALUES ($1, $2, $3, $4, '[]', TRUE, $5)
		ON CONFLICT (report_id, engine, item) DO UPDATE SET truncated = TRUE`, reportID, workspaceID, engine, item, s.Now())
	if err != nil {
		return fmt.Errorf("mark answer truncated: %w", err)
	}
	return nil
}

// SaveAnswerVerdicts stores the judge's verdicts of a prompt answer,
// replacing earlier ones.
func (s *Store) SaveAnswerVerdicts(ctx context.Context, workspaceID, reportID, engine, item, verdicts string) error {
	_, err := s.exec(ctx, `INSERT INTO visibility_answer_mentions (report_id, workspace_id, engine, item, verdicts, truncated, created_at)
		VALUES ($1, $2, $3, $4, $5, FALSE, $6)
		ON CONFLICT (report_id, engine, item) DO UPDATE SET verdicts = excluded.verdicts`, reportID, workspaceID, engine, item, verdicts, s.Now())
	if err != nil {
		return fmt.Errorf("save answer verdicts: %w", err)
	}
	return nil
}

// ListAnswerMentions returns what is stored beside a report's answers.
func (s *Store) ListAnswerMentions(ctx context.Context, workspaceID, reportID string) ([]AnswerMentions, error) {
	rows, err := s.query(ctx, `SELECT engine, item, verdicts, truncated FROM visibility_answer_mentions
		WHERE workspace_id = $1 AND report_id = $2`, workspaceID, reportID)
	if err != nil {
		return nil, fmt.Errorf("list answer mentions: %w", err)
	}
	defer rows.Close()
	var out []AnswerMentions
	for rows.Next() {
		var m AnswerMentions
		if err := rows.Scan(&m.Engine, &m.Item, &m.Verdicts, &m.Truncated); err != nil {
			return nil, fmt.Errorf("list answer mentions: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// SaveVisibilityEvidence stores (or replaces) a report's evidence.
func (s *Store) SaveVisibilityEvidence(ctx context.Context, workspaceID, reportID string, version int, body string) error {
	_, err := s.exec(ctx, `INSERT INTO visibility_evidence (report_id, workspace_id, scoring_version, body, created_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (report_id) DO UPDATE SET scoring_version = excluded.scoring_version, body = excluded.body, created_at = excluded.created_at`,
		reportID, workspaceID, version, body, s.Now())
	if err != nil {
		return fmt.Errorf("save visibility evidence: %w", err)
	}
	return nil
}

// GetVisibilityEvidence returns a report's stored evidence and its scoring
// version, or ErrNotFound.
func (s *Store) GetVisibilityEvidence(ctx context.Context, workspaceID, reportID string) (int, string, error) {
	var version int
	var body string
	err := s.queryRow(ctx, `SELECT scoring_version, body FROM visibility_evidence WHERE workspace_id = $1 AND report_id = $2`,
		workspaceID, reportID).Scan(&version, &body)
	return version, body, err
}

// CompletedVisibilityReports returns every completed report (history and
// one-offs) of a workspace, or of every workspace when workspaceID is
// empty, oldest first: what `herald visibility rescore` recomputes.
func (s *Store) CompletedVisibilityReports(ctx context.Context, workspaceID string) ([]VisibilityReport, error) {
	if workspaceID == "" {
		return s.queryReports(ctx, `SELECT `+reportColumns+` FROM visibility_reports WHERE state = 'completed' ORDER BY created_at, id`)
	}
	return s.queryReports(ctx, `SELECT `+reportColumns+` FROM visibility_reports WHERE workspace_id = $1 AND state = 'completed' ORDER BY created_at, id`, workspaceID)
}
