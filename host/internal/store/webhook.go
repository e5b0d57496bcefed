package store

import (
	"context"
	"errors"
	"fmt"
)

// Webhook is a saved webhook endpoint. Sealed holds the full URL and the
// signing secret; DisplayURL is safe to show.
type Webhook struct {
	ID          string
	WorkspaceID string
	Name        string
	DisplayURL  string
	Sealed      string
	CreatedAt   int64
}

const webhookColumns = `id, workspace_id, name, display_url, sealed, created_at`

func scanWebhook(r interface{ Scan(...any) error }) (Webhook, error) {
	var w Webhook
	err := r.Scan(&w.ID, &w.WorkspaceID, &w.Name, &w.DisplayURL, &w.Sealed, &w.CreatedAt)
	return w, err
}

// CreateWebhook stores a new webhook; ID and time are set when empty. With
// a Cap it is an *OverCapError, and nothing is written, when the workspace
// already holds cap.Max live webhooks (checked in the same transaction).
func (s *Store) CreateWebhook(ctx context.Context, w *Webhook, caps ...Cap) error {
	if w.ID == "" {
		w.ID = NewID()
	}
	w.CreatedAt = s.Now()
	err := s.capped(ctx, CountWebhooks, w.WorkspaceID, caps, func(q Querier) error {
		_, err := q.Exec(ctx, `INSERT INTO webhooks (`+webhookColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
			w.ID, w.WorkspaceID, w.Name, w.DisplayURL, w.Sealed, w.CreatedAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("create webhook: %w", err)
	}
	return nil
}

// ListWebhooks returns the workspace's webhooks, newest first.
func (s *Store) ListWebhooks(ctx context.Context, workspaceID string) ([]Webhook, error) {
	rows, err := s.query(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	defer rows.Close()
	out := []Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("list webhooks: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// GetWebhook returns a live webhook of the workspace, or ErrNotFound.
func (s *Store) GetWebhook(ctx context.Context, workspaceID, id string) (Webhook, error) {
	return scanWebhook(s.queryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`, workspaceID, id))
}

// ErrWebhookInUse is returned by DeleteWebhook without force when pending
// schedules name the webhook.
var ErrWebhookInUse = errors.New("pending schedules use the webhook")

// DeleteWebhook deletes a webhook of the workspace (the row is kept without
// its secrets so that schedules naming it fail with a clear reason), in one
// transaction with the workspace's pending schedules that name it: without
// force it returns them with ErrWebhookInUse and changes nothing; with force
// it fails them with reason and returns them. ErrNotFound when there is no
// such live webhook.
func (s *Store) DeleteWebhook(ctx context.Context, workspaceID, id string, force bool, reason string) ([]Schedule, error) {
	var using []Schedule
	err := s.Tx(ctx, func(q Querier) error {
		using = nil // the function may run more than once
		var one int
		err := q.QueryRow(ctx, `SELECT 1 FROM webhooks WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL`+s.ForUpdate(), workspaceID, id).Scan(&one)
		if err != nil {
			return err
		}
		rows, err := q.Query(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE workspace_id = $1 AND webhook_id = $2 AND status = $3
			ORDER BY when_to_export, id`+s.ForUpdate(), workspaceID, id, SchedulePending)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			sc, err := scanSchedule(rows)
			if err != nil {
				return err
			}
			using = append(using, sc)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if len(using) > 0 && !force {
			return ErrWebhookInUse
		}
		now := s.Now()
		if len(using) > 0 {
			if _, err := q.Exec(ctx, `UPDATE schedules SET status = $1, last_error = $2, updated_at = $3
				WHERE workspace_id = $4 AND webhook_id = $5 AND status = $6`,
				ScheduleFailed, reason, now, workspaceID, id, SchedulePending); err != nil {
				return err
			}
		}
		_, err = q.Exec(ctx, `UPDATE webhooks SET deleted_at = $1, sealed = '' WHERE workspace_id = $2 AND id = $3 AND deleted_at IS NULL`, now, workspaceID, id)
		return err
	})
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrWebhookInUse):
		return using, err
	case err != nil:
		return nil, fmt.Errorf("delete webhook: %w", err)
	}
	return using, nil
}
