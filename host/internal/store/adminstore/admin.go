package adminstore

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
)

// WorkspaceSummary is one row of `herald workspaces list`.
type WorkspaceSummary struct {
	store.Workspace
	Users, ActiveKeys int
}

// KeyInfo is one row of `herald keys list`: never the secret, only its
// prefix, with the ids a session JWT needs (workspace and user).
type KeyInfo struct {
	ID, Prefix                 string
	WorkspaceID, WorkspaceName string
	UserID, UserEmail          string
	CreatedAt                  int64
	RevokedAt                  int64 // 0 while the key is valid
	MCPUnattended              bool  // MCP write tools run without asking the human
}

// ListWorkspaces returns every workspace with its user and unrevoked key
// counts, oldest first.
func (s *Store) ListWorkspaces(ctx context.Context) ([]WorkspaceSummary, error) {
	rows, err := s.db.Query(ctx, `SELECT w.id, w.name, w.plan, w.website, w.created_at,
		(SELECT COUNT(*) FROM users u WHERE u.workspace_id = w.id),
		(SELECT COUNT(*) FROM api_keys k WHERE k.workspace_id = w.id AND k.revoked_at IS NULL)
		FROM workspaces w ORDER BY w.created_at, w.name`)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	defer rows.Close()
	var out []WorkspaceSummary
	for rows.Next() {
		var w WorkspaceSummary
		if err := rows.Scan(&w.ID, &w.Name, &w.Plan, &w.Website, &w.CreatedAt, &w.Users, &w.ActiveKeys); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// WorkspaceByName returns the workspace called name; store.ErrNotFound if none.
func (s *Store) WorkspaceByName(ctx context.Context, name string) (store.Workspace, error) {
	var ws store.Workspace
	err := s.db.QueryRow(ctx, `SELECT id, name, plan, website, created_at FROM workspaces WHERE name = $1`, name).
		Scan(&ws.ID, &ws.Name, &ws.Plan, &ws.Website, &ws.CreatedAt)
	return ws, err
}

// ListAPIKeys returns the keys of workspaceID (all workspaces when empty),
// revoked ones included, oldest first.
func (s *Store) ListAPIKeys(ctx context.Context, workspaceID string) ([]KeyInfo, error) {
	rows, err := s.db.Query(ctx, `SELECT k.id, k.prefix, w.id, w.name, u.id, u.email, k.created_at, k.revoked_at, k.mcp_unattended
		FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id JOIN users u ON u.id = k.user_id
		WHERE $1 = '' OR k.workspace_id = $1 ORDER BY k.created_at, k.id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	defer rows.Close()
	var out []KeyInfo
	for rows.Next() {
		var k KeyInfo
		var revoked sql.NullInt64
		if err := rows.Scan(&k.ID, &k.Prefix, &k.WorkspaceID, &k.WorkspaceName, &k.UserID, &k.UserEmail, &k.CreatedAt, &revoked, &k.MCPUnattended); err != nil {
			return nil, err
		}
		k.RevokedAt = revoked.Int64
		out = append(out, k)
	}
	return out, rows.Err()
}

// GetAPIKey returns the key with id; store.ErrNotFound if none.
func (s *Store) GetAPIKey(ctx context.Context, id string) (KeyInfo, error) {
	var k KeyInfo
	var revoked sql.NullInt64
	err := s.db.QueryRow(ctx, `SELECT k.id, k.prefix, w.id, w.name, u.id, u.email, k.created_at, k.revoked_at, k.mcp_unattended
		FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id JOIN users u ON u.id = k.user_id
		WHERE k.id = $1`, id).
		Scan(&k.ID, &k.Prefix, &k.WorkspaceID, &k.WorkspaceName, &k.UserID, &k.UserEmail, &k.CreatedAt, &revoked, &k.MCPUnattended)
	k.RevokedAt = revoked.Int64
	return k, err
}

// RevokeAPIKey revokes the unrevoked key id and, when next is non-nil,
// stores next for the same workspace and user, with the same MCP flag, in
// the same transaction (a rotation: never a moment with both or neither
// valid to the caller).
// store.ErrNotFound when there is no such unrevoked key.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, next *store.APIKey) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		var ws, user string
		var unattended bool
		err := q.QueryRow(ctx, `SELECT workspace_id, user_id, mcp_unattended FROM api_keys WHERE id = $1 AND revoked_at IS NULL`, id).Scan(&ws, &user, &unattended)
		if err != nil {
			return err
		}
		if _, err := q.Exec(ctx, `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, s.db.Now(), id); err != nil {
			return fmt.Errorf("revoke api key: %w", err)
		}
		if next == nil {
			return nil
		}
		next.WorkspaceID, next.UserID, next.MCPUnattended = ws, user, unattended
		if next.ID == "" {
			next.ID = store.NewID()
		}
		next.CreatedAt = s.db.Now()
		if _, err := q.Exec(ctx, `INSERT INTO api_keys (id, workspace_id, user_id, prefix, hash, created_at, mcp_unattended) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			next.ID, next.WorkspaceID, next.UserID, next.Prefix, next.Hash, next.CreatedAt, next.MCPUnattended); err != nil {
			return fmt.Errorf("create api key: %w", err)
		}
		return nil
	})
}

// Store reads and writes the workspace administration tables of the one schema.
type Store struct{ db *store.Store }

// New returns the workspace administration queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
