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
// at its cap) and ready jobs (Enqueue fails with *OverCapError, which the
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
package jobs
