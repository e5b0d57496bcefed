package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/sdk"
)

// route is one configured model name with its deployments, in order.
type route struct {
	model       string
	deployments []*deployment
	cfg         config.Router
	met         *metrics
	log         hclog.Logger
}

// deployment is one provider plugin serving a model under its own name.
type deployment struct {
	provider string
	model    string
	proc     *process
	state    *deploymentState
}

// deploymentState is the health of a (provider, model) pair, shared by every
// route of a generation that uses it.
type deploymentState struct {
	fails     atomic.Int32
	coolUntil atomic.Int64 // unix nanoseconds
}

func (s *deploymentState) cooling(now time.Time) bool { return s.coolUntil.Load() > now.UnixNano() }

func (s *deploymentState) succeeded() {
	if s.fails.Load() != 0 {
		s.fails.Store(0)
	}
}

// failed counts a failure; the AllowedFails-th in a row starts a cooldown, and
// so does a Retry-After (for as long as it asks). It reports whether a
// cooldown started or grew.
func (s *deploymentState) failed(now time.Time, cfg config.Router, retryAfter time.Duration) bool {
	until := int64(0)
	if s.fails.Add(1) >= int32(cfg.AllowedFails) {
		s.fails.Store(0)
		until = now.Add(cfg.Cooldown).UnixNano()
	}
	if retryAfter > 0 {
		until = max(until, now.Add(retryAfter).UnixNano())
	}
	for {
		cur := s.coolUntil.Load()
		if until <= cur {
			return false
		}
		if s.coolUntil.CompareAndSwap(cur, until) {
			return true
		}
	}
}

// failure classes decide what the router does after a deployment failed.
type failure int

const (
	// failRequest: the request itself is at fault (invalid argument,
	// canceled, another 4xx); no other deployment would do better.
	failRequest failure = iota
	// failDeployment: this deployment cannot serve (unconfigured,
	// unauthenticated, unimplemented, a plugin bug); try the next one, but
	// not this one again in the call.
	failDeployment
	// failTransient: 429, 5xx, unreachable; try the next one and this one
	// again in a later round, after its Retry-After.
	failTransient
)

func classify(err error) (failure, time.Duration) {
	var e *sdk.Error
	if !errors.As(err, &e) {
		return failDeployment, 0
	}
	switch {
	case e.Retryable || e.Code == sdk.CodeRateLimited || e.Code == sdk.CodeUnavailable:
		return failTransient, e.RetryAfter
	case e.Code == sdk.CodeInvalidArgument || e.Code == sdk.CodeCanceled || e.Code == sdk.CodeRemote:
		return failRequest, 0
	default:
		return failDeployment, 0
	}
}

// routeCall tries r's deployments in order, in up to 1+Retries rounds:
// deployments in cooldown are skipped while another remains, a transient
// failure moves on to the next deployment and comes back in the next round
// (after the backoff and the deployment's Retry-After, unless that is longer
// than MaxRetryAfter), and a request error ends the call. again reports
// whether another attempt is still allowed (a chat that streamed is not).
func routeCall[T any](ctx context.Context, r *route, again func() bool, try func(context.Context, *deployment) (T, error)) (T, error) {
	var zero T
	if len(r.deployments) == 1 && r.cfg.Retries == 0 {
		v, err := try(ctx, r.deployments[0])
		r.record(r.deployments[0], err)
		return v, r.wrap(err)
	}
	type attempt struct {
		done      bool
		notBefore time.Time
	}
	var buf [4]attempt
	st := buf[:0]
	for range r.deployments {
		st = append(st, attempt{})
	}
	var last error
	for round := 0; round <= r.cfg.Retries; round++ {
		if round > 0 {
			if err := sleep(ctx, r.cfg.RetryBackoff<<(round-1)); err != nil {
				break
			}
		}
		now := time.Now()
		open, warm := 0, 0
		for i, d := range r.deployments {
			if !st[i].done {
				open++
				if !d.state.cooling(now) {
					warm++
				}
			}
		}
		if open == 0 {
			break
		}
		for i, d := range r.deployments {
			if st[i].done || (warm > 0 && d.state.cooling(now)) {
				continue
			}
			if wait := time.Until(st[i].notBefore); wait > 0 {
				if sleep(ctx, wait) != nil {
					return zero, r.wrap(last)
				}
			}
			if last != nil {
				r.met.fallbacks.WithLabelValues(r.model, d.provider).Inc()
			}
			v, err := try(ctx, d)
			if err == nil {
				d.state.succeeded()
				return v, nil
			}
			last = err
			class, retryAfter := r.record(d, err)
			if ctx.Err() != nil || class == failRequest || !again() {
				return zero, r.wrap(err)
			}
			switch {
			case class == failDeployment:
				st[i].done = true
			case retryAfter > r.cfg.MaxRetryAfter:
				st[i].done = true // it asked for longer than a call may wait
			case retryAfter > 0:
				st[i].notBefore = time.Now().Add(retryAfter)
			}
		}
	}
	return zero, r.wrap(last)
}

// record updates d's health after a call and returns how the error counts.
func (r *route) record(d *deployment, err error) (failure, time.Duration) {
	if err == nil {
		d.state.succeeded()
		return 0, 0
	}
	class, retryAfter := classify(err)
	if class == failRequest {
		return class, retryAfter
	}
	if d.state.failed(time.Now(), r.cfg, retryAfter) {
		r.met.cooldowns.WithLabelValues(r.model, d.provider).Inc()
		r.log.Warn("model deployment cooling down", "model", r.model, "provider", d.provider, "provider_model", d.model, "error", err)
	}
	return class, retryAfter
}

// wrap names the model in the final error; the *sdk.Error stays reachable
// through errors.As.
func (r *route) wrap(err error) error {
	if err == nil {
		return nil
	}
	if len(r.deployments) > 1 {
		return fmt.Errorf("model %q (%d deployments): %w", r.model, len(r.deployments), err)
	}
	return fmt.Errorf("model %q: %w", r.model, err)
}

// sleep waits d or until ctx is done; it refuses at once when ctx's deadline
// comes before d ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return context.DeadlineExceeded
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
