package destinationstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/heraldhq/herald/host/internal/store"
)

// OAuthState is an authorization in progress: the workspace and user that
// started it, for one destination, until ExpiresAt (epoch ms).
type OAuthState struct {
	StateHash   string
	WorkspaceID string
	UserID      string
	Destination string
	CreatedAt   int64
	ExpiresAt   int64
}

// InsertOAuthState stores a new authorization in progress.
func (s *Store) InsertOAuthState(ctx context.Context, st OAuthState) error {
	_, err := s.db.Exec(ctx, `INSERT INTO oauth_states (state_hash, workspace_id, user_id, destination, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		st.StateHash, st.WorkspaceID, st.UserID, st.Destination, st.CreatedAt, st.ExpiresAt)
	if err != nil {
		return fmt.Errorf("store oauth state: %w", err)
	}
	return nil
}

// ErrOAuthStateUsed is a state that was already consumed (a replayed
// callback).
var ErrOAuthStateUsed = errors.New("the authorization state was already used")

// ConsumeOAuthState marks the state of destination used, once: it returns
// the state, ErrNotFound for an unknown or expired one, ErrOAuthStateUsed
// for one already consumed.
func (s *Store) ConsumeOAuthState(ctx context.Context, stateHash, destination string) (OAuthState, error) {
	now := s.db.Now()
	var st OAuthState
	err := s.db.QueryRow(ctx, `UPDATE oauth_states SET used_at = $1 WHERE state_hash = $2 AND destination = $3 AND used_at IS NULL AND expires_at > $1
		RETURNING state_hash, workspace_id, user_id, destination, created_at, expires_at`, now, stateHash, destination).
		Scan(&st.StateHash, &st.WorkspaceID, &st.UserID, &st.Destination, &st.CreatedAt, &st.ExpiresAt)
	if errors.Is(err, store.ErrNotFound) {
		var used *int64
		if s.db.QueryRow(ctx, `SELECT used_at FROM oauth_states WHERE state_hash = $1 AND destination = $2`, stateHash, destination).Scan(&used) == nil && used != nil {
			return OAuthState{}, ErrOAuthStateUsed
		}
		return OAuthState{}, store.ErrNotFound
	}
	if err != nil {
		return OAuthState{}, fmt.Errorf("consume oauth state: %w", err)
	}
	return st, nil
}

// ConnectionExpiry is when a connection's access token and refresh token
// expire (epoch ms; nil: not known, or no refresh token).
type ConnectionExpiry struct {
	WorkspaceID, Destination string
	ExpiresAt                *int64
	RefreshExpiresAt         *int64
}

// SetConnectionExpiry records the expiry of the workspace's connection to
// destination (nil clears it: a pasted token has none known).
func (s *Store) SetConnectionExpiry(ctx context.Context, workspaceID, destination string, expiresAt, refreshExpiresAt *int64) error {
	_, err := s.db.Exec(ctx, `UPDATE destination_connections SET expires_at = $1, refresh_expires_at = $2 WHERE workspace_id = $3 AND destination = $4`,
		expiresAt, refreshExpiresAt, workspaceID, destination)
	if err != nil {
		return fmt.Errorf("record the expiry of the connection to %s: %w", destination, err)
	}
	return nil
}

// GetConnectionExpiry returns the expiry of a connection, or ErrNotFound.
func (s *Store) GetConnectionExpiry(ctx context.Context, workspaceID, destination string) (ConnectionExpiry, error) {
	e := ConnectionExpiry{WorkspaceID: workspaceID, Destination: destination}
	err := s.db.QueryRow(ctx, `SELECT expires_at, refresh_expires_at FROM destination_connections WHERE workspace_id = $1 AND destination = $2`,
		workspaceID, destination).Scan(&e.ExpiresAt, &e.RefreshExpiresAt)
	return e, err
}

// ExpiringConnections returns up to limit connections whose access token
// expires before before (epoch ms) and that cannot be refreshed past it.
func (s *Store) ExpiringConnections(ctx context.Context, before int64, limit int) ([]ConnectionExpiry, error) {
	rows, err := s.db.Query(ctx, `SELECT workspace_id, destination, expires_at, refresh_expires_at FROM destination_connections
		WHERE expires_at IS NOT NULL AND expires_at < $1 AND (refresh_expires_at IS NULL OR refresh_expires_at < $1)
		ORDER BY expires_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("find expiring connections: %w", err)
	}
	defer rows.Close()
	var out []ConnectionExpiry
	for rows.Next() {
		var e ConnectionExpiry
		if err := rows.Scan(&e.WorkspaceID, &e.Destination, &e.ExpiresAt, &e.RefreshExpiresAt); err != nil {
			return nil, fmt.Errorf("find expiring connections: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
