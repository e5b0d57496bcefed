package generate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/sdk"
)

// redactable is the secrets that must not appear in the operator's log of
// provider failures (Deps.Secrets): those of at least 6 characters,
// longest first.
func redactable(secrets []string) []string {
	var out []string
	for _, v := range secrets {
		if v = strings.TrimSpace(v); len(v) >= 6 {
			out = append(out, v)
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// keyLike matches what providers echo of keys and bearer tokens even when
// the exact value is not configured here (partly masked keys included).
var keyLike = regexp.MustCompile(`(?i)\b(sk|pk|rk|api|key)[-_][A-Za-z0-9*_\-]{6,}|bearer\s+[A-Za-z0-9._~+/*\-]+=*`)

// pluginOptionError matches a plugin's refusal of request options
// ("openai: unknown options: topP (supported: ...)", "openai: options.seed
// must be an integer"), which names only option keys and is shown as is.
var pluginOptionError = regexp.MustCompile(`^[a-z0-9_-]+: (unknown options: |options\.[a-z_]+ )`)

// RedactAlso adds values to the secrets redacted from logged provider
// errors (a reload's new plugin settings and env, without a restart).
// Values already listed stay: a retired generation's calls may still fail.
func (s *Service) RedactAlso(values []string) {
	for {
		cur := s.secrets.Load()
		var all []string
		if cur != nil {
			all = append(all, *cur...)
		}
		seen := map[string]bool{}
		var uniq []string
		for _, v := range append(all, values...) {
			if !seen[v] {
				seen[v] = true
				uniq = append(uniq, v)
			}
		}
		next := redactable(uniq)
		if s.secrets.CompareAndSwap(cur, &next) {
			return
		}
	}
}

// RedactKeys removes key-like tokens (sk-…, Bearer …) from a provider's
// text before it is logged, for callers without the configured secrets.
func RedactKeys(msg string) string { return keyLike.ReplaceAllString(msg, "[REDACTED]") }

// redact removes configured secrets and key-like tokens from msg.
func (s *Service) redact(msg string) string {
	var secrets []string
	if p := s.secrets.Load(); p != nil {
		secrets = *p
	}
	for _, v := range secrets {
		msg = strings.ReplaceAll(msg, v, "[REDACTED]")
	}
	return keyLike.ReplaceAllString(msg, "[REDACTED]")
}

// providerError turns a model-router or plugin failure into an API error.
// The tenant sees a generic message by kind of failure and the request id;
// the provider's own text (which may quote keys, hosts and ports) goes
// only to the operator's log, redacted.
func (s *Service) providerError(ctx context.Context, err error) error {
	var se *sdk.Error
	if !errors.As(err, &se) {
		if errors.Is(err, context.DeadlineExceeded) {
			return apierr.New(connect.CodeDeadlineExceeded, "the model did not answer in time; use useWorker for long generations")
		}
		if errors.Is(err, context.Canceled) {
			return apierr.New(connect.CodeCanceled, "request canceled")
		}
		return err
	}
	s.log.Warn("provider call failed", "request_id", apierr.RequestID(ctx), "code", se.Code, "retryable", se.Retryable, "detail", s.redact(se.Message))
	if se.Code == sdk.CodeCanceled {
		return apierr.New(connect.CodeDeadlineExceeded, "the model did not answer in time; use useWorker for long generations")
	}
	return TenantProviderError(ctx, se)
}

// UnconfiguredMessage is what a tenant reads when the model's provider
// plugin is not set up on this server (no API key, settings it refused):
// what is missing, in operator terms, without the plugin's own text (which
// names environment variables and plugins the tenant cannot act on).
const UnconfiguredMessage = "the model is not available: its provider is not configured on this server (an API key or settings are missing); the operator's log says what to set"

// TenantProviderError is the API error a tenant sees for a provider
// failure on any route: a generic message by kind of failure with the
// request id, never the provider's text (the caller logs that, redacted).
func TenantProviderError(ctx context.Context, se *sdk.Error) error {
	id := apierr.RequestID(ctx)
	ref := ""
	if id != "" {
		ref = " (request id " + id + ")"
	}
	fields := []string{"requestId", id}
	switch se.Code {
	case sdk.CodeUnconfigured:
		return apierr.New(connect.CodeUnavailable, UnconfiguredMessage+ref, fields...)
	case sdk.CodeInvalidArgument:
		if se.StatusCode == 0 && pluginOptionError.MatchString(se.Message) {
			// The plugin's own check of request options (no remote text in
			// it): the caller must learn which option to fix.
			return apierr.Invalid("%s", se.Message)
		}
		return apierr.New(connect.CodeInvalidArgument, "the provider rejected the request"+ref, fields...)
	case sdk.CodeRateLimited:
		// Retries inside the router are exhausted: tell the client when to
		// come back, as the provider told us (both faces send the header).
		e := apierr.New(connect.CodeResourceExhausted, "the provider is rate limiting; retry later"+ref, fields...)
		e.Meta().Set("Retry-After", strconv.Itoa(retryAfterSeconds(se.RetryAfter)))
		return e
	case sdk.CodeCanceled:
		return apierr.New(connect.CodeDeadlineExceeded, "the model did not answer in time")
	default:
		return apierr.New(connect.CodeUnavailable, "the provider failed; retry later"+ref, fields...)
	}
}

// jobProviderError is the error a queued job records for a provider
// failure: generic, with the job id; the log has the redacted detail.
func (s *Service) jobProviderError(jobID string, se *sdk.Error) error {
	s.log.Warn("provider call failed", "job_id", jobID, "code", se.Code, "retryable", se.Retryable, "detail", s.redact(se.Message))
	switch se.Code {
	case sdk.CodeInvalidArgument:
		if se.StatusCode == 0 && pluginOptionError.MatchString(se.Message) {
			// The plugin's own check of request options (no remote text in
			// it): the caller must learn which option to fix.
			return apierr.Invalid("%s", se.Message)
		}
		return fmt.Errorf("the provider rejected the request (job %s)", jobID)
	case sdk.CodeRateLimited:
		return fmt.Errorf("the provider is rate limiting (job %s)", jobID)
	case sdk.CodeUnconfigured:
		return fmt.Errorf("%s (job %s)", UnconfiguredMessage, jobID)
	}
	return fmt.Errorf("the provider failed (job %s)", jobID)
}

// DefaultRetryAfter is the Retry-After sent with a 429 when the provider
// named no delay.
const DefaultRetryAfter = 10 * time.Second

// retryAfterSeconds is d in whole seconds (rounded up, at least 1), or
// DefaultRetryAfter when d is not positive.
func retryAfterSeconds(d time.Duration) int {
	if d <= 0 {
		d = DefaultRetryAfter
	}
	return max(1, int(math.Ceil(d.Seconds())))
}
