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

// withSlot runs fn holding one of the workspace's engine-call slots. It
// first takes a place in this host's semaphore of the workspace (local,
// as many places as the cap), then, when Slots is set, a cross-host lease.
// The local place comes first so that only as many calls as the cap wait
// on the lease at once: a report queues all its questions together, and
// hundreds of them polling the shared leases, each woken by every slot the
// host frees, cost more CPU (on the host and in Redis) than the calls
// themselves. The cap across hosts is still the lease's. It returns
// without running fn when ctx ends first.
func (s *Service) withSlot(ctx context.Context, ws string, local chan struct{}, fn func()) {
	select {
	case local <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-local }()
	if s.slots != nil {
		release, err := s.slots.Acquire(ctx, slotName(ws), s.cfg.Concurrency)
		if err != nil {
			return // the context ended: the next attempt asks again
		}
		defer release()
	}
	fn()
}
