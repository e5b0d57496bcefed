package sdk

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Code classifies a plugin failure so that the host can decide what to do
// (retry, give up, or tell an operator what to configure).
type Code string

// The codes a plugin returns. Hosts map them to HTTP statuses; for example
// CodeUnconfigured becomes 503 with the error's message ("set
// OPENAI_API_KEY").
const (
	// CodeInternal is a bug or an unexpected failure inside the plugin.
	CodeInternal Code = "internal"
	// CodeUnconfigured means the plugin lacks an operator setting, such as
	// an API key, and cannot work until it is set.
	CodeUnconfigured Code = "unconfigured"
	// CodeInvalidArgument means the request itself is wrong (a missing
	// contentToExport key, a bad credential format, a remote 400/422).
	CodeInvalidArgument Code = "invalid_argument"
	// CodeUnauthenticated means the remote rejected the credentials (401).
	CodeUnauthenticated Code = "unauthenticated"
	// CodePermissionDenied means the credentials lack a permission (403).
	CodePermissionDenied Code = "permission_denied"
	// CodeNotFound means the remote does not know the addressed resource.
	CodeNotFound Code = "not_found"
	// CodeRateLimited means the remote answered 429; retry after RetryAfter.
	CodeRateLimited Code = "rate_limited"
	// CodeUnavailable means the remote failed (5xx) or could not be
	// reached; a retry may succeed.
	CodeUnavailable Code = "unavailable"
	// CodeRemote is any other refusal by the remote (other 4xx).
	CodeRemote Code = "remote"
	// CodeUnimplemented means the plugin does not offer the capability.
	CodeUnimplemented Code = "unimplemented"
	// CodeCanceled means the caller canceled the call or its deadline passed.
	CodeCanceled Code = "canceled"
	// CodeUnknownModel means the host has no model (or alias) of the name
	// asked for. Hosts return it; plugins do not.
	CodeUnknownModel Code = "unknown_model"
	// CodeUnknownDestination means the host has no destination plugin of
	// the name asked for. Hosts return it; plugins do not.
	CodeUnknownDestination Code = "unknown_destination"
)

// Sentinels for errors.Is: an *Error matches one when their codes are equal,
// whatever its message (which names what was asked for and what exists).
var (
	ErrUnknownModel       = &Error{Code: CodeUnknownModel, Message: "unknown model", sentinel: true}
	ErrUnknownDestination = &Error{Code: CodeUnknownDestination, Message: "unknown destination", sentinel: true}
)

// Error is the error type that crosses the plugin boundary intact. Plugins
// return it (directly or wrapped) to tell the host how a call failed; the
// host receives an equal *Error from the client side. Message must be safe
// to show to users and must never contain secrets.
type Error struct {
	// Code classifies the failure.
	Code Code
	// Message says what failed, in words a user can act on.
	Message string
	// Retryable reports whether repeating the same call later may succeed.
	Retryable bool
	// StatusCode is the HTTP status the remote answered, or 0.
	StatusCode int
	// RetryAfter is the delay the remote asked for, or 0. It travels in
	// whole seconds.
	RetryAfter time.Duration

	cause    error // local only; never sent over the wire
	sentinel bool  // matched by code in Is
}

// Error returns the message with the code and, when known, the remote status.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
	}
	return b.String()
}

// Unwrap returns the local cause, if any. Causes do not cross the wire.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is a sentinel such as [ErrUnknownModel] with
// e's code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.sentinel && t.Code == e.Code
}

// CredentialsRefused rewrites a remote's 401 or 403 (an *Error with
// [CodeUnauthenticated] or [CodePermissionDenied]) so that its message says
// which credentials to check, for example "WordPress refused the username
// or application_password", followed by the remote's own reason. Other
// errors are returned unchanged.
func CredentialsRefused(err error, what string) error {
	var e *Error
	if !errors.As(err, &e) || (e.Code != CodeUnauthenticated && e.Code != CodePermissionDenied) {
		return err
	}
	out := *e
	out.Message = what + ": " + e.Message
	return &out
}

// Errorf returns a non-retryable *Error with the given code and a formatted
// message. Wrapped errors (%w) stay reachable through errors.Is and
// errors.As in the plugin process only.
func Errorf(code Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), cause: errors.Unwrap(err)}
}

// AsError returns err as an *Error: the one it wraps, or a CodeInternal
// error carrying its text. It returns nil for a nil err.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeCanceled, Message: err.Error(), cause: err}
	}
	return &Error{Code: CodeInternal, Message: err.Error(), cause: err}
}

// IsRetryable reports whether err is an *Error marked retryable.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// ErrorCode returns the Code of the *Error in err's chain, or "" if none.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// maxRemoteMessage bounds how much of a remote's message an error carries.
const maxRemoteMessage = 500

// RemoteError builds the *Error for an HTTP response that was not a success.
// service names the remote ("webflow"); remoteMessage is the message the
// remote put in its error body (may be empty). 429 and 5xx (and 408) are
// retryable, honouring the Retry-After header; other statuses are not.
func RemoteError(service string, status int, header http.Header, remoteMessage string) *Error {
	remoteMessage = strings.TrimSpace(remoteMessage)
	if len(remoteMessage) > maxRemoteMessage {
		remoteMessage = remoteMessage[:maxRemoteMessage] + "…"
	}
	if remoteMessage == "" {
		remoteMessage = http.StatusText(status)
	}
	e := &Error{
		Message:    fmt.Sprintf("%s answered %d: %s", service, status, remoteMessage),
		StatusCode: status,
		RetryAfter: ParseRetryAfter(header.Get("Retry-After"), time.Now()),
	}
	switch {
	case status == http.StatusTooManyRequests:
		e.Code, e.Retryable = CodeRateLimited, true
	case status >= 500 || status == http.StatusRequestTimeout:
		e.Code, e.Retryable = CodeUnavailable, true
	case status == http.StatusUnauthorized:
		e.Code = CodeUnauthenticated
	case status == http.StatusForbidden:
		e.Code = CodePermissionDenied
	case status == http.StatusNotFound:
		e.Code = CodeNotFound
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		e.Code = CodeInvalidArgument
	default:
		e.Code = CodeRemote
	}
	return e
}

// RequestError builds the *Error for an HTTP request that got no response
// (DNS, connection refused, timeout). It is retryable unless the caller's
// context was canceled or a guarded client refused the address
// ([ErrForbiddenAddress]). The request URL is reduced to its host, because
// URLs such as webhook URLs are often secrets.
func RequestError(service string, err error) *Error {
	// A deadline may be the client's own timeout on a slow remote, which is
	// worth retrying; only cancellation means the caller gave up.
	if errors.Is(err, context.Canceled) {
		return &Error{Code: CodeCanceled, Message: fmt.Sprintf("%s: %v", service, redactURL(err)), cause: err}
	}
	if isForbidden(err) {
		// The caller learns nothing about what the name resolved to; the
		// operator's log has the address and how to allow it.
		Logger().Warn("guarded client refused an address", "service", service, "error", redactURL(err), "allow_with", AllowedPrivateCIDRsEnv)
		return &Error{Code: CodeInvalidArgument, Message: service + ": " + ErrForbiddenAddress.Error(), cause: err}
	}
	return &Error{
		Code:      CodeUnavailable,
		Message:   fmt.Sprintf("%s: request failed: %v", service, redactURL(err)),
		Retryable: true,
		cause:     err,
	}
}

func redactURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		host := ""
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
		return fmt.Sprintf("%s %s: %v", ue.Op, host, ue.Err)
	}
	return err.Error()
}

// ParseRetryAfter reads a Retry-After header value: delay seconds or an
// HTTP date (relative to now). It returns 0 for an empty or invalid value.
func ParseRetryAfter(value string, now time.Time) time.Duration {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(value, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(value); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
