package apierr

import "context"

type requestIDKey struct{}

// WithRequestID returns ctx carrying the id of the API request it serves,
// so that areas can quote it in messages that point to the operator's log.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID is the id WithRequestID stored in ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
