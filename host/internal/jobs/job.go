package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"math/rand/v2"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
)

// The queues of the API (a job's queue field).
const (
	AIQueue      = "aiQueue"
	SEOQueue     = "seoQueue"
	ContentQueue = "contentQueue"
)

// QueueNames lists every queue a Queue serves.
var QueueNames = []string{AIQueue, SEOQueue, ContentQueue}

// State is a job's state, as GET /v1/ai/generate/job/{jobId} reports it.
// The store keeps it as text (StateOf converts a stored row's).
type State string

// The job states.
const (
	StateWaiting   State = store.JobWaiting
	StateDelayed   State = store.JobDelayed
	StateActive    State = store.JobActive
	StateCompleted State = store.JobCompleted
	StateFailed    State = store.JobFailed
)

// StateOf is the state of a stored job.
func StateOf(j jobstore.Job) State { return State(j.State) }

// Finished reports whether a job in state s can no longer change.
func (s State) Finished() bool { return s == StateCompleted || s == StateFailed }

// Defaults of HandlerOptions.
const (
	DefaultMaxAttempts = 3
	DefaultTimeout     = 10 * time.Minute
)

// NewJob is a job to enqueue.
type NewJob struct {
	// Workspace owns the job; only its callers can poll it. Required.
	Workspace string
	// Queue is AIQueue, SEOQueue or ContentQueue. Required.
	Queue string
	// Name selects the handler registered under it. Required.
	Name string
	// Data is the job input; it is stored as JSON and must marshal to a JSON
	// object (nil stores {}). A json.RawMessage or []byte is stored as is.
	Data any
	// RunAt delays the job until then; zero runs it as soon as possible.
	RunAt time.Time
	// MaxAttempts overrides the handler's MaxAttempts for this job.
	MaxAttempts int
}

// Job is one attempt of a job as its handler sees it.
type Job struct {
	ID        string
	Workspace string
	Queue     string
	Name      string
	// Data is the job input as JSON; Decode unmarshals it.
	Data json.RawMessage
	// Attempt counts from 1; MaxAttempts is the last one.
	Attempt     int
	MaxAttempts int

	q *Queue
	a *attempt
}

// Decode unmarshals the job's data into v.
func (j *Job) Decode(v any) error {
	if err := json.Unmarshal(j.Data, v); err != nil {
		return NoRetry(fmt.Errorf("decode data of job %s (%s): %w", j.ID, j.Name, err))
	}
	return nil
}

// Progress records progress (percent, 0 to 100) and, when partial is not
// nil, a partial result that pollers see in the job's result until the job
// completes. It fails with ErrLeaseLost when this attempt no longer owns the
// job (the lease expired and another worker took it), in which case the
// handler should stop.
func (j *Job) Progress(ctx context.Context, progress int, partial any) error {
	progress = max(0, min(progress, 100))
	var text *string
	if partial != nil {
		s, err := marshalObject(partial)
		if err != nil {
			return fmt.Errorf("partial result of job %s: %w", j.ID, err)
		}
		text = &s
	}
	err := jobstore.New(j.q.store).UpdateJobProgress(ctx, j.q.owner, j.ID, j.Attempt, progress, text)
	if errors.Is(err, store.ErrNotFound) {
		if j.a != nil {
			j.q.loseLease(j.a)
		}
		return ErrLeaseLost
	}
	if err != nil && errors.Is(context.Cause(ctx), ErrLeaseLost) {
		// The heartbeat saw the lease lost first and cancelled ctx, so the
		// update failed with the cancellation: report the cause.
		return ErrLeaseLost
	}
	return err
}

// ErrLeaseLost means the attempt no longer owns its job. It is also the
// cause (context.Cause) of a handler's context cancelled because the lease
// was lost: another worker may be running the job now, so the handler must
// stop.
var ErrLeaseLost = errors.New("job lease lost: another worker owns the job now")

// Handler runs the jobs of one name. It returns the job's result, marshalled
// to JSON (an object; other values are wrapped as {"value": ...}), or an
// error: a plain error is retried with backoff until MaxAttempts,
// RetryAfter(d, err) retries after d, NoRetry(err) fails the job at once.
// The context ends at the handler's timeout, when the host shuts down
// past its grace period, and when the attempt loses its lease (cause
// ErrLeaseLost); the handler must return promptly then.
type Handler interface {
	Work(ctx context.Context, job *Job) (result any, err error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, job *Job) (any, error)

// Work calls f.
func (f HandlerFunc) Work(ctx context.Context, job *Job) (any, error) { return f(ctx, job) }

// HandlerOptions tune how the jobs of one name run.
type HandlerOptions struct {
	// MaxAttempts is how many times a job runs before it fails for good,
	// counting the first run. Zero: DefaultMaxAttempts.
	MaxAttempts int
	// Backoff is the delay before the retry that follows attempt (1-based).
	// Nil: ExponentialBackoff(time.Second, time.Hour).
	Backoff func(attempt int) time.Duration
	// Timeout bounds one attempt. Zero: DefaultTimeout.
	Timeout time.Duration
}

func (o HandlerOptions) withDefaults() HandlerOptions {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.Backoff == nil {
		o.Backoff = ExponentialBackoff(time.Second, time.Hour)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// ExponentialBackoff returns base·2^(attempt-1), capped at max, with "equal
// jitter": a uniformly random value between half of that and all of it, so
// that jobs failing together do not retry together.
func ExponentialBackoff(base, max time.Duration) func(attempt int) time.Duration {
	return func(attempt int) time.Duration {
		d := base
		for i := 1; i < attempt && d < max; i++ {
			if d > max/2 {
				d = max // doubling would pass the cap, or overflow
			} else {
				d *= 2
			}
		}
		d = min(d, max)
		half := d / 2
		if half <= 0 {
			return d
		}
		return half + rand.N(d-half+1)
	}
}

// RetryAfterError asks for a retry after a given delay (for example a rate
// limit's Retry-After). Make it with RetryAfter.
type RetryAfterError struct {
	After time.Duration
	Err   error
}

func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("%v (retry after %s)", e.Err, e.After)
}

func (e *RetryAfterError) Unwrap() error { return e.Err }

// RetryAfter returns an error that retries the job after d instead of the
// handler's backoff. The job still fails for good at its last attempt.
func RetryAfter(d time.Duration, err error) error {
	return &RetryAfterError{After: d, Err: err}
}

// NoRetryError fails the job at once, whatever attempts remain. Make it with
// NoRetry.
type NoRetryError struct{ Err error }

func (e *NoRetryError) Error() string { return e.Err.Error() }

func (e *NoRetryError) Unwrap() error { return e.Err }

// NoRetry returns an error that fails the job without further attempts: the
// input is invalid, or retrying cannot help.
func NoRetry(err error) error { return &NoRetryError{Err: err} }

// marshalObject renders v as a JSON object: raw JSON objects as they are,
// other values wrapped as {"value": v}.
func marshalObject(v any) (string, error) {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return "", err
		}
		raw = b
	}
	if !json.Valid(raw) {
		return "", errors.New("not valid JSON")
	}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '{' {
		return string(trimmed), nil
	}
	b, err := json.Marshal(map[string]json.RawMessage{"value": raw})
	return string(b), err
}
