package traffic

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
)

// Retention deletes raw events and sessions older than Keep, every Every.
// Rollups stay, so stats over pruned days do not change. Every host may run
// one: pruning is idempotent and works in small chunks.
type Retention struct {
	Store  *store.Store
	Keep   time.Duration
	Every  time.Duration
	Logger hclog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	stop, done chan struct{}
}

// PruneOnce prunes what is older than Keep now and reports what it deleted.
func (r *Retention) PruneOnce(ctx context.Context) (events, sessions int64, err error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	before := store.Day(now().Add(-r.Keep).UnixMilli())
	return r.Store.PruneTraffic(ctx, before)
}

// Start prunes once now and then every Every until Stop.
func (r *Retention) Start(context.Context) error {
	if r.Logger == nil {
		r.Logger = hclog.NewNullLogger()
	}
	stop, done := make(chan struct{}), make(chan struct{})
	r.stop, r.done = stop, done
	go func() {
		defer close(done)
		t := time.NewTicker(r.Every)
		defer t.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), r.Every)
			events, sessions, err := r.PruneOnce(ctx)
			cancel()
			switch {
			case err != nil:
				r.Logger.Warn("pruning old traffic events failed; will retry", "error", err)
			case events+sessions > 0:
				r.Logger.Info("pruned old traffic events", "events", events, "sessions", sessions)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// Stop ends the pruning loop and waits for it (a running pass ends at
// its own deadline) or for ctx.
func (r *Retention) Stop(ctx context.Context) error {
	if r.stop == nil {
		return nil
	}
	close(r.stop)
	r.stop = nil
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
