// Package schedule is Herald's post scheduler (/v1/scheduler): it stores
// posts with their contentToExport, re-hosts their images in the blob store,
// and publishes due posts exactly once through the destination plugins with
// the credentials that package destination keeps.
//
// A pending schedule and its publish job (queue contentQueue, run at
// whenToExport) are written in one transaction, so a schedule is never
// without a job. The job handler (Publisher) moves the schedule from
// pending to publishing with a guarded update, so that only one attempt on
// any host proceeds, exports it with the schedule's id as idempotency key,
// and records published (with the external id and URL) or failed (with the
// destination's message). Retryable failures (429, 5xx, unreachable) go
// back to pending with the reason and retry with backoff or Retry-After.
// An attempt that died between sending and recording leaves the schedule in
// publishing; the next attempt takes it over and exports again with the
// same idempotency key (see Publisher for what each destination does with
// it). A reconciler gives a new job to any due schedule whose job is gone.
//
// The post scheduler (`/v1/scheduler`): `schedule.New(Deps)`; its methods
// take the caller's principal from `handler.go` and apply the plan rule
// (`quota.SchedulerAPI`, shared with `destination`); the agent calls them
// the same way; schedules (`schedule.go`, returning `schedule.Schedule`;
// `create.go`: the input `NewSchedule` with `validate()`, then the plan
// rule, the cap (`Deps.Quota`) and the destination and credentials checks
// through the `Credentials` interface that `destination.Service` satisfies;
// `Check` runs the same validation for the agent's schedule tool, so there
// is one set of messages; `retry.go`; `image_host.go`: images re-hosted in
// the blob store through the guarded client; `image_sweep.go`: the
// `ImageSweeper`), and the `Publisher` (`publisher.go`, `reconcile.go`,
// `publish_credentials.go`), built by `NewPublisher(PublisherDeps,
// PublisherOptions)` with its own store, queue, destinations, blobs,
// `Credentials` and logger; its publish job is a row of `host/jobs.go`
// (`JobOptions`). The queue is the consumer-side `Queue` interface
// (`EnqueueTx`, `Wake`). Publisher and sweeper have
// `Start(ctx)`/`Stop(ctx)`. A pending schedule and its contentQueue publish
// job are written in one transaction (`EnqueueTx`, run at `whenToExport`);
// the job moves the row pending → publishing with a guarded update, exports
// through the plugin manager with the schedule id as idempotency key, and
// records published/failed. A reconciler re-enqueues due schedules whose job
// is gone.
package schedule
