package store

import (
	"context"
	"fmt"
)

// saveAnswerPages replaces the source pages of answer a with a.Pages in
// q's transaction (the answer's own upsert runs in it too), one row per
// host and path.
func saveAnswerPages(ctx context.Context, q Querier, d Dialect, a *VisibilityAnswer) error {
	if _, err := q.Exec(ctx, `DELETE FROM visibility_answer_pages WHERE report_id = $1 AND engine = $2 AND item = $3`,
		a.ReportID, a.Engine, a.Item); err != nil {
		return err
	}
	type key struct{ host, path string }
	seen := make(map[key]bool, len(a.Pages))
	pages := make([]AnswerPage, 0, len(a.Pages))
	for _, p := range a.Pages {
		if k := (key{p.Host, p.Path}); !seen[k] {
			seen[k] = true
			pages = append(pages, p)
		}
	}
	if len(pages) == 0 {
		return nil
	}
	return insertRows(ctx, q, d, `INSERT INTO visibility_answer_pages (workspace_id, domain, host, path, report_id, engine, item) VALUES `,
		7, len(pages), func(args []any, i int) []any {
			p := pages[i]
			return append(args, a.WorkspaceID, p.Domain, p.Host, p.Path, a.ReportID, a.Engine, a.Item)
		}, "")
}

// AnswerPageRow is a page that one answer of a report cites.
type AnswerPageRow struct {
	ReportID string
	Engine   string
	Item     string
	Host     string
	Path     string
}

// maxAnswerPageReports is how many report ids one read of
// VisibilityAnswerPages lists.
const maxAnswerPageReports = 256

// VisibilityAnswerPages returns the pages of registrable domain domain
// that the prompt answers of the workspace's reports reportIDs cite (as
// saved with the answers), in no order (the caller orders them: a sort of
// text keys in the database's collation costs more than the read). One
// index range of the workspace, domain and report per report, whatever the
// answers' text; no join, so the plan is the same with or without the
// planner's statistics.
func (s *Store) VisibilityAnswerPages(ctx context.Context, workspaceID, domain string, reportIDs []string) ([]AnswerPageRow, error) {
	var out []AnswerPageRow
	err := inList(s.Dialect, []any{workspaceID, domain}, reportIDs, maxAnswerPageReports, func(list string, args []any) error {
		rows, err := s.query(ctx, `SELECT report_id, engine, item, host, path FROM visibility_answer_pages
			WHERE workspace_id = $1 AND domain = $2 AND report_id IN (`+list+`)`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r AnswerPageRow
			if err := rows.Scan(&r.ReportID, &r.Engine, &r.Item, &r.Host, &r.Path); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read answer pages: %w", err)
	}
	return out, nil
}

// ReportKey is what the pages view needs of a report: its id, when it was
// created, and whether its answers were saved with their pages.
type ReportKey struct {
	ID          string
	CreatedAt   int64
	AnswerPages bool
}

// CompletedVisibilityReportKeysSince is CompletedVisibilityReportsSince
// without the reports' documents (their result can be large).
func (s *Store) CompletedVisibilityReportKeysSince(ctx context.Context, workspaceID string, since int64) ([]ReportKey, error) {
	rows, err := s.query(ctx, `SELECT id, created_at, answer_pages FROM visibility_reports
		WHERE workspace_id = $1 AND one_off = FALSE AND state = 'completed' AND created_at >= $2 ORDER BY created_at, id`, workspaceID, since)
	if err != nil {
		return nil, fmt.Errorf("list visibility reports: %w", err)
	}
	defer rows.Close()
	var out []ReportKey
	for rows.Next() {
		var k ReportKey
		if err := rows.Scan(&k.ID, &k.CreatedAt, &k.AnswerPages); err != nil {
			return nil, fmt.Errorf("list visibility reports: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
