package jobstore

import "context"

// ExplainClaim returns the plan of a claim of n aiQueue jobs at now.
func (s *Store) ExplainClaim(ctx context.Context, n int, now int64, backlog bool) ([]string, error) {
	q, args := s.claimSQL("aiQueue", "o", n, now, now+100000, JobCaps{}, backlog)
	rows, err := s.db.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var l string
		rows.Scan(&l)
		out = append(out, l)
	}
	return out, nil
}
