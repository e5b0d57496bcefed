package store

import (
	"context"
	"fmt"
)

// EventDelivery is one event sent to one subscription; its ID is the
// webhook-id of every attempt.
type EventDelivery struct {
	ID             string
	WorkspaceID    string
	SubscriptionID string
	EventID        string
	EventType      string
	State          string
	Attempts       int
	NextAttemptAt  *int64
	ResponseCode   *int
	Error          *string
	LastAttemptAt  *int64
	CreatedAt      int64
}

const deliveryColumns = `d.id, d.workspace_id, d.subscription_id, d.event_id, e.type, d.state, d.attempts, d.next_attempt_at,
	d.response_code, d.error, d.last_attempt_at, d.created_at`

func scanDelivery(r interface{ Scan(...any) error }) (EventDelivery, error) {
	var d EventDelivery
	err := r.Scan(&d.ID, &d.WorkspaceID, &d.SubscriptionID, &d.EventID, &d.EventType, &d.State, &d.Attempts, &d.NextAttemptAt,
		&d.ResponseCode, &d.Error, &d.LastAttemptAt, &d.CreatedAt)
	return d, err
}

// ListEventDeliveries returns a page of a subscription's deliveries,
// newest first: limit of them after skip.
func (s *Store) ListEventDeliveries(ctx context.Context, workspaceID, subscriptionID string, limit, skip int) ([]EventDelivery, error) {
	rows, err := s.query(ctx, `SELECT `+deliveryColumns+` FROM event_deliveries d JOIN events e ON e.id = d.event_id
		WHERE d.workspace_id = $1 AND d.subscription_id = $2 ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4`, workspaceID, subscriptionID, limit, skip)
	if err != nil {
		return nil, fmt.Errorf("list event deliveries: %w", err)
	}
	defer rows.Close()
	out := []EventDelivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("list event deliveries: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// CountEventDeliveries is how many deliveries the workspace's
// subscription has.
func (s *Store) CountEventDeliveries(ctx context.Context, workspaceID, subscriptionID string) (int64, error) {
	var n int64
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM event_deliveries WHERE workspace_id = $1 AND subscription_id = $2`, workspaceID, subscriptionID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count event deliveries: %w", err)
	}
	return n, nil
}

// RedeliverEvent puts a delivery of the workspace's subscription back to
// pending from its first attempt, due now, and resumes the subscription
// when it was paused. ErrNotFound when either is not the workspace's.
func (s *Store) RedeliverEvent(ctx context.Context, workspaceID, subscriptionID, deliveryID string) (EventDelivery, error) {
	now := s.Now()
	var d EventDelivery
	err := s.Tx(ctx, func(q Querier) error {
		n, err := q.Exec(ctx, `UPDATE event_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $1, lease_owner = NULL, lease_until = 0
			WHERE workspace_id = $2 AND subscription_id = $3 AND id = $4`, now, workspaceID, subscriptionID, deliveryID)
		if err != nil {
			return fmt.Errorf("redeliver %s: %w", deliveryID, err)
		}
		if n == 0 {
			return ErrNotFound
		}
		if _, err := q.Exec(ctx, `UPDATE event_subscriptions SET state = 'active', paused_reason = NULL, failing_since = NULL
			WHERE workspace_id = $1 AND id = $2 AND state = 'paused'`, workspaceID, subscriptionID); err != nil {
			return fmt.Errorf("resume subscription %s: %w", subscriptionID, err)
		}
		d, err = scanDelivery(q.QueryRow(ctx, `SELECT `+deliveryColumns+` FROM event_deliveries d JOIN events e ON e.id = d.event_id
			WHERE d.workspace_id = $1 AND d.id = $2`, workspaceID, deliveryID))
		return err
	})
	if err == nil {
		s.EventsCommitted()
	}
	return d, err
}

// ClaimedDelivery is a delivery a deliverer holds under its lease, with
// what sending it needs.
type ClaimedDelivery struct {
	EventDelivery
	Owner         string
	Data          string
	Link          string
	EventAt       int64
	Format        string
	Sealed        string
	DisplayURL    string
	PreviousUntil *int64
}

// ClaimEventDeliveries takes up to limit due deliveries of active
// subscriptions for owner (unique per claim) until leaseUntil, counting
// the attempt: FOR UPDATE SKIP LOCKED on PostgreSQL, so concurrent hosts
// take disjoint sets, and the single writer on SQLite. A delivery whose
// lease expired (its host died) is due again.
func (s *Store) ClaimEventDeliveries(ctx context.Context, owner string, leaseUntil int64, limit int) ([]ClaimedDelivery, error) {
	now := s.Now()
	n, err := s.exec(ctx, `UPDATE event_deliveries SET lease_owner = $1, lease_until = $2, attempts = attempts + 1
		WHERE id IN (SELECT d.id FROM event_deliveries d WHERE d.state = 'pending' AND d.next_attempt_at <= $3 AND d.lease_until <= $3
			AND EXISTS (SELECT 1 FROM event_subscriptions sub WHERE sub.id = d.subscription_id AND sub.state = 'active')
			ORDER BY d.next_attempt_at LIMIT $4`+s.SkipLocked()+`)`, owner, leaseUntil, now, limit)
	if err != nil {
		return nil, fmt.Errorf("claim event deliveries: %w", err)
	}
	if n == 0 {
		return nil, nil
	}
	rows, err := s.query(ctx, `SELECT `+deliveryColumns+`, e.data, e.link, e.created_at, sub.format, sub.sealed, sub.display_url, sub.previous_until
		FROM event_deliveries d JOIN events e ON e.id = d.event_id JOIN event_subscriptions sub ON sub.id = d.subscription_id
		WHERE d.lease_owner = $1`, owner)
	if err != nil {
		return nil, fmt.Errorf("load claimed event deliveries: %w", err)
	}
	defer rows.Close()
	var out []ClaimedDelivery
	for rows.Next() {
		c := ClaimedDelivery{Owner: owner}
		d := &c.EventDelivery
		if err := rows.Scan(&d.ID, &d.WorkspaceID, &d.SubscriptionID, &d.EventID, &d.EventType, &d.State, &d.Attempts, &d.NextAttemptAt,
			&d.ResponseCode, &d.Error, &d.LastAttemptAt, &d.CreatedAt, &c.Data, &c.Link, &c.EventAt, &c.Format, &c.Sealed, &c.DisplayURL, &c.PreviousUntil); err != nil {
			return nil, fmt.Errorf("load claimed event deliveries: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DeliveryOutcome is the end of one attempt.
type DeliveryOutcome struct {
	// State is DeliveryDelivered, DeliveryFailed (no attempt follows) or
	// DeliveryPending (NextAttemptAt is the retry).
	State         string
	NextAttemptAt *int64
	ResponseCode  *int
	Error         *string
	// PauseAfterMs pauses the subscription, with PauseReason, when this
	// failure finds it failing for at least that long.
	PauseAfterMs int64
	PauseReason  string
}

// DeliveryResult is one attempt's outcome to record, and what recording
// it found.
type DeliveryResult struct {
	Claimed ClaimedDelivery
	Outcome DeliveryOutcome
	// Owned is false when the attempt no longer owned the delivery
	// (nothing was written for it); Paused when it paused the
	// subscription.
	Owned, Paused bool
}

// FinishEventDeliveries records the outcomes of a claim's attempts in one
// transaction and, in it, each subscription's health: a success clears
// failing_since, a failure sets it when unset and pauses the subscription
// once it has failed for PauseAfterMs. An attempt that no longer owns its
// delivery (lease lost: another claim, with another owner, took it) writes
// nothing. The successes, the common case, are written together: one
// update per claim and response code, and one clearing of failing_since
// for their subscriptions; failures are written one by one, after them.
func (s *Store) FinishEventDeliveries(ctx context.Context, results []DeliveryResult) error {
	now := s.Now()
	return s.Tx(ctx, func(q Querier) error {
		type group struct {
			owner string
			code  int
		}
		delivered := map[group][]int{}
		var order []group
		for i := range results {
			r := &results[i]
			r.Owned, r.Paused = false, false
			if r.Outcome.State != DeliveryDelivered {
				continue
			}
			g := group{owner: r.Claimed.Owner, code: -1}
			if r.Outcome.ResponseCode != nil {
				g.code = *r.Outcome.ResponseCode
			}
			if _, ok := delivered[g]; !ok {
				order = append(order, g)
			}
			delivered[g] = append(delivered[g], i)
		}
		healthy := map[string]bool{}
		var cleared []string
		for _, g := range order {
			idx := delivered[g]
			byID := make(map[string]int, len(idx))
			ids := make([]string, 0, len(idx))
			for _, i := range idx {
				byID[results[i].Claimed.ID] = i
				ids = append(ids, results[i].Claimed.ID)
			}
			var code *int
			if g.code >= 0 {
				code = &g.code
			}
			err := inList(s.Dialect, []any{code, now, g.owner}, ids, maxBatchParams, func(list string, args []any) error {
				rows, err := q.Query(ctx, `UPDATE event_deliveries SET state = 'delivered', next_attempt_at = NULL, response_code = `+placeholder(s.Dialect, 1)+`,
				error = NULL, last_attempt_at = `+placeholder(s.Dialect, 2)+`, lease_owner = NULL, lease_until = 0
				WHERE lease_owner = `+placeholder(s.Dialect, 3)+` AND id IN (`+list+`) RETURNING id`, args...)
				if err != nil {
					return err
				}
				defer rows.Close()
				for rows.Next() {
					var id string
					if err := rows.Scan(&id); err != nil {
						return err
					}
					if i, ok := byID[id]; ok {
						results[i].Owned = true
						if sub := results[i].Claimed.SubscriptionID; !healthy[sub] {
							healthy[sub] = true
							cleared = append(cleared, sub)
						}
					}
				}
				return rows.Err()
			})
			if err != nil {
				return fmt.Errorf("record deliveries: %w", err)
			}
		}
		if err := inList(s.Dialect, nil, cleared, maxBatchParams, func(list string, args []any) error {
			_, err := q.Exec(ctx, `UPDATE event_subscriptions SET failing_since = NULL WHERE id IN (`+list+`) AND failing_since IS NOT NULL`, args...)
			return err
		}); err != nil {
			return fmt.Errorf("record subscriptions' health: %w", err)
		}
		for i := range results {
			r := &results[i]
			c, o := r.Claimed, r.Outcome
			if o.State == DeliveryDelivered {
				continue
			}
			n, err := q.Exec(ctx, `UPDATE event_deliveries SET state = $1, next_attempt_at = $2, response_code = $3, error = $4, last_attempt_at = $5,
			lease_owner = NULL, lease_until = 0 WHERE id = $6 AND lease_owner = $7 AND attempts = $8`,
				o.State, o.NextAttemptAt, o.ResponseCode, o.Error, now, c.ID, c.Owner, c.Attempts)
			if err != nil {
				return fmt.Errorf("record delivery %s: %w", c.ID, err)
			}
			if n == 0 {
				continue
			}
			r.Owned = true
			if _, err := q.Exec(ctx, `UPDATE event_subscriptions SET failing_since = $1 WHERE id = $2 AND failing_since IS NULL`, now, c.SubscriptionID); err != nil {
				return err
			}
			if o.PauseAfterMs <= 0 {
				continue
			}
			n, err = q.Exec(ctx, `UPDATE event_subscriptions SET state = 'paused', paused_reason = $1
			WHERE id = $2 AND state = 'active' AND failing_since <= $3`, o.PauseReason, c.SubscriptionID, now-o.PauseAfterMs)
			if err != nil {
				return err
			}
			r.Paused = n == 1
		}
		return nil
	})
}

// NextEventDeliveryAt returns when the earliest pending delivery of an
// active subscription is due (0: none), so a deliverer sleeps until then.
func (s *Store) NextEventDeliveryAt(ctx context.Context) (int64, error) {
	var at *int64
	err := s.queryRow(ctx, `SELECT MIN(next_attempt_at) FROM event_deliveries WHERE state = 'pending'`).Scan(&at)
	if err != nil || at == nil {
		return 0, err
	}
	return *at, nil
}
