// Package quota enforces the per-workspace limits of config.Limits: how
// many voices, webhooks, sites and waiting schedules a workspace may hold
// (429 over the cap) and how long a name may be (400). Areas call it from
// their create methods; the limits come from the operator's config.
package quota

import (
	"context"
	"fmt"
	"unicode/utf8"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/store"
)

// Checker checks creates against the configured limits.
type Checker struct {
	store  *store.Store
	limits config.Limits
}

// New returns a Checker; the zero Limits use config.DefaultLimits.
func New(st *store.Store, l config.Limits) *Checker {
	if l == (config.Limits{}) {
		l = config.DefaultLimits()
	}
	return &Checker{store: st, limits: l}
}

func (c *Checker) max(kind store.Counted) int {
	switch kind {
	case store.CountVoices:
		return c.limits.MaxVoices
	case store.CountWebhooks:
		return c.limits.MaxWebhooks
	case store.CountSites:
		return c.limits.MaxSites
	case store.CountSchedules:
		return c.limits.MaxSchedules
	}
	return 0
}

// Room returns a 429 when the workspace already holds the maximum number
// of kind, nil otherwise (and always for a nil Checker or a 0 maximum).
// The count is read before the insert, so concurrent creates may pass the
// cap by a few: the cap bounds storage, it is not a billing meter.
func (c *Checker) Room(ctx context.Context, kind store.Counted, workspaceID string) error {
	if c == nil {
		return nil
	}
	max := c.max(kind)
	if max <= 0 {
		return nil
	}
	n, err := c.store.CountWorkspace(ctx, kind, workspaceID)
	if err != nil {
		return err
	}
	if n >= max {
		return apierr.New(connect.CodeResourceExhausted, fmt.Sprintf("this workspace has reached its limit of %d %s; delete some first", max, kind))
	}
	return nil
}

// Name returns a 400 naming field when value is longer than the
// configured name length.
func (c *Checker) Name(field, value string) error {
	max := config.DefaultLimits().MaxNameLength
	if c != nil && c.limits.MaxNameLength > 0 {
		max = c.limits.MaxNameLength
	}
	if utf8.RuneCountInString(value) > max {
		return apierr.Invalid("%s is longer than %d characters", field, max)
	}
	return nil
}
