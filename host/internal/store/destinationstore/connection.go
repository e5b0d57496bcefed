package destinationstore

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
	"strings"

	"github.com/heraldhq/herald/host/internal/events/catalog"
)

// Connection is a workspace's stored credentials for one destination.
// Sealed is the AES-256-GCM sealed JSON of the values; Fields names them.
type Connection struct {
	WorkspaceID string
	Destination string
	Sealed      string
	Fields      []string
	CreatedAt   int64
	UpdatedAt   int64
	// Check is the last check of the credentials against the remote.
	Check ConnectionCheck
}

// PutConnection creates or replaces the workspace's connection to a
// destination.
func (s *Store) PutConnection(ctx context.Context, c *Connection) error {
	now := s.db.Now()
	c.CreatedAt, c.UpdatedAt = now, now
	_, err := s.db.Exec(ctx, `INSERT INTO destination_connections (workspace_id, destination, sealed, fields, created_at, updated_at, checked_at, check_result, check_message, check_account)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (workspace_id, destination) DO UPDATE SET sealed = excluded.sealed, fields = excluded.fields, updated_at = excluded.updated_at,
			checked_at = excluded.checked_at, check_result = excluded.check_result, check_message = excluded.check_message, check_account = excluded.check_account`,
		c.WorkspaceID, c.Destination, c.Sealed, strings.Join(c.Fields, ","), now, now, c.Check.At, c.Check.Result, c.Check.Message, c.Check.Account)
	if err != nil {
		return fmt.Errorf("store connection to %s: %w", c.Destination, err)
	}
	return nil
}

func scanConnection(r interface{ Scan(...any) error }) (Connection, error) {
	var c Connection
	var fields string
	err := r.Scan(&c.WorkspaceID, &c.Destination, &c.Sealed, &fields, &c.CreatedAt, &c.UpdatedAt, &c.Check.At, &c.Check.Result, &c.Check.Message, &c.Check.Account)
	if fields != "" {
		c.Fields = strings.Split(fields, ",")
	}
	return c, err
}

const connectionColumns = `workspace_id, destination, sealed, fields, created_at, updated_at, checked_at, check_result, check_message, check_account`

// ConnectionCheck is the last check of a connection's credentials against
// the remote.
type ConnectionCheck struct {
	// At is when the remote was asked (epoch ms); nil when skipped.
	At *int64
	// Result is "ok", "failed", "skipped" or "unsupported"; "" for
	// connections saved before checks existed.
	Result  string
	Message string
	Account string
}

// SetConnectionCheck records a check of the workspace's connection to
// destination (a publish refused with 401/403 records "failed"); it does
// nothing when the connection is gone.
// The event (destination.connection.failed), when given, is written in the
// same transaction when the connection exists.
func (s *Store) SetConnectionCheck(ctx context.Context, workspaceID, destination string, c ConnectionCheck, event *catalog.Event) error {
	var e *store.Event
	if event != nil {
		e = store.EventOf(*event)
	}
	_, err := s.db.EmitTx(ctx, func(q store.Querier) (bool, error) {
		n, err := q.Exec(ctx, `UPDATE destination_connections SET checked_at = $1, check_result = $2, check_message = $3, check_account = $4
		WHERE workspace_id = $5 AND destination = $6`, c.At, c.Result, c.Message, c.Account, workspaceID, destination)
		return n > 0, err
	}, e)
	if err != nil {
		return fmt.Errorf("record the check of the connection to %s: %w", destination, err)
	}
	return nil
}

// GetConnection returns the workspace's connection to destination, or
// store.ErrNotFound.
func (s *Store) GetConnection(ctx context.Context, workspaceID, destination string) (Connection, error) {
	return scanConnection(s.db.QueryRow(ctx, `SELECT `+connectionColumns+` FROM destination_connections WHERE workspace_id = $1 AND destination = $2`, workspaceID, destination))
}

// ListConnections returns the workspace's connections by destination name.
func (s *Store) ListConnections(ctx context.Context, workspaceID string) (map[string]Connection, error) {
	rows, err := s.db.Query(ctx, `SELECT `+connectionColumns+` FROM destination_connections WHERE workspace_id = $1`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list connections: %w", err)
	}
	defer rows.Close()
	out := map[string]Connection{}
	for rows.Next() {
		c, err := scanConnection(rows)
		if err != nil {
			return nil, fmt.Errorf("list connections: %w", err)
		}
		out[c.Destination] = c
	}
	return out, rows.Err()
}

// DeleteConnection removes the workspace's connection to destination;
// store.ErrNotFound when there is none.
func (s *Store) DeleteConnection(ctx context.Context, workspaceID, destination string) error {
	n, err := s.db.Exec(ctx, `DELETE FROM destination_connections WHERE workspace_id = $1 AND destination = $2`, workspaceID, destination)
	if err != nil {
		return fmt.Errorf("delete connection to %s: %w", destination, err)
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Store reads and writes the destination connections' tables of the one schema.
type Store struct{ db *store.Store }

// New returns the destination connections' queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
