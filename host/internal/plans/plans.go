// Package plans holds the live table of plans (config.Plan by name) that
// services read at request time, so a SIGHUP that changes a plan block
// applies to the next request without a restart.
package plans

import (
	"maps"
	"sync/atomic"

	"github.com/heraldhq/herald/config"
)

// Table is a concurrency-safe plan table: Get reads the current map, Set
// swaps in a new one. The zero Table is empty; use New.
type Table struct {
	m atomic.Pointer[map[string]config.Plan]
}

// New returns a table holding a copy of m; nil or empty m means
// config.DefaultPlans().
func New(m map[string]config.Plan) *Table {
	t := &Table{}
	t.Set(m)
	return t
}

// Set replaces the table with a copy of m (nil or empty: the defaults).
// Readers see either the old or the new map, never a mix.
func (t *Table) Set(m map[string]config.Plan) {
	if len(m) == 0 {
		m = config.DefaultPlans()
	} else {
		m = maps.Clone(m)
	}
	t.m.Store(&m)
}

// Get returns the plan named name and whether the table knows it.
func (t *Table) Get(name string) (config.Plan, bool) {
	m := t.m.Load()
	if m == nil {
		return config.Plan{}, false
	}
	p, ok := (*m)[name]
	return p, ok
}
