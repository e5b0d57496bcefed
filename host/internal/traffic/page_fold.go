package traffic

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
)

// PageFoldLease is the cross-host lease (one slot) a host holds while it
// folds the pages view's deltas.
const PageFoldLease = "traffic:page-fold"

// Lease hands out at most limit slots of name at once across the hosts
// (a *lease.Limiter: Redis or database leases that expire when their host
// dies).
type Lease interface {
	Acquire(ctx context.Context, name string, limit int) (release func(), err error)
}

// DefaultPageFoldEvery is the time between folds. A view sums the deltas
// of up to this long: at 2,000 crawler lines a second over four sites, a
// minute of them (30,000 rows a site) made the view's p99 264 ms before
// any fold had run, so the fold runs more often than that; a page_days row
// is still rewritten once per fold, not once per log request.
const DefaultPageFoldEvery = 10 * time.Second

// PageFold merges the pages view's per-batch deltas into page_days
// (store.FoldPageDays) every Every, on one host at a time: each pass first
// takes PageFoldLease, and a host that cannot take it within a short wait
// (another is folding) skips its pass. The view reads page_days and the
// deltas not folded yet together, so how often the fold runs changes what
// a view reads, never what it answers. A pass stopped or failed midway
// rolls its transaction back: the deltas stay for the next pass.
type PageFold struct {
	Store *store.Store
	// Lease is required: folders on several hosts would wait on each
	// other's page_days rows.
	Lease Lease
	// Every is the time between passes (default DefaultPageFoldEvery).
	Every time.Duration
	// Limit is how many deltas one fold transaction takes (default
	// store.DefaultPageFoldLimit).
	Limit  int
	Logger hclog.Logger

	// fold is Store.FoldPageDays unless a test sets it.
	fold func(ctx context.Context, limit int) (int64, error)

	cancel context.CancelFunc
	done   chan struct{}
}

// FoldOnce runs one pass: it takes the lease (waiting at most a quarter of
// Every, and at most 5 s), folds, and releases it. held is false when
// another host held the lease all that time (nothing folded here).
func (f *PageFold) FoldOnce(ctx context.Context) (folded int64, held bool, err error) {
	if f.Lease == nil {
		return 0, false, errors.New("traffic: PageFold.Lease is required")
	}
	wait, cancel := context.WithTimeout(ctx, min(f.every()/4, 5*time.Second))
	release, err := f.Lease.Acquire(wait, PageFoldLease, 1)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return 0, false, ctx.Err()
		}
		return 0, false, nil // another host is folding
	}
	defer release()
	fold := f.fold
	if fold == nil {
		fold = f.Store.FoldPageDays
	}
	n, err := fold(ctx, f.Limit)
	return n, true, err
}

func (f *PageFold) every() time.Duration {
	if f.Every <= 0 {
		return DefaultPageFoldEvery
	}
	return f.Every
}

// Start folds once now and then every Every until Stop.
func (f *PageFold) Start(context.Context) error {
	if f.Lease == nil || (f.Store == nil && f.fold == nil) {
		return errors.New("traffic: PageFold needs Store and Lease")
	}
	log := f.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	f.cancel, f.done = cancel, done
	go func() {
		defer close(done)
		t := time.NewTicker(f.every())
		defer t.Stop()
		for {
			n, held, err := f.FoldOnce(ctx)
			switch {
			case ctx.Err() != nil:
				return // stopped: a pass cut short rolled back
			case err != nil:
				log.Warn("folding the pages view's deltas failed; will retry", "error", err)
			case held && n > 0:
				log.Debug("folded the pages view's deltas", "deltas", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// Stop ends the loop, cutting a running pass short (its transaction rolls
// back, nothing is lost), and waits for it or for ctx.
func (f *PageFold) Stop(ctx context.Context) error {
	if f.cancel == nil {
		return nil
	}
	f.cancel()
	f.cancel = nil
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
