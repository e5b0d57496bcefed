package store

import (
	"context"
	"sync"
)

// failingFolds maps a site to the error its fold transactions fail with.
var (
	failingFolds sync.Map
	failHookOnce sync.Once
)

// FailFoldsOf makes every fold transaction that takes a delta of site fail
// with err after it has deleted its deltas and merged them into page_days,
// before it commits, until the returned func is called. Folds of other
// sites are unaffected.
func FailFoldsOf(site string, err error) (restore func()) {
	failHookOnce.Do(func() {
		hook := func(sites []string) error {
			for _, s := range sites {
				if err, ok := failingFolds.Load(s); ok {
					return err.(error)
				}
			}
			return nil
		}
		foldPageDaysHook.Store(&hook)
	})
	failingFolds.Store(site, err)
	return func() { failingFolds.Delete(site) }
}

// FoldPageDaysOnce runs one fold transaction of up to limit deltas.
func (s *Store) FoldPageDaysOnce(ctx context.Context, limit int) (int64, error) {
	return s.foldPageDaysOnce(ctx, limit)
}
