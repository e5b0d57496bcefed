package quota

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
)

// Checker checks creates against the caps.
type Checker struct {
	store   *store.Store
	credits *creditstore.Store
	limits  config.Limits
	table   *plans.Table
	now     func() time.Time // the credit month's clock; nil: time.Now
	log     hclog.Logger     // failed refunds; nil: not logged
}

// New returns a Checker over the host's limits; the zero Limits use
// config.DefaultLimits.
func New(st *store.Store, l config.Limits) *Checker {
	if l == (config.Limits{}) {
		l = config.DefaultLimits()
	}
	return &Checker{store: st, credits: creditstore.New(st), limits: l}
}

// Follow returns a copy of c that reads the caps of t's applied version at
// each call (the limits given to New apply while t has none). A nil c or
// t: c unchanged.
func (c *Checker) Follow(t *plans.Table) *Checker {
	if c == nil || t == nil {
		return c
	}
	n := *c
	n.table = t
	return &n
}

func (c *Checker) caps() plans.Caps {
	if caps, ok := c.table.Caps(); ok {
		return caps
	}
	return plans.CapsOf(c.limits)
}

func (c *Checker) max(kind store.Counted) int {
	caps := c.caps()
	switch kind {
	case store.CountVoices:
		return caps.Voices
	case store.CountWebhooks:
		return caps.Webhooks
	case store.CountSites:
		return caps.Sites
	case store.CountSchedules:
		return caps.Schedules
	case store.CountEventSubscriptions:
		return caps.EventSubscriptions
	}
	return 0
}

// Room returns a 429 when the workspace already holds the maximum number
// of kind, nil otherwise (and always for a nil Checker or a 0 maximum).
// It is a cheap early answer before expensive work (a profile model
// call); the cap itself holds at the insert, which takes Cap(kind) and is
// checked in the insert's transaction (turn its error into the 429 with
// Err).
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
		return overCap(kind, max)
	}
	return nil
}

// Cap is the cap of kind for a store create method (zero for a nil
// Checker: no cap).
func (c *Checker) Cap(kind store.Counted) store.Cap {
	if c == nil {
		return store.Cap{}
	}
	return store.Cap{Max: c.max(kind)}
}

// Err turns a capped create's *store.OverCapError into the API's 429 and
// returns any other error unchanged.
func Err(err error) error {
	var over *store.OverCapError
	if errors.As(err, &over) {
		return overCap(over.Kind, over.Max)
	}
	return err
}

func overCap(kind store.Counted, max int) error {
	return apierr.New(connect.CodeResourceExhausted, fmt.Sprintf("this workspace has reached its limit of %d %s; delete some first", max, kind))
}

// Name returns a 400 naming field when value is longer than the
// configured name length.
func (c *Checker) Name(field, value string) error {
	max := config.DefaultLimits().MaxNameLength
	if c != nil {
		if n := c.caps().NameLength; n > 0 {
			max = n
		}
	}
	if utf8.RuneCountInString(value) > max {
		return apierr.Invalid("%s is longer than %d characters", field, max)
	}
	return nil
}
