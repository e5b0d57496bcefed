// Package jobs is Herald's durable job queue: long generation work (text
// generation with useWorker, visibility reports, content pipelines,
// scheduled exports) runs as jobs that clients poll by id
// (GET /v1/ai/generate/job/{jobId}, served by Service).
//
// One implementation serves both modes. The job row in the store is the
// truth; workers claim rows atomically (FOR UPDATE SKIP LOCKED on
// CockroachDB/PostgreSQL, the single writer on SQLite), hold a lease they
// renew by heartbeat, and write progress, partial results and the outcome
// to the row. With Options.RedisURL, an enqueue publishes a wake-up on
// Redis so that an idle worker on any host starts the job within
// milliseconds; without it the wake-up stays in-process. Every queue also
// polls (Options.PollInterval), so a Redis outage delays jobs but never
// loses or strands one. A rescuer returns jobs whose lease expired (their
// host crashed) to waiting, counting the lost attempt.
//
// # Using the queue
//
// A feature registers a handler per job name at start-up and enqueues jobs:
//
//	q.Register("ai_tool_content", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
//		var in Input
//		if err := j.Decode(&in); err != nil {
//			return nil, err // already a NoRetry error
//		}
//		j.Progress(ctx, 50, map[string]any{"draft": draft}) // pollers see it
//		if rateLimited {
//			return nil, jobs.RetryAfter(retryAfter, err)
//		}
//		return map[string]any{"text": text}, nil // the job's result
//	}), jobs.HandlerOptions{MaxAttempts: 3, Timeout: 5 * time.Minute})
//
//	id, err := q.Enqueue(ctx, jobs.NewJob{Workspace: p.WorkspaceID, Queue: jobs.AIQueue, Name: "ai_tool_content", Data: in})
//
// To enqueue atomically with the feature's own rows, use EnqueueTx inside
// store.Tx and call Wake after the transaction commits:
//
//	err := st.Tx(ctx, func(tx store.Querier) error {
//		// ... insert the scheduled post ...
//		id, err = q.EnqueueTx(ctx, tx, jobs.NewJob{..., RunAt: post.PublishAt})
//		return err
//	})
//	q.Wake(jobs.ContentQueue)
//
// # Job life
//
// A job is waiting (or delayed, until NewJob.RunAt), then active while a
// worker runs it, then completed with its result and progress 100, or
// failed with failedReason. A plain handler error is retried after the
// handler's backoff (exponential with jitter by default) until MaxAttempts;
// RetryAfter(d, err) retries after d; NoRetry(err), a panic, or an
// unmarshalable result fail the job at once. Each attempt is bounded by
// HandlerOptions.Timeout. Jobs claim in run-time order within a workspace
// and round-robin across workspaces: every workspace's oldest ready job
// before anyone's second, so one workspace's backlog cannot starve the
// others. Options.Caps bound a workspace's running jobs (a claim skips it
// at its cap) and ready jobs (Enqueue fails with *store.OverCapError, which the
// API answers with 429 and Retry-After).
//
// A handler's context is cancelled with cause ErrLeaseLost when its
// attempt loses the lease: the heartbeat could not renew it (the job was
// rescued, perhaps running elsewhere now), renewals failed for longer than
// the lease, or Progress found it gone. The handler must stop then.
//
// Delivery is at least once: a host that dies mid-job (or loses the
// database longer than its lease) has its job run again elsewhere. Handlers
// with external effects should be idempotent, keyed by Job.ID.
//
// # Lifecycle
//
// New builds a Queue (it may only enqueue); Start claims and runs jobs,
// renews leases, rescues expired leases and prunes finished jobs older than
// Options.Retention. Stop stops claiming, lets running jobs finish until its
// context ends, then cancels the rest and hands their leases back without
// counting the attempt, so another host starts them at once.
//
// # Metrics
//
// herald_jobs{queue,state} (queue depth across hosts: waiting, delayed,
// active), herald_jobs_running{queue} (this host), herald_jobs_attempts_total
// {queue,outcome}, herald_job_attempt_duration_seconds, herald_jobs_rescued_total,
// herald_jobs_pruned_total, herald_jobs_lease_lost_total{queue} and
// herald_jobs_store_errors_total.
//
// The durable job queue (aiQueue, seoQueue, contentQueue). The `jobs` row is
// the truth: workers claim batches atomically (`UPDATE … WHERE id IN (SELECT
// … LIMIT n FOR UPDATE SKIP LOCKED) RETURNING` on PostgreSQL/CockroachDB,
// the single writer on SQLite), hold a lease renewed every lease/3, and
// write outcomes in batches guarded by lease owner and attempt number, so a
// worker that lost its job can never overwrite it. A rescuer returns expired
// leases to waiting (counting the attempt). Wake-ups travel in-process, or
// over Redis pub/sub between hosts; polling (`job_poll_interval`) is the
// fallback, so a Redis outage only adds delay. Delivery is at least once:
// handlers with outside effects key their idempotency on the job.
// `jobstest/worker` is a tiny worker program for crash and multi-host tests.
// Claims are fair across workspaces (a `ROW_NUMBER() OVER (PARTITION BY
// workspace_id)` rank, rank 1 of everyone before rank 2 of anyone) and
// honour per-plan caps on running and ready jobs (`jobstore.JobCaps`; over the
// ready cap an enqueue fails with `*store.OverCapError`, which the API turns
// into 429 + Retry-After). The heartbeat cancels handlers whose lease is
// lost. Handlers are found by job name, else by the queue's fallback
// (`RegisterFallback`): that is how a client-named text job (`jobType`) runs
// on any host. Files: `queue.go` (options, registration, enqueue),
// `worker.go` (claiming and running), `lease.go` (completions, heartbeat,
// rescue, prune). On PostgreSQL the claim statement (`store/job_caps.go`,
// `claimSQL`) finds its candidates and locks them by primary key (`id =
// ANY(ARRAY(…))`, the lock's readiness test written as `jobNotTaken` so that
// the planner does not pick the partial index `jobs_ready`); its plans are
// printed by `HERALD_EXPLAIN_CLAIM=1 go test -run ExplainClaim -v
// ./host/internal/store`. Its loose scan of the workspaces returns each
// workspace's oldest ready job in the same step (one index lookup per
// workspace; SQLite keeps the older form). The fetcher batches: while a
// backlog lasts, a claim for fewer than half the free slots waits 1 ms
// (`backlogWait`); while enqueues stream in (a wake-up during a claim that
// was not full), the next claim starts at least 5 ms after the previous one
// began (`fetchCooldown`); a lone enqueue is claimed at once. A claim leaves
// its jobs' entries in the ready indexes dead until a vacuum, and a claim
// planned from stale statistics walks them all, so on PostgreSQL each host
// vacuums the jobs table after every 1,000 jobs it claims, at most once a
// second, in the background (`churned`, `store.Vacuum`; autovacuum may be
// late or off).
package jobs
