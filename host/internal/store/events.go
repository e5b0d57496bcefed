package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/heraldhq/herald/host/internal/events/catalog"
)

// EventSubscription is a URL that receives a workspace's events. Sealed
// holds the URL and the signing secrets (package events seals them).
type EventSubscription struct {
	ID          string
	WorkspaceID string
	DisplayURL  string
	Format      string
	Events      []string
	Sealed      string
	// PreviousUntil is when the previous secret stops signing (rotation).
	PreviousUntil *int64
	State         string
	PausedReason  *string
	FailingSince  *int64
	CreatedAt     int64
}

// States of a subscription.
const (
	SubscriptionActive = "active"
	SubscriptionPaused = "paused"
)

// CountEventSubscriptions counts a workspace's event subscriptions.
const CountEventSubscriptions Counted = "event subscriptions"

func init() {
	countQueries[CountEventSubscriptions] = `SELECT COUNT(*) FROM event_subscriptions WHERE workspace_id = $1`
}

const subscriptionColumns = `id, workspace_id, display_url, format, events, sealed, previous_until, state, paused_reason, failing_since, created_at`

func scanSubscription(r interface{ Scan(...any) error }) (EventSubscription, error) {
	var s EventSubscription
	var events string
	err := r.Scan(&s.ID, &s.WorkspaceID, &s.DisplayURL, &s.Format, &events, &s.Sealed, &s.PreviousUntil, &s.State,
		&s.PausedReason, &s.FailingSince, &s.CreatedAt)
	s.Events = splitEventTypes(events)
	return s, err
}

// joinEventTypes is the events column: ",a,b," so that one LIKE '%,a,%'
// matches a type.
func joinEventTypes(types []string) string { return "," + strings.Join(types, ",") + "," }

func splitEventTypes(col string) []string {
	out := []string{}
	for _, t := range strings.Split(col, ",") {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// CreateEventSubscription stores a new subscription (ID and time set when
// empty). With a Cap it is an *OverCapError, and nothing is written, when
// the workspace already holds cap.Max subscriptions.
func (s *Store) CreateEventSubscription(ctx context.Context, sub *EventSubscription, caps ...Cap) error {
	if sub.ID == "" {
		sub.ID = NewID()
	}
	sub.CreatedAt, sub.State = s.Now(), SubscriptionActive
	err := s.capped(ctx, CountEventSubscriptions, sub.WorkspaceID, caps, func(q Querier) error {
		_, err := q.Exec(ctx, `INSERT INTO event_subscriptions (`+subscriptionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			sub.ID, sub.WorkspaceID, sub.DisplayURL, sub.Format, joinEventTypes(sub.Events), sub.Sealed, sub.PreviousUntil, sub.State,
			sub.PausedReason, sub.FailingSince, sub.CreatedAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("create event subscription: %w", err)
	}
	return nil
}

// GetEventSubscription returns a subscription of the workspace, or
// ErrNotFound.
func (s *Store) GetEventSubscription(ctx context.Context, workspaceID, id string) (EventSubscription, error) {
	return scanSubscription(s.queryRow(ctx, `SELECT `+subscriptionColumns+` FROM event_subscriptions WHERE workspace_id = $1 AND id = $2`, workspaceID, id))
}

// ListEventSubscriptions returns the workspace's subscriptions, newest
// first.
func (s *Store) ListEventSubscriptions(ctx context.Context, workspaceID string) ([]EventSubscription, error) {
	rows, err := s.query(ctx, `SELECT `+subscriptionColumns+` FROM event_subscriptions WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list event subscriptions: %w", err)
	}
	defer rows.Close()
	out := []EventSubscription{}
	for rows.Next() {
		sub, err := scanSubscription(rows)
		if err != nil {
			return nil, fmt.Errorf("list event subscriptions: %w", err)
		}
		out = append(out, sub)
	}
	return out, rows.Err()
}

// DeleteEventSubscription deletes a subscription and its deliveries.
func (s *Store) DeleteEventSubscription(ctx context.Context, workspaceID, id string) error {
	return s.Tx(ctx, func(q Querier) error {
		n, err := q.Exec(ctx, `DELETE FROM event_subscriptions WHERE workspace_id = $1 AND id = $2`, workspaceID, id)
		if err != nil {
			return fmt.Errorf("delete event subscription: %w", err)
		}
		if n == 0 {
			return ErrNotFound
		}
		_, err = q.Exec(ctx, `DELETE FROM event_deliveries WHERE workspace_id = $1 AND subscription_id = $2`, workspaceID, id)
		return err
	})
}

// RotateEventSubscription replaces the sealed URL and secrets of a
// subscription and sets until when the previous secret signs.
func (s *Store) RotateEventSubscription(ctx context.Context, workspaceID, id, sealed string, previousUntil int64) error {
	n, err := s.exec(ctx, `UPDATE event_subscriptions SET sealed = $1, previous_until = $2 WHERE workspace_id = $3 AND id = $4`,
		sealed, previousUntil, workspaceID, id)
	if err != nil {
		return fmt.Errorf("rotate event subscription: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// Event is something that happened in a workspace. Data is its JSON
// payload (package events owns the shapes).
type Event struct {
	ID          string
	WorkspaceID string
	Type        string
	// DedupeKey, when set, makes the event happen at most once per
	// workspace and key: a second one with the same key is not written.
	DedupeKey string
	Data      string
	Link      string
	CreatedAt int64
}

// EventOf is the stored form of an event of the catalog.
func EventOf(e catalog.Event) *Event {
	return &Event{WorkspaceID: e.WorkspaceID, Type: e.Type, DedupeKey: e.DedupeKey, Data: e.JSON(), Link: e.Link}
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// EmitEvent writes e through q, the transaction of the change it reports,
// with one pending delivery per active subscription of the workspace that
// asked for its type: the outbox. It reports whether the event was
// written (false: its dedupe key had happened). The caller calls
// EventsCommitted after the commit so that deliverers wake at once.
func (s *Store) EmitEvent(ctx context.Context, q Querier, e *Event) (bool, error) {
	if e.ID == "" {
		e.ID = "evt_" + strings.ReplaceAll(NewID(), "-", "")
	}
	if e.CreatedAt == 0 {
		e.CreatedAt = s.Now()
	}
	var dedupe *string
	if e.DedupeKey != "" {
		dedupe = &e.DedupeKey
	}
	n, err := q.Exec(ctx, `INSERT INTO events (id, workspace_id, type, dedupe_key, data, link, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT DO NOTHING`, e.ID, e.WorkspaceID, e.Type, dedupe, e.Data, e.Link, e.CreatedAt)
	if err != nil {
		return false, fmt.Errorf("write event %s: %w", e.Type, err)
	}
	if n == 0 {
		return false, nil
	}
	_, err = q.Exec(ctx, `INSERT INTO event_deliveries (id, workspace_id, subscription_id, event_id, state, attempts, next_attempt_at, lease_until, created_at)
		SELECT CAST($1 AS TEXT) || '_' || id, workspace_id, id, $1, 'pending', 0, $2, 0, $2 FROM event_subscriptions
		WHERE workspace_id = $3 AND state = 'active' AND events LIKE $4`, e.ID, e.CreatedAt, e.WorkspaceID, "%,"+e.Type+",%")
	if err != nil {
		return false, fmt.Errorf("fan out event %s: %w", e.Type, err)
	}
	return true, nil
}

// emitTx runs change and, when it changed something, writes events in
// the same transaction, then calls EventsCommitted after the commit. A nil
// event is skipped, so callers pass the events their change may report.
func (s *Store) emitTx(ctx context.Context, change func(q Querier) (bool, error), events ...*Event) (bool, error) {
	if !anyEvent(events) {
		return change(s.b)
	}
	var changed bool
	err := s.Tx(ctx, func(q Querier) error {
		var err error
		if changed, err = change(q); err != nil || !changed {
			return err
		}
		for _, e := range events {
			if e == nil {
				continue
			}
			if _, err := s.EmitEvent(ctx, q, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && changed {
		s.EventsCommitted()
	}
	return changed, err
}

func anyEvent(events []*Event) bool {
	for _, e := range events {
		if e != nil {
			return true
		}
	}
	return false
}

// SetEventNotifier sets the function called after every commit that wrote
// events (the deliverer's wake-up); nil removes it.
func (s *Store) SetEventNotifier(fn func()) {
	if fn == nil {
		s.onEvents.Store(nil)
		return
	}
	s.onEvents.Store(&fn)
}

// EventsCommitted tells the event notifier that a transaction which wrote
// events committed.
func (s *Store) EventsCommitted() {
	if fn := s.onEvents.Load(); fn != nil {
		(*fn)()
	}
}

// ListEvents returns the workspace's newest events (of typ when set).
func (s *Store) ListEvents(ctx context.Context, workspaceID, typ string, limit int) ([]Event, error) {
	rows, err := s.query(ctx, `SELECT id, workspace_id, type, COALESCE(dedupe_key, ''), data, link, created_at FROM events
		WHERE workspace_id = $1 AND ($2 = '' OR type = $2) ORDER BY created_at DESC, id DESC LIMIT $3`, workspaceID, typ, limit)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	defer rows.Close()
	out := []Event{}
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.ID, &e.WorkspaceID, &e.Type, &e.DedupeKey, &e.Data, &e.Link, &e.CreatedAt); err != nil {
			return nil, fmt.Errorf("list events: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
