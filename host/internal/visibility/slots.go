package visibility

import "context"

// Slots hands out at most limit slots of name at once, across every host
// that shares it (a *lease.Limiter: Redis or database leases that expire
// when their host dies).
type Slots interface {
	Acquire(ctx context.Context, name string, limit int) (release func(), err error)
}

// slotName is the cross-host name of a workspace's engine-call slots.
func slotName(ws string) string { return "visibility:" + ws }

// withSlot runs fn holding one of the workspace's engine-call slots: a
// cross-host lease when Slots is set, else local (this host's semaphore).
// It returns without running fn when ctx ends first.
func (s *Service) withSlot(ctx context.Context, ws string, local chan struct{}, fn func()) {
	if s.slots != nil {
		release, err := s.slots.Acquire(ctx, slotName(ws), s.cfg.Concurrency)
		if err != nil {
			return // the context ended: the next attempt asks again
		}
		defer release()
		fn()
		return
	}
	select {
	case local <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-local }()
	fn()
}
