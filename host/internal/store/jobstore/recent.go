package jobstore

import (
	"context"
	"fmt"
)

// FinishedJob is a completed job as the agent's context lists it: what
// it was asked (data) and what it made (result), both JSON.
type FinishedJob struct {
	ID, Queue, Name string
	Data            string
	Result          *string
	FinishedOn      int64
}

// RecentGeneratedJobs returns the workspace's newest completed jobs that
// generated text: every aiQueue job (text generation, whatever its job
// name) and the contentQueue jobs named in contentNames (blog posts),
// newest first, at most limit.
func (s *Store) RecentGeneratedJobs(ctx context.Context, workspaceID string, contentNames []string, limit int) ([]FinishedJob, error) {
	args := []any{workspaceID, limit}
	in := ""
	for i, n := range contentNames {
		if i > 0 {
			in += ", "
		}
		args = append(args, n)
		in += fmt.Sprintf("$%d", len(args))
	}
	cond := `queue = 'aiQueue'`
	if in != "" {
		cond = `(queue = 'aiQueue' OR (queue = 'contentQueue' AND name IN (` + in + `)))`
	}
	rows, err := s.db.Query(ctx, `SELECT id, queue, name, data, result, COALESCE(finished_on, created_at) FROM jobs
		WHERE workspace_id = $1 AND state = 'completed' AND `+cond+`
		ORDER BY COALESCE(finished_on, created_at) DESC, id DESC LIMIT $2`, args...)
	if err != nil {
		return nil, fmt.Errorf("recent generated jobs: %w", err)
	}
	defer rows.Close()
	var out []FinishedJob
	for rows.Next() {
		var j FinishedJob
		if err := rows.Scan(&j.ID, &j.Queue, &j.Name, &j.Data, &j.Result, &j.FinishedOn); err != nil {
			return nil, fmt.Errorf("recent generated jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}
