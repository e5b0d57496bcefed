package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// PublishJobName is the contentQueue job that publishes one schedule.
const PublishJobName = "schedule.publish"

// RepeatableDestinations are the destinations whose Export the plugin
// manager may repeat once after a plugin crash, because a repeat carries the
// same idempotency key and the remote deduplicates on it: the webhook
// destination sends it as webhook-id, which Standard Webhooks receivers
// must deduplicate on.
var RepeatableDestinations = []string{WebhookDestination}

// publishData is the publish job's input.
type publishData struct {
	ScheduleID string `json:"scheduleId"`
}

func publishJob(workspace, id string, when int64) jobs.NewJob {
	return jobs.NewJob{
		Workspace: workspace, Queue: jobs.ContentQueue, Name: PublishJobName,
		Data: publishData{ScheduleID: id}, RunAt: time.UnixMilli(when),
	}
}

// PublisherOptions tune the publisher. Zero values take the defaults.
type PublisherOptions struct {
	// MaxAttempts bounds the attempts of one schedule (default 8).
	MaxAttempts int
	// RetryBase and RetryMax bound the exponential backoff between attempts
	// that failed with a retryable error and no Retry-After (default 5s and
	// 30m).
	RetryBase, RetryMax time.Duration
	// MaxRetryAfter caps a destination's Retry-After (default 1h).
	MaxRetryAfter time.Duration
	// Timeout bounds one attempt (default 2m).
	Timeout time.Duration
	// ReconcileInterval is how often due schedules without a live job are
	// looked for (default 30s); it also runs at Start.
	ReconcileInterval time.Duration
	// Registerer receives the publisher's metrics; nil: not registered.
	Registerer prometheus.Registerer
}

// Publisher publishes due schedules: it is the handler of PublishJobName
// jobs and reconciles schedules whose job went missing.
//
// Exactly once: the job queue runs a job on one host at a time, and the
// handler proceeds only if its guarded update moved the schedule from
// pending to publishing (or took over a publishing schedule whose attempt
// died, guarded by the attempt count). Every export of a schedule carries
// the same idempotency key, the schedule id. What a destination does with a
// repeated key after a crash between "sent" and "recorded":
//
//   - webhook: the repeat carries the same webhook-id; Standard Webhooks
//     receivers deduplicate on it, so the post is processed once.
//   - wordpress, webflow, notion, linkedin: their APIs take no idempotency
//     key, so the plugins cannot detect the earlier send; a crash in that
//     window (milliseconds) can publish twice. Retries after a 429 or 5xx
//     answer are repeated the same way.
type Publisher struct {
	svc  *Service
	opts PublisherOptions
	lag  prometheus.Histogram
	outc *prometheus.CounterVec

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// NewPublisher returns the publisher of svc's schedules and registers its
// handler on svc's queue; call it before the queue starts.
func NewPublisher(svc *Service, o PublisherOptions) *Publisher {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 8
	}
	if o.RetryBase <= 0 {
		o.RetryBase = 5 * time.Second
	}
	if o.RetryMax <= 0 {
		o.RetryMax = 30 * time.Minute
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = time.Hour
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.ReconcileInterval <= 0 {
		o.ReconcileInterval = 30 * time.Second
	}
	p := &Publisher{
		svc: svc, opts: o, stop: make(chan struct{}), done: make(chan struct{}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "herald_schedule_publish_lag_seconds",
			Help:    "Time from a schedule's whenToExport to its recorded publication.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2, 5, 10, 30, 60, 300},
		}),
		outc: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_schedule_publish_attempts_total",
			Help: "Publish attempts by destination and outcome (published, retry, failed).",
		}, []string{"destination", "outcome"}),
	}
	if o.Registerer != nil {
		o.Registerer.MustRegister(p.lag, p.outc)
	}
	svc.queue.Register(PublishJobName, p, jobs.HandlerOptions{
		MaxAttempts: o.MaxAttempts,
		Backoff:     jobs.ExponentialBackoff(o.RetryBase, o.RetryMax),
		Timeout:     o.Timeout,
	})
	return p
}

// Start reconciles at once (schedules that fell due while no host ran are
// published by their jobs as soon as the queue starts; this catches those
// whose job is gone) and then every ReconcileInterval until Stop.
func (p *Publisher) Start() {
	go func() {
		defer close(p.done)
		t := time.NewTicker(p.opts.ReconcileInterval)
		defer t.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), p.opts.ReconcileInterval)
			if err := p.Reconcile(ctx); err != nil {
				p.svc.log.Error("reconciling schedules failed", "error", err)
			}
			cancel()
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// Stop ends the reconcile loop.
func (p *Publisher) Stop() {
	p.stopOnce.Do(func() { close(p.stop) })
	<-p.done
}

// errRequeuedElsewhere rolls back a requeue that another reconciler made first.
var errRequeuedElsewhere = errors.New("schedule requeued by another reconciler")

// Reconcile gives a new publish job to every due unfinished schedule whose
// job is missing or completed, and fails those whose job failed for good
// without recording an outcome.
func (p *Publisher) Reconcile(ctx context.Context) error {
	st, q := p.svc.store, p.svc.queue
	orphans, err := st.OrphanSchedules(ctx, st.Now(), 500)
	if err != nil {
		return err
	}
	requeued := 0
	for _, o := range orphans {
		if o.JobState == store.JobFailed {
			reason := "the publish job failed"
			if o.JobReason != nil {
				reason += ": " + *o.JobReason
			}
			if err := st.FailUnfinishedSchedule(ctx, o.WorkspaceID, o.ID, reason); err != nil {
				return err
			}
			continue
		}
		err := st.Tx(ctx, func(tx store.Querier) error {
			jobID, err := q.EnqueueTx(ctx, tx, publishJob(o.WorkspaceID, o.ID, st.Now()))
			if err != nil {
				return err
			}
			// Another reconciler (the start-up pass, another host) may have
			// requeued it since we looked: then this job is rolled back.
			ok, err := st.ReplaceScheduleJob(ctx, tx, o.WorkspaceID, o.ID, o.JobID, jobID)
			if err == nil && !ok {
				err = errRequeuedElsewhere
			}
			return err
		})
		if errors.Is(err, errRequeuedElsewhere) {
			continue
		}
		if err != nil {
			return fmt.Errorf("requeue schedule %s: %w", o.ID, err)
		}
		requeued++
	}
	if requeued > 0 {
		p.svc.log.Warn("requeued due schedules that had no publish job", "schedules", requeued)
		q.Wake(jobs.ContentQueue)
	}
	return nil
}

// Work publishes the schedule of one job.
func (p *Publisher) Work(ctx context.Context, job *jobs.Job) (any, error) {
	var d publishData
	if err := job.Decode(&d); err != nil {
		return nil, err
	}
	st := p.svc.store
	sc, err := st.GetSchedule(ctx, job.Workspace, d.ScheduleID)
	if errors.Is(err, store.ErrNotFound) {
		return map[string]string{"skipped": "schedule removed"}, nil
	}
	if err != nil {
		return nil, err
	}
	var ok bool
	switch sc.Status {
	case store.SchedulePending:
		sc, ok, err = st.ClaimSchedule(ctx, job.Workspace, sc.ID)
	case store.SchedulePublishing:
		// The attempt that claimed it never recorded an outcome: its host
		// died or lost its lease. Take over and export again with the same
		// idempotency key.
		p.svc.log.Warn("taking over a schedule left publishing", "schedule", sc.ID, "attempts", sc.Attempts)
		sc, ok, err = st.ReclaimSchedule(ctx, job.Workspace, sc.ID, sc.Attempts)
	default:
		return map[string]string{"skipped": "schedule is " + sc.Status}, nil
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return map[string]string{"skipped": "another attempt holds the schedule"}, nil
	}
	res, exportErr := p.export(ctx, sc)
	return p.record(ctx, job, sc, res, exportErr)
}

// export sends the claimed schedule to its destination.
func (p *Publisher) export(ctx context.Context, sc store.Schedule) (sdk.ExportResult, error) {
	var content sdk.Content
	if err := json.Unmarshal([]byte(sc.Content), &content); err != nil {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeInternal, "stored contentToExport is not JSON: %v", err)
	}
	creds, err := p.credentials(ctx, sc)
	if err != nil {
		return sdk.ExportResult{}, err
	}
	req := sdk.ExportRequest{ScheduleID: sc.ID, IdempotencyKey: sc.ID, Content: content, Credentials: creds, ImageURL: content.String("imageUrl")}
	p.attachImage(ctx, sc, &req)
	if slices.Contains(RepeatableDestinations, sc.ExportTo) && p.svc.idem != nil {
		ctx = p.svc.idem(ctx)
	}
	return p.svc.dests.Export(ctx, sc.ExportTo, req)
}

// credentials loads what the export needs, failing (not retrying) when it
// is gone: a deleted webhook or connection does not come back by itself.
func (p *Publisher) credentials(ctx context.Context, sc store.Schedule) (map[string]string, error) {
	if p.svc.sealer == nil {
		return nil, sdk.Errorf(sdk.CodeUnconfigured, "%s", ErrNoSecretKey.Error())
	}
	if sc.ExportTo == WebhookDestination {
		if sc.WebhookID == nil {
			return nil, sdk.Errorf(sdk.CodeInvalidArgument, "the schedule names no webhook")
		}
		creds, err := p.svc.webhookCredentials(ctx, sc.WorkspaceID, *sc.WebhookID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, sdk.Errorf(sdk.CodeInvalidArgument, "webhook %s was deleted", *sc.WebhookID)
		}
		return creds, err
	}
	creds, err := p.svc.connectionCredentials(ctx, sc.WorkspaceID, sc.ExportTo)
	if errors.Is(err, store.ErrNotFound) {
		return nil, sdk.Errorf(sdk.CodeInvalidArgument, "this workspace is not connected to %s: PUT /v1/destinations/%s/connection", sc.ExportTo, sc.ExportTo)
	}
	return creds, err
}

// maxInlineImage bounds the image bytes passed to a plugin with the export
// (gRPC messages are capped at 4 MiB); larger images are fetched by URL.
const maxInlineImage = 3 << 20

// attachImage passes the bytes of a re-hosted image to destinations that
// read imageUrl, so that they need not fetch the host's own URL (which the
// guarded client of a plugin may refuse, being loopback in the embedded
// default).
func (p *Publisher) attachImage(ctx context.Context, sc store.Schedule, req *sdk.ExportRequest) {
	if sc.ImageKey == nil || p.svc.blobs == nil {
		return
	}
	info, err := p.svc.dests.DestinationInfo(ctx, sc.ExportTo)
	if err != nil || (!slices.Contains(info.RequiredKeys, "imageUrl") && !slices.Contains(info.OptionalKeys, "imageUrl")) {
		return
	}
	rc, obj, err := p.svc.blobs.Open(ctx, *sc.ImageKey)
	if err != nil {
		p.svc.log.Warn("schedule image unavailable; the destination fetches imageUrl", "schedule", sc.ID, "error", err)
		return
	}
	defer rc.Close()
	if obj.Size > maxInlineImage {
		return
	}
	data := make([]byte, obj.Size)
	if _, err := io.ReadFull(rc, data); err != nil {
		return
	}
	req.ImageData, req.ImageMIMEType = data, obj.MIME
}

// record writes the attempt's outcome and tells the queue what to do.
func (p *Publisher) record(ctx context.Context, job *jobs.Job, sc store.Schedule, res sdk.ExportResult, exportErr error) (any, error) {
	st := p.svc.store
	// The outcome must be written even when the attempt's context ended
	// (timeout): the send may have happened.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if exportErr == nil {
		owned, err := st.FinishSchedule(wctx, sc.WorkspaceID, sc.ID, sc.Attempts, store.ScheduleOutcome{
			Status: store.SchedulePublished, ExternalID: res.ExternalID, ExternalURL: res.ExternalURL,
		})
		if err != nil {
			// Left publishing; the retry takes it over and repeats the
			// export with the same idempotency key.
			return nil, fmt.Errorf("record publication of schedule %s: %w", sc.ID, err)
		}
		if owned {
			p.outc.WithLabelValues(sc.ExportTo, "published").Inc()
			if sc.WhenToExport != nil {
				p.lag.Observe(float64(st.Now()-*sc.WhenToExport) / 1000)
			}
			p.svc.log.Info("schedule published", "schedule", sc.ID, "destination", sc.ExportTo, "attempt", sc.Attempts)
		}
		return map[string]string{"status": store.SchedulePublished, "externalId": res.ExternalID, "externalUrl": res.ExternalURL}, nil
	}

	reason, retry, after := p.classify(exportErr)
	if ctx.Err() != nil && errors.Is(exportErr, context.Canceled) {
		// The host is shutting down: leave the schedule publishing; the
		// job is handed back and the next attempt takes it over.
		return nil, exportErr
	}
	last := job.Attempt >= job.MaxAttempts
	status := store.SchedulePending
	if !retry || last {
		status = store.ScheduleFailed
		if retry {
			reason = fmt.Sprintf("gave up after %d attempts: %s", job.Attempt, reason)
		}
	}
	if _, err := st.FinishSchedule(wctx, sc.WorkspaceID, sc.ID, sc.Attempts, store.ScheduleOutcome{Status: status, Error: reason}); err != nil {
		return nil, fmt.Errorf("record failure of schedule %s: %w", sc.ID, err)
	}
	if status == store.ScheduleFailed {
		p.outc.WithLabelValues(sc.ExportTo, "failed").Inc()
		p.svc.log.Warn("schedule failed", "schedule", sc.ID, "destination", sc.ExportTo, "attempt", sc.Attempts, "reason", reason)
		return nil, jobs.NoRetry(fmt.Errorf("export schedule %s to %s: %s", sc.ID, sc.ExportTo, reason))
	}
	p.outc.WithLabelValues(sc.ExportTo, "retry").Inc()
	p.svc.log.Info("schedule export will be retried", "schedule", sc.ID, "destination", sc.ExportTo, "attempt", sc.Attempts, "reason", reason)
	err := fmt.Errorf("export schedule %s to %s: %s", sc.ID, sc.ExportTo, reason)
	if after > 0 {
		return nil, jobs.RetryAfter(min(after, p.opts.MaxRetryAfter), err)
	}
	return nil, err
}

// classify returns the reason to record, whether to retry, and the
// destination's Retry-After. 429 and 5xx (and unreachable remotes) retry;
// other refusals fail at once with the destination's message.
func (p *Publisher) classify(err error) (reason string, retry bool, after time.Duration) {
	if p.svc.isUnknown(err) {
		return "the destination is no longer configured", false, 0
	}
	var se *sdk.Error
	if errors.As(err, &se) {
		msg := se.Message
		if se.StatusCode != 0 {
			msg = fmt.Sprintf("%s (HTTP %d)", msg, se.StatusCode)
		}
		return msg, se.Retryable, se.RetryAfter
	}
	// Anything else (the store, a transport failure of the plugin call)
	// leaves the outcome unknown; retry with the same idempotency key.
	return err.Error(), true, 0
}
