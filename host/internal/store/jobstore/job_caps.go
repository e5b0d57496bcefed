package jobstore

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
	"slices"
	"strings"
)

// JobCap bounds one workspace's jobs in one queue. Zero means unlimited.
type JobCap struct {
	// Running caps the workspace's active jobs of the queue, across hosts:
	// a claim skips the workspace's jobs beyond it.
	Running int
	// Queued caps the workspace's ready jobs of the queue (waiting, or
	// delayed with a run time that has come): an insert beyond it is refused.
	Queued int
}

// JobCaps are the caps of each plan (the workspaces.plan column); Default
// applies to other plans and to workspaces without a row.
type JobCaps struct {
	ByPlan  map[string]JobCap
	Default JobCap
}

// unlimited stands for a cap of zero inside SQL.
const unlimited = 1 << 30

func (c JobCaps) any(pick func(JobCap) int) bool {
	if pick(c.Default) > 0 {
		return true
	}
	for _, p := range c.ByPlan {
		if pick(p) > 0 {
			return true
		}
	}
	return false
}

// capExpr returns the SQL value of the workspace's cap chosen by pick, for
// the workspace id in column ws, appending its parameters to args.
func (c JobCaps) capExpr(ws string, pick func(JobCap) int, args []any) (string, []any) {
	value := func(n int) int {
		if n <= 0 {
			return unlimited
		}
		return n
	}
	plans := make([]string, 0, len(c.ByPlan))
	for p := range c.ByPlan {
		plans = append(plans, p)
	}
	slices.Sort(plans)
	if len(plans) == 0 {
		args = append(args, value(pick(c.Default)))
		return "CAST(" + store.Param(len(args)) + " AS BIGINT)", args
	}
	var b strings.Builder
	b.WriteString("CASE (SELECT plan FROM workspaces WHERE workspaces.id = " + ws + ")")
	for _, p := range plans {
		args = append(args, p, value(pick(c.ByPlan[p])))
		b.WriteString(" WHEN CAST(" + store.Param(len(args)-1) + " AS TEXT) THEN CAST(" + store.Param(len(args)) + " AS BIGINT)")
	}
	args = append(args, value(pick(c.Default)))
	b.WriteString(" ELSE CAST(" + store.Param(len(args)) + " AS BIGINT) END")
	return b.String(), args
}

func pickRunning(c JobCap) int { return c.Running }
func pickQueued(c JobCap) int  { return c.Queued }

// ClaimJobs atomically moves up to limit claimable jobs of queue (waiting or
// delayed with run_at <= now) to active, counts the attempt, and leases them
// to owner until leaseUntil. The claim is fair across workspaces: each
// workspace's claimable jobs are ranked by run time, and all rank-1 jobs
// come before any rank-2 job, so a workspace with a thousand queued jobs
// delays another workspace's job by at most one claim. Jobs come back in
// run-time order. Concurrent claimers never get the same job: SKIP LOCKED
// on CockroachDB/PostgreSQL, the single writer on store.SQLite.
func (s *Store) ClaimJobs(ctx context.Context, queue, owner string, limit int, now, leaseUntil int64) ([]Job, error) {
	return s.ClaimJobsCapped(ctx, queue, owner, limit, now, leaseUntil, JobCaps{}, false)
}

// ClaimJobsCapped is ClaimJobs that also leaves the jobs of a workspace
// whose active jobs of queue would exceed its plan's Running cap. backlog
// says that the last claim was full, so many jobs may be ready: the claim
// then ranks only a bounded set of candidates (see below) instead of every
// ready row, which is cheaper with a deep backlog and dearer (a more
// complex statement) with a short one. Both are fair.
func (s *Store) ClaimJobsCapped(ctx context.Context, queue, owner string, limit int, now, leaseUntil int64, caps JobCaps, backlog bool) ([]Job, error) {
	query, args := s.claimSQL(queue, owner, limit, now, leaseUntil, caps, backlog)
	jobs, err := scanJobs(s.db.Query(ctx, query, args...))
	if err != nil {
		return nil, fmt.Errorf("claim jobs of %s: %w", queue, err)
	}
	// RETURNING does not keep the subquery's order.
	sortJobs(jobs)
	return jobs, nil
}

// claimSQL is the statement of ClaimJobsCapped and its arguments.
func (s *Store) claimSQL(queue, owner string, limit int, now, leaseUntil int64, caps JobCaps, backlog bool) (string, []any) {
	args := []any{now, owner, leaseUntil, queue, limit}
	capped, full := "", ""
	if caps.any(pickRunning) {
		var expr string
		// Workspaces already at their cap are left out before ranking, so
		// that a flooding workspace's backlog costs the claim little.
		expr, args = caps.capExpr("busy.workspace_id", pickRunning, args)
		full = ` AND workspace_id NOT IN (SELECT busy.workspace_id FROM jobs busy WHERE busy.queue = $4 AND busy.state = 'active'
					GROUP BY busy.workspace_id HAVING COUNT(*) >= ` + expr + `)`
		expr, args = caps.capExpr("r.workspace_id", pickRunning, args)
		capped = `LEFT JOIN (SELECT workspace_id, COUNT(*) AS n FROM jobs WHERE queue = $4 AND state = 'active' GROUP BY workspace_id) a
				ON a.workspace_id = r.workspace_id
			WHERE r.rn + COALESCE(a.n, 0) <= ` + expr
	}
	// With a backlog, ranking every ready row would cost a claim the whole
	// backlog, so the candidates are the first limit rows in run-time order
	// (the head) plus the oldest row of every workspace with ready jobs (see
	// fairCandidates); the ranking over them puts every workspace's oldest
	// first. The window cannot sit in a locking query on PostgreSQL, so the
	// candidates are chosen first and locked by the query around them,
	// which repeats the readiness test: a row another claimer took
	// meanwhile is re-checked against its newest version and left out.
	// That test is written as jobNotTaken so that the lock finds the
	// candidates by primary key (see idIn).
	ready := `queue = $4 AND ` + jobReady + ` AND run_at <= $1`
	candidates := `SELECT id, workspace_id, run_at FROM jobs WHERE ` + ready + full
	if backlog {
		candidates = s.fairCandidates(ready, full)
	}
	return `UPDATE jobs SET state = 'active', attempts_made = attempts_made + 1,
		processed_on = $1, finished_on = NULL, lease_owner = $2, lease_until = $3
		WHERE id IN (SELECT id FROM jobs WHERE ` + jobNotTaken + ` AND ` + s.idIn(`
			SELECT r.id FROM (
				SELECT id, workspace_id, run_at, ROW_NUMBER() OVER (PARTITION BY workspace_id ORDER BY run_at, id) AS rn
				FROM (`+candidates+`) c) r
			`+capped+`
			ORDER BY r.rn, r.run_at, r.id LIMIT $5`) + s.db.SkipLocked() + `)
		RETURNING ` + jobColumns, args
}

// fairCandidates selects (id, workspace_id, run_at) of a backlog claim's
// candidates: the head (the first $5 ready rows in run-time order, less
// the workspaces at their running cap) and the oldest ready row of every
// workspace. The workspaces are found by a loose scan of the jobs_fair
// index (queue, workspace_id, run_at, id). On PostgreSQL each step of it
// returns the next workspace's oldest row itself, one index probe per
// workspace with ready jobs, and the candidates carry the columns the
// ranking needs. store.SQLite has no LATERAL: a step finds the next workspace,
// a second probe its oldest row, and the ranking reads the rows again by
// id.
func (s *Store) fairCandidates(ready, full string) string {
	head := `SELECT id, workspace_id, run_at FROM jobs WHERE ` + ready + full + ` ORDER BY run_at, id LIMIT $5`
	if s.db.Dialect == store.Postgres {
		oldest := `SELECT id, workspace_id, run_at FROM jobs WHERE ` + ready
		return `WITH RECURSIVE ws (id, workspace_id, run_at) AS (
				(` + oldest + ` ORDER BY workspace_id, run_at, id LIMIT 1)
				UNION ALL
				SELECT n.id, n.workspace_id, n.run_at FROM ws, LATERAL (` + oldest + ` AND workspace_id > ws.workspace_id
					ORDER BY workspace_id, run_at, id LIMIT 1) n)
			(` + head + `)
			UNION
			SELECT id, workspace_id, run_at FROM ws`
	}
	return `SELECT id, workspace_id, run_at FROM jobs WHERE id IN (
			WITH RECURSIVE ws (w) AS (
				SELECT (SELECT workspace_id FROM jobs WHERE ` + ready + ` ORDER BY workspace_id LIMIT 1)
				UNION ALL
				SELECT (SELECT workspace_id FROM jobs WHERE ` + ready + ` AND workspace_id > ws.w ORDER BY workspace_id LIMIT 1)
				FROM ws WHERE ws.w IS NOT NULL)
			SELECT head.id FROM (` + head + `) head
			UNION
			SELECT (SELECT f.id FROM jobs f WHERE f.queue = $4 AND f.` + jobReady + ` AND f.run_at <= $1 AND f.workspace_id = ws.w
				ORDER BY f.run_at, f.id LIMIT 1)
			FROM ws WHERE ws.w IS NOT NULL)`
}

// ErrJobCap is returned by InsertJobsCapped when a workspace is at its
// Queued cap.
type ErrJobCap struct {
	Workspace, Queue string
	Cap              int64
}

func (e *ErrJobCap) Error() string {
	return fmt.Sprintf("workspace %s has %d ready jobs in %s, its cap", e.Workspace, e.Cap, e.Queue)
}

// InsertJobsCapped is InsertJobs that first checks the Queued cap of each
// workspace and queue the jobs due now (RunAt <= now) go to, and inserts
// nothing when one would exceed it. Jobs that run later are not counted
// against the cap until they fall due. The check and the insert are not one
// transaction, so concurrent inserts may pass the cap by a few jobs: it
// bounds a flood, it is not a quota.
func (s *Store) InsertJobsCapped(ctx context.Context, q store.Querier, jobs []Job, now int64, caps JobCaps) error {
	if q == nil {
		q = s.db
	}
	if !caps.any(pickQueued) {
		return s.InsertJobs(ctx, q, jobs)
	}
	type key struct{ ws, queue string }
	due := map[key]int64{}
	var order []key
	for _, j := range jobs {
		if j.RunAt > now {
			continue
		}
		k := key{j.WorkspaceID, j.Queue}
		if _, ok := due[k]; !ok {
			order = append(order, k)
		}
		due[k]++
	}
	for _, k := range order {
		expr, args := caps.capExpr("CAST($1 AS TEXT)", pickQueued, []any{k.ws, k.queue, now})
		var count, limit int64
		err := q.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM jobs WHERE queue = $2 AND workspace_id = $1 AND `+jobReady+` AND run_at <= $3), `+expr, args...).Scan(&count, &limit)
		if err != nil {
			return fmt.Errorf("count ready jobs of workspace %s: %w", k.ws, err)
		}
		if count+due[k] > limit {
			return &ErrJobCap{Workspace: k.ws, Queue: k.queue, Cap: limit}
		}
	}
	return s.InsertJobs(ctx, q, jobs)
}

// jobNotTaken is jobReady for the lock of a claim: the same rows (jobs have
// exactly the five states of job.go), written so that it does not match
// the partial index jobs_ready's predicate.
const jobNotTaken = `state NOT IN ('active', 'completed', 'failed')`

// idIn is "id IN (sub)", written for PostgreSQL as "id = ANY(ARRAY(sub))":
// the planner then looks the few ids up by primary key. With IN it
// estimated the subquery's rows from the jobs table's statistics, which a
// queue churns (or has none of yet), and chose a hash join over every
// ready row: 15 ms of a 47 ms claim of 100 jobs among 10,000 ready
// (EXPLAIN ANALYZE in docs/BENCHMARKS.md, job queue).
func (s *Store) idIn(sub string) string {
	// jobNotTaken, not jobReady, in the same statement for the same reason:
	// with jobReady the planner matched the partial index jobs_ready and
	// scanned it whole, filtering by id (190 ms of the claim above).
	if s.db.Dialect == store.Postgres {
		return "id = ANY(ARRAY(" + sub + "))"
	}
	return "id IN (" + sub + ")"
}
