package apierr

import (
	"errors"
	"fmt"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apiconv"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// New returns an error with code and message. fields are key/value pairs
// that the REST body carries beside "message" (SPEC: jobId on unknown jobs);
// WithList adds a field whose value is a list.
func New(code connect.Code, msg string, fields ...string) *connect.Error {
	err := connect.NewError(code, errors.New(msg))
	if len(fields) > 0 {
		m := map[string]string{}
		for i := 0; i+1 < len(fields); i += 2 {
			m[fields[i]] = fields[i+1]
		}
		if d, derr := connect.NewErrorDetail(&apiv1.ErrorFields{Fields: m}); derr == nil {
			err.AddDetail(d)
		}
	}
	return err
}

// Invalid is a 400: the request is wrong and the message says how.
func Invalid(format string, args ...any) *connect.Error {
	return New(connect.CodeInvalidArgument, fmt.Sprintf(format, args...))
}

// NotFound is a 404.
func NotFound(format string, args ...any) *connect.Error {
	return New(connect.CodeNotFound, fmt.Sprintf(format, args...))
}

// Forbidden is a 403: authenticated, but the plan or role does not allow it.
func Forbidden(format string, args ...any) *connect.Error {
	return New(connect.CodePermissionDenied, fmt.Sprintf(format, args...))
}

// Unauthenticated is a 401.
func Unauthenticated(format string, args ...any) *connect.Error {
	return New(connect.CodeUnauthenticated, fmt.Sprintf(format, args...))
}

// Conflict is a 409.
func Conflict(format string, args ...any) *connect.Error {
	return New(connect.CodeAborted, fmt.Sprintf(format, args...))
}

// Unavailable is a 503: a dependency (plugin, credentials) is not ready.
func Unavailable(format string, args ...any) *connect.Error {
	return New(connect.CodeUnavailable, fmt.Sprintf(format, args...))
}

// Internal is a 500. The message goes to the client, so it must not carry
// internal detail; log the cause separately.
func Internal(msg string) *connect.Error {
	return New(connect.CodeInternal, msg)
}

// WithValues attaches extra body fields that are not strings (lists,
// objects of JSON values) to err and returns it; the REST body carries them
// beside "message" like the fields of New.
func WithValues(err *connect.Error, values map[string]any) *connect.Error {
	st, serr := apiconv.Struct(values)
	if serr != nil {
		return err
	}
	if d, derr := connect.NewErrorDetail(&apiv1.ErrorFields{Values: st}); derr == nil {
		err.AddDetail(d)
	}
	return err
}

// WithList adds a field whose value is a list of strings, such as the
// missingKeys of an invalid post: a JSON array in the REST body. It returns err.
func WithList(err *connect.Error, key string, values []string) *connect.Error {
	list := make([]any, len(values))
	for i, v := range values {
		list[i] = v
	}
	return WithValues(err, map[string]any{key: list})
}

// Values returns the extra body fields attached by WithValues, merged
// across details.
func Values(err *connect.Error) *structpb.Struct {
	var out *structpb.Struct
	for _, f := range details(err) {
		for k, v := range f.Values.GetFields() {
			if out == nil {
				out = &structpb.Struct{Fields: map[string]*structpb.Value{}}
			}
			out.Fields[k] = v
		}
	}
	return out
}

// Fields returns the extra string fields attached by New.
func Fields(err *connect.Error) map[string]string {
	var out map[string]string
	for _, f := range details(err) {
		for k, v := range f.Fields {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

func details(err *connect.Error) []*apiv1.ErrorFields {
	var out []*apiv1.ErrorFields
	for _, d := range err.Details() {
		v, derr := d.Value()
		if derr != nil {
			continue
		}
		if f, ok := v.(*apiv1.ErrorFields); ok {
			out = append(out, f)
		}
	}
	return out
}
