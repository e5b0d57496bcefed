package traffic

import (
	"context"
	"sync"
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

	stop chan struct{}
	wg   sync.WaitGroup
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
func (r *Retention) Start() {
	r.stop = make(chan struct{})
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
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
			case <-r.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// Stop ends the pruning loop and waits for it.
func (r *Retention) Stop() {
	close(r.stop)
	r.wg.Wait()
}
