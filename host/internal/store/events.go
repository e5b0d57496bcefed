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
	n, err := s.EmitEvents(ctx, q, []*Event{e})
	return n == 1, err
}

// emitColumns are the events columns EmitEvents writes, one parameter each.
const emitColumns = 7

// EmitEvents is EmitEvent for a transaction's events at once, in two
// statements for up to emitBatch events whatever the number of
// subscriptions: one multi-row insert of the events (an event whose dedupe
// key had happened is not written, and RETURNING names the ones that
// were), and one insert of their deliveries selected from the workspaces'
// matching active subscriptions. It returns how many events were written.
func (s *Store) EmitEvents(ctx context.Context, q Querier, events []*Event) (int, error) {
	now := s.Now()
	for _, e := range events {
		if e.ID == "" {
			e.ID = "evt_" + strings.ReplaceAll(NewID(), "-", "")
		}
		if e.CreatedAt == 0 {
			e.CreatedAt = now
		}
	}
	written := 0
	for start := 0; start < len(events); start += emitBatch {
		chunk := events[start:min(start+emitBatch, len(events))]
		n, err := s.emitChunk(ctx, q, chunk)
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

// emitBatch is the most events one pair of statements writes (within the
// bind-parameter limit of both dialects).
const emitBatch = maxBatchParams / emitColumns

var (
	eventTypes    = []string{"", "", "", "", "", "", ""}
	deliveryTypes = []string{"TEXT", "TEXT", "TEXT", "BIGINT"}
)

func (s *Store) emitChunk(ctx context.Context, q Querier, events []*Event) (int, error) {
	args := make([]any, 0, len(events)*emitColumns)
	byID := make(map[string]*Event, len(events))
	for _, e := range events {
		var dedupe *string
		if e.DedupeKey != "" {
			dedupe = &e.DedupeKey
		}
		args = append(args, e.ID, e.WorkspaceID, e.Type, dedupe, e.Data, e.Link, e.CreatedAt)
		byID[e.ID] = e
	}
	rows, err := q.Query(ctx, multiRowSQL(s.Dialect, `INSERT INTO events (id, workspace_id, type, dedupe_key, data, link, created_at) VALUES `,
		` ON CONFLICT DO NOTHING RETURNING id`, "event", eventTypes, len(events)), args...)
	if err != nil {
		return 0, fmt.Errorf("write events: %w", err)
	}
	var written []*Event
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("write events: %w", err)
		}
		if e := byID[id]; e != nil {
			written = append(written, e)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("write events: %w", err)
	}
	if len(written) == 0 {
		return 0, nil
	}
	// The VALUES list is (event id, workspace, type, created_at): its
	// columns are column1..column4 on both dialects.
	args = args[:0]
	for _, e := range written {
		args = append(args, e.ID, e.WorkspaceID, e.Type, e.CreatedAt)
	}
	_, err = q.Exec(ctx, multiRowSQL(s.Dialect, `INSERT INTO event_deliveries (id, workspace_id, subscription_id, event_id, state, attempts, next_attempt_at, lease_until, created_at)
		SELECT v.column1 || '_' || sub.id, sub.workspace_id, sub.id, v.column1, 'pending', 0, v.column4, 0, v.column4
		FROM (VALUES `, `) AS v JOIN event_subscriptions sub ON sub.workspace_id = v.column2 AND sub.state = 'active'
		AND sub.events LIKE '%,' || v.column3 || ',%'`, "delivery", deliveryTypes, len(written)), args...)
	if err != nil {
		return 0, fmt.Errorf("fan out events: %w", err)
	}
	return len(written), nil
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
		var write []*Event
		for _, e := range events {
			if e != nil {
				write = append(write, e)
			}
		}
		_, err = s.EmitEvents(ctx, q, write)
		return err
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
