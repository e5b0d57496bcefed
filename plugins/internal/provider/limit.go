package provider

import (
	"context"
	"os"
	"strconv"
)

// Limiter caps the requests a plugin has in flight to its provider at
// once. Providers publish their limits as requests per minute and answer
// 429 past them; a report asks every prompt at once, so the plugin keeps
// its own cap and the host's router honours the Retry-After of a 429 it
// still gets.
type Limiter struct {
	slots chan struct{}
}

// NewLimiter returns a limiter of n slots, from the environment variable
// env when it holds a positive integer (an operator sets it in the plugin
// block's env), else def. n < 1 means no limit.
func NewLimiter(env string, def int) *Limiter {
	n := def
	if v, err := strconv.Atoi(os.Getenv(env)); err == nil && v > 0 {
		n = v
	}
	if n < 1 {
		return &Limiter{}
	}
	return &Limiter{slots: make(chan struct{}, n)}
}

// Size is the number of slots, 0 when unlimited.
func (l *Limiter) Size() int { return cap(l.slots) }

// Acquire waits for a slot; it fails only when ctx ends first. The caller
// must call the returned release once.
func (l *Limiter) Acquire(ctx context.Context) (release func(), err error) {
	if l == nil || l.slots == nil {
		return func() {}, nil
	}
	select {
	case l.slots <- struct{}{}:
		return func() { <-l.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
