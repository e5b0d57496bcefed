package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// JobPublish is the contentQueue job that publishes one schedule.
const JobPublish = "schedule.publish"

// publishData is the publish job's input.
type publishData struct {
	ScheduleID string `json:"scheduleId"`
}

func publishJob(workspace, id string, when int64) jobs.NewJob {
	return jobs.NewJob{
		Workspace: workspace, Queue: jobs.ContentQueue, Name: JobPublish,
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
	// RepeatAhead is how far ahead repeat rules' occurrences are created
	// (default RepeatAhead).
	RepeatAhead time.Duration
	// Registerer receives the publisher's metrics; nil: not registered.
	Registerer prometheus.Registerer
}

// Publisher publishes due schedules: it is the handler of JobPublish
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
	deps PublisherDeps
	opts PublisherOptions
	lag  prometheus.Histogram
	outc *prometheus.CounterVec

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// PublisherDeps are what the publisher works with.
type PublisherDeps struct {
	Store *store.Store
	// Queue takes the publish jobs the reconciler enqueues.
	Queue        Queue
	Destinations Destinations
	// Blobs holds schedule images; nil fails exports of schedules with one.
	Blobs blob.Store
	// Credentials opens an export's credentials (*destination.Service).
	Credentials Credentials
	Logger      hclog.Logger
}

// NewPublisher returns a publisher over d. It is the handler of the
// JobPublish jobs on jobs.ContentQueue, run with JobOptions; the host's
// job table mounts it.
func NewPublisher(d PublisherDeps, o PublisherOptions) (*Publisher, error) {
	if err := deps.Check("schedule publisher",
		deps.Need("Credentials", d.Credentials == nil), deps.Need("Destinations", d.Destinations == nil),
		deps.Need("Queue", d.Queue == nil), deps.Need("Store", d.Store == nil),
	); err != nil {
		return nil, err
	}
	if d.Logger == nil {
		d.Logger = hclog.NewNullLogger()
	}
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
	if o.RepeatAhead <= 0 {
		o.RepeatAhead = RepeatAhead
	}
	if o.ReconcileInterval <= 0 {
		o.ReconcileInterval = 30 * time.Second
	}
	p := &Publisher{
		deps: d, opts: o, stop: make(chan struct{}), done: make(chan struct{}),
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
		for _, c := range []prometheus.Collector{p.lag, p.outc} {
			if err := o.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("schedule: register publisher metrics: %w", err)
			}
		}
	}
	return p, nil
}

// JobOptions are how the queue runs the publisher's JobPublish jobs
// (the Publisher is their handler): its attempts, backoff and timeout.
func (p *Publisher) JobOptions() jobs.HandlerOptions {
	return jobs.HandlerOptions{
		MaxAttempts: p.opts.MaxAttempts,
		Backoff:     jobs.ExponentialBackoff(p.opts.RetryBase, p.opts.RetryMax),
		Timeout:     p.opts.Timeout,
	}
}

// Work publishes the schedule of one job.
func (p *Publisher) Work(ctx context.Context, job *jobs.Job) (any, error) {
	var d publishData
	if err := job.Decode(&d); err != nil {
		return nil, err
	}
	st := p.deps.Store
	sc, err := st.GetSchedule(ctx, job.Workspace, d.ScheduleID)
	if errors.Is(err, store.ErrNotFound) {
		return map[string]string{"skipped": "schedule removed"}, nil
	}
	if err != nil {
		return nil, err
	}
	if sc.JobID != nil && *sc.JobID != job.ID {
		// The post was moved (or retried) since: its current job publishes it.
		return map[string]string{"skipped": "the schedule has another publish job"}, nil
	}
	var ok bool
	switch statusOf(sc.Status) {
	case StatusPending:
		sc, ok, err = st.ClaimSchedule(ctx, job.Workspace, sc.ID)
	case StatusPublishing:
		// The attempt that claimed it never recorded an outcome: its host
		// died or lost its lease. Take over and export again with the same
		// idempotency key.
		p.deps.Logger.Warn("taking over a schedule left publishing", "schedule", sc.ID, "attempts", sc.Attempts)
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
	if exportErr != nil {
		p.recordRefusal(ctx, sc, exportErr)
	}
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
	if err := p.attachImage(ctx, sc, &req); err != nil {
		return sdk.ExportResult{}, err
	}
	return p.deps.Destinations.Export(ctx, sc.ExportTo, req)
}

// attachImage passes the bytes of an image Herald stores, with its MIME
// type, a file name and alt text, to every destination, so that no plugin
// fetches the host's own URL: in the embedded default, on a LAN or in a
// container network that URL is private, and the plugins' guarded clients
// rightly refuse it. A missing blob fails the export; a store error is
// retried.
func (p *Publisher) attachImage(ctx context.Context, sc store.Schedule, req *sdk.ExportRequest) error {
	if sc.ImageKey == nil {
		return nil
	}
	if p.deps.Blobs == nil {
		return sdk.Errorf(sdk.CodeUnconfigured, "the schedule has a stored image but this host has no blob store")
	}
	rc, obj, err := p.deps.Blobs.Open(ctx, *sc.ImageKey)
	if errors.Is(err, blob.ErrNotFound) {
		return sdk.Errorf(sdk.CodeInvalidArgument, "the schedule's image %s is no longer stored", *sc.ImageKey)
	}
	if err != nil {
		return fmt.Errorf("open the schedule's image: %w", err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, blob.MaxBytes+1))
	if err != nil {
		return fmt.Errorf("read the schedule's image: %w", err)
	}
	if len(data) > blob.MaxBytes {
		return sdk.Errorf(sdk.CodeInvalidArgument, "the schedule's image is larger than %d bytes", blob.MaxBytes)
	}
	req.ImageData, req.ImageMIMEType = data, obj.MIME
	req.ImageFileName = uploadFileName(req.Content, obj.MIME)
	req.ImageAlt = firstNonEmpty(req.Content.String("imageAlt"), req.Content.String("title"))
	return nil
}

// uploadFileName is contentToExport.imageFileName, else a slug of the title,
// else "image", given the extension of mimeType when it has none.
func uploadFileName(content sdk.Content, mimeType string) string {
	name := content.String("imageFileName")
	if name == "" {
		name = slug(content.String("title"))
	}
	if name == "" {
		name = "image"
	}
	if path.Ext(name) == "" {
		name += imageExtensions[mimeType]
	}
	return name
}

var imageExtensions = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

// slug is title in lower case ASCII letters and digits joined by single
// hyphens, at most 80 characters (a file name, not a URL path).
func slug(title string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
		default:
			hyphen = true
		}
		if b.Len() >= 80 {
			break
		}
	}
	return b.String()
}

// record writes the attempt's outcome and tells the queue what to do.
func (p *Publisher) record(ctx context.Context, job *jobs.Job, sc store.Schedule, res sdk.ExportResult, exportErr error) (any, error) {
	st := p.deps.Store
	// The outcome must be written even when the attempt's context ended
	// (timeout): the send may have happened.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if exportErr == nil {
		res.ExternalURL = safeExternalURL(p.deps.Logger, sc.ID, sc.ExportTo, res.ExternalURL)
		event := catalog.SchedulePublish(sc.WorkspaceID, catalog.Schedule{ScheduleID: sc.ID, Destination: sc.ExportTo,
			ExternalID: res.ExternalID, ExternalURL: res.ExternalURL})
		owned, err := st.FinishSchedule(wctx, sc.WorkspaceID, sc.ID, sc.Attempts, store.ScheduleOutcome{
			Status: StatusPublished.stored(), ExternalID: res.ExternalID, ExternalURL: res.ExternalURL, Event: &event,
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
			p.deps.Logger.Info("schedule published", "schedule", sc.ID, "destination", sc.ExportTo, "attempt", sc.Attempts)
		}
		return map[string]string{"status": StatusPublished.stored(), "externalId": res.ExternalID, "externalUrl": res.ExternalURL}, nil
	}

	reason, retry, after := p.classify(exportErr)
	if ctx.Err() != nil && errors.Is(exportErr, context.Canceled) {
		// The host is shutting down: leave the schedule publishing; the
		// job is handed back and the next attempt takes it over.
		return nil, exportErr
	}
	last := job.Attempt >= job.MaxAttempts
	status := StatusPending
	if !retry || last {
		status = StatusFailed
		if retry {
			reason = fmt.Sprintf("gave up after %d attempts: %s", job.Attempt, reason)
		}
	}
	event := catalog.ScheduleFailure(sc.WorkspaceID, catalog.Schedule{ScheduleID: sc.ID, Destination: sc.ExportTo, Error: reason,
		WillRetry: status == StatusPending})
	if _, err := st.FinishSchedule(wctx, sc.WorkspaceID, sc.ID, sc.Attempts, store.ScheduleOutcome{Status: status.stored(), Error: reason, Event: &event}); err != nil {
		return nil, fmt.Errorf("record failure of schedule %s: %w", sc.ID, err)
	}
	if status == StatusFailed {
		p.outc.WithLabelValues(sc.ExportTo, "failed").Inc()
		p.deps.Logger.Warn("schedule failed", "schedule", sc.ID, "destination", sc.ExportTo, "attempt", sc.Attempts, "reason", reason)
		return nil, jobs.NoRetry(fmt.Errorf("export schedule %s to %s: %s", sc.ID, sc.ExportTo, reason))
	}
	p.outc.WithLabelValues(sc.ExportTo, "retry").Inc()
	p.deps.Logger.Info("schedule export will be retried", "schedule", sc.ID, "destination", sc.ExportTo, "attempt", sc.Attempts, "reason", reason)
	err := fmt.Errorf("export schedule %s to %s: %s", sc.ID, sc.ExportTo, reason)
	if after > 0 {
		return nil, jobs.RetryAfter(min(after, p.opts.MaxRetryAfter), err)
	}
	return nil, err
}

// UnknownDestinationRetryAfter is the delay before retrying a post whose
// destination the running host does not know.
const UnknownDestinationRetryAfter = 30 * time.Second

// classify returns the reason to record, whether to retry, and the
// destination's Retry-After. 429 and 5xx (and unreachable remotes) retry;
// other refusals fail at once with the destination's message.
func (p *Publisher) classify(err error) (reason string, retry bool, after time.Duration) {
	if errors.Is(err, sdk.ErrUnknownDestination) {
		// In distributed mode a host that has not reloaded yet (rolling
		// SIGHUP or deploy) may claim a post for a destination another host
		// already knows: retry for a while (the job's attempts with this
		// delay) instead of losing the post; it fails when attempts run out.
		return "the destination is not configured on the host that ran this attempt", true, UnknownDestinationRetryAfter
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
