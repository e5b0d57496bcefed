package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/store"
)

// httpStatus is the one table that maps Connect codes to the HTTP statuses
// of the REST face.
var httpStatus = map[connect.Code]int{
	connect.CodeCanceled:           499,
	connect.CodeUnknown:            http.StatusInternalServerError,
	connect.CodeInvalidArgument:    http.StatusBadRequest,
	connect.CodeDeadlineExceeded:   http.StatusGatewayTimeout,
	connect.CodeNotFound:           http.StatusNotFound,
	connect.CodeAlreadyExists:      http.StatusConflict,
	connect.CodePermissionDenied:   http.StatusForbidden,
	connect.CodeResourceExhausted:  http.StatusTooManyRequests,
	connect.CodeFailedPrecondition: http.StatusBadRequest,
	connect.CodeAborted:            http.StatusConflict,
	connect.CodeOutOfRange:         http.StatusBadRequest,
	connect.CodeUnimplemented:      http.StatusNotImplemented,
	connect.CodeInternal:           http.StatusInternalServerError,
	connect.CodeUnavailable:        http.StatusServiceUnavailable,
	connect.CodeDataLoss:           http.StatusInternalServerError,
	connect.CodeUnauthenticated:    http.StatusUnauthorized,
}

// StatusOf returns the HTTP status of a Connect code.
func StatusOf(code connect.Code) int {
	if s, ok := httpStatus[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// overCapError is the API's answer to an over-cap refusal on both faces:
// ResourceExhausted (429 on the REST face) with a Retry-After header when
// the refusal says when a retry may pass. ok is false for any other error.
func overCapError(err error) (ce *connect.Error, ok bool) {
	var over *store.OverCapError
	if !errors.As(err, &over) {
		return nil, false
	}
	ce = connect.NewError(connect.CodeResourceExhausted, over)
	if over.RetryAfter > 0 {
		ce.Meta().Set("Retry-After", retryAfterSeconds(over.RetryAfter))
	}
	return ce, true
}

// retryAfterSeconds renders d as a Retry-After value: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(d time.Duration) string {
	return strconv.FormatInt(max(1, int64((d+time.Second-1)/time.Second)), 10)
}
