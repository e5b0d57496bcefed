package lease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
)

// DefaultTTL is how long a slot is held without renewal.
const DefaultTTL = 15 * time.Second

// Waiting for a slot polls with a backoff between these bounds; a slot
// released on this host wakes its waiters at once.
const (
	minWait = 10 * time.Millisecond
	maxWait = 250 * time.Millisecond
)

// backend takes, renews and releases slots.
type backend interface {
	take(ctx context.Context, name string, slots int, holder string, ttl time.Duration) (int, bool, error)
	renew(ctx context.Context, name string, slot int, holder string, ttl time.Duration) (bool, error)
	release(ctx context.Context, name string, slot int, holder string) error
	close() error
	kind() string
}

// Deps are the dependencies of a Limiter.
type Deps struct {
	// Store holds the slots when RedisURL is empty (required then).
	Store *store.Store
	// RedisURL, when set, holds the slots in Redis.
	RedisURL string
	// TTL is the lease (default DefaultTTL, at least 1s).
	TTL    time.Duration
	Logger hclog.Logger
}

// Limiter hands out slots. It is safe for concurrent use.
type Limiter struct {
	b   backend
	ttl time.Duration
	log hclog.Logger
	id  string // this process, in every holder it writes
	seq atomic.Uint64

	mu    sync.Mutex
	held  map[*slot]struct{}
	freed chan struct{} // closed and replaced on each local release

	stop chan struct{}
	done chan struct{}
}

type slot struct {
	name   string
	n      int
	holder string
}

// New returns a Limiter and starts its renewal loop (Close stops it).
func New(d Deps) (*Limiter, error) {
	if d.TTL <= 0 {
		d.TTL = DefaultTTL
	}
	if d.TTL < time.Second {
		return nil, fmt.Errorf("lease: TTL must be at least 1s, got %s", d.TTL)
	}
	l := &Limiter{ttl: d.TTL, log: d.Logger, held: map[*slot]struct{}{}, freed: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	if l.log == nil {
		l.log = hclog.NewNullLogger()
	}
	l.log = l.log.Named("lease")
	switch {
	case d.RedisURL != "":
		b, err := newRedisBackend(d.RedisURL)
		if err != nil {
			return nil, err
		}
		l.b = b
	case d.Store != nil:
		l.b = dbBackend{d.Store}
	default:
		return nil, errors.New("lease: Store or RedisURL is required")
	}
	raw := make([]byte, 8)
	rand.Read(raw)
	l.id = hex.EncodeToString(raw)
	go l.renewLoop()
	return l, nil
}

// Backend names where the slots live: "redis" or "database".
func (l *Limiter) Backend() string { return l.b.kind() }

// TTL is the lease.
func (l *Limiter) TTL() time.Duration { return l.ttl }

// Acquire waits for one of the limit slots of name and returns its release
// (call it once; later calls do nothing). It returns ctx's error when ctx
// ends first. A backend error (Redis or the database unreachable) is
// retried until ctx ends: waiting is safe, running over the limit is not.
func (l *Limiter) Acquire(ctx context.Context, name string, limit int) (func(), error) {
	if limit <= 0 {
		return func() {}, nil
	}
	holder := fmt.Sprintf("%s-%d", l.id, l.seq.Add(1))
	wait := minWait
	var lastErr time.Time
	for {
		l.mu.Lock()
		freed := l.freed
		l.mu.Unlock()
		n, ok, err := l.b.take(ctx, name, limit, holder, l.ttl)
		if err != nil && ctx.Err() == nil && time.Since(lastErr) > 10*time.Second {
			lastErr = time.Now()
			l.log.Warn("cannot take a concurrency slot; waiting", "name", name, "backend", l.b.kind(), "error", err)
		}
		if err == nil && ok {
			s := &slot{name: name, n: n, holder: holder}
			l.mu.Lock()
			l.held[s] = struct{}{}
			l.mu.Unlock()
			var once sync.Once
			return func() { once.Do(func() { l.release(s) }) }, nil
		}
		// Jitter keeps waiting hosts from polling in step.
		d := wait/2 + mrand.N(wait/2+1)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-freed:
			t.Stop()
		case <-t.C:
		}
		wait = min(wait*2, maxWait)
	}
}

func (l *Limiter) release(s *slot) {
	l.mu.Lock()
	delete(l.held, s)
	close(l.freed)
	l.freed = make(chan struct{})
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := l.b.release(ctx, s.name, s.n, s.holder); err != nil {
		// The lease expires by itself.
		l.log.Warn("cannot release a concurrency slot; it frees when its lease ends", "name", s.name, "slot", s.n, "error", err)
	}
}

// renewLoop extends every held slot each TTL/3.
func (l *Limiter) renewLoop() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		held := make([]*slot, 0, len(l.held))
		for s := range l.held {
			held = append(held, s)
		}
		l.mu.Unlock()
		for _, s := range held {
			// A slot released since the snapshot is not renewed, and a
			// renewal that finds it gone because it was released meanwhile
			// is not a lease that ran out: with many short holds most
			// slots of a snapshot are released before their turn.
			if !l.holds(s) {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
			ok, err := l.b.renew(ctx, s.name, s.n, s.holder, l.ttl)
			cancel()
			switch {
			case !l.holds(s):
			case err != nil:
				l.log.Warn("cannot renew a concurrency slot", "name", s.name, "slot", s.n, "error", err)
			case !ok:
				l.log.Warn("a concurrency slot's lease ran out while held; the limit may be passed until it is released", "name", s.name, "slot", s.n)
			}
		}
	}
}

// holds reports whether s is still held here (not released).
func (l *Limiter) holds(s *slot) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.held[s]
	return ok
}

// Held is how many slots this Limiter holds (tests and metrics).
func (l *Limiter) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.held)
}

// Close stops renewing (held slots expire within the TTL) and closes the
// backend.
func (l *Limiter) Close() error {
	select {
	case <-l.stop:
		return nil
	default:
	}
	close(l.stop)
	<-l.done
	return l.b.close()
}

// dbBackend keeps slots in the database (store/leases.go).
type dbBackend struct{ st *store.Store }

func (b dbBackend) take(ctx context.Context, name string, slots int, holder string, ttl time.Duration) (int, bool, error) {
	return jobstore.New(b.st).TakeLease(ctx, name, slots, holder, ttl.Milliseconds())
}

func (b dbBackend) renew(ctx context.Context, name string, slot int, holder string, ttl time.Duration) (bool, error) {
	return jobstore.New(b.st).RenewLease(ctx, name, slot, holder, ttl.Milliseconds())
}

func (b dbBackend) release(ctx context.Context, name string, slot int, holder string) error {
	return jobstore.New(b.st).ReleaseLease(ctx, name, slot, holder)
}

func (dbBackend) close() error { return nil }
func (dbBackend) kind() string { return "database" }
