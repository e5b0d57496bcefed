package plans

import (
	"maps"
	"sync/atomic"

	"github.com/heraldhq/herald/config"
)

// Table is a concurrency-safe plan table: Get reads the current snapshot,
// Set and Apply swap in a new one. The zero Table is empty; use New.
type Table struct {
	s atomic.Pointer[Snapshot]
}

// New returns a table holding a copy of m; nil or empty m means
// config.DefaultPlans(). Its version is 0 (not from the database) and it
// has no caps until Apply gives it some.
func New(m map[string]config.Plan) *Table {
	t := &Table{}
	t.Set(m)
	return t
}

// Set replaces the plans with a copy of m (nil or empty: the defaults),
// keeping the caps and version. Readers see either the old or the new
// plans, never a mix.
func (t *Table) Set(m map[string]config.Plan) {
	next := Snapshot{}
	if cur := t.s.Load(); cur != nil {
		next = *cur
	}
	next.Plans = m
	t.Apply(next)
}

// Apply replaces the whole snapshot (plans, caps, version) with a copy of s.
func (t *Table) Apply(s Snapshot) {
	if len(s.Plans) == 0 {
		s.Plans = config.DefaultPlans()
	} else {
		s.Plans = maps.Clone(s.Plans)
	}
	if s.Caps != nil {
		c := *s.Caps
		s.Caps = &c
	}
	t.s.Store(&s)
}

// Get returns the plan named name and whether the table knows it. A nil
// Table knows config.DefaultPlans().
func (t *Table) Get(name string) (config.Plan, bool) {
	if t == nil {
		p, ok := config.DefaultPlans()[name]
		return p, ok
	}
	s := t.s.Load()
	if s == nil {
		return config.Plan{}, false
	}
	p, ok := s.Plans[name]
	return p, ok
}

// Caps returns the per-workspace caps of the applied version, and false
// when the table has none (then the host's own limits block applies).
func (t *Table) Caps() (Caps, bool) {
	if t == nil {
		return Caps{}, false
	}
	s := t.s.Load()
	if s == nil || s.Caps == nil {
		return Caps{}, false
	}
	return *s.Caps, true
}

// Version is the stored version the table holds (0: none yet).
func (t *Table) Version() int64 {
	if s := t.s.Load(); s != nil {
		return s.Version
	}
	return 0
}

// Plans returns a copy of the plans by name.
func (t *Table) Plans() map[string]config.Plan {
	if s := t.s.Load(); s != nil {
		return maps.Clone(s.Plans)
	}
	return nil
}
