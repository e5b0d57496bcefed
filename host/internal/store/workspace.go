package store

import (
	"context"
	"errors"
	"fmt"
)

// Workspace is a team: the unit of tenancy and of plan limits.
type Workspace struct {
	ID        string
	Name      string
	Plan      string
	Website   string
	CreatedAt int64
}

// User belongs to one workspace.
type User struct {
	ID          string
	WorkspaceID string
	Email       string
	CreatedAt   int64
}

// APIKey is a stored key: only the SHA-256 hash of the secret is kept.
type APIKey struct {
	ID          string
	WorkspaceID string
	UserID      string
	Prefix      string
	Hash        string
	CreatedAt   int64
	// MCPUnattended lets the key's MCP write tools run without asking the
	// human through the client (a pipeline with nobody to ask).
	MCPUnattended bool
}

// Principal is who a verified API key acts for.
type Principal struct {
	Workspace Workspace
	UserID    string
	KeyID     string
	// MCPUnattended is the key's flag (false for a session JWT).
	MCPUnattended bool
}

// CountWorkspaces returns how many workspaces exist.
func (s *Store) CountWorkspaces(ctx context.Context) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT COUNT(*) FROM workspaces`).Scan(&n)
	return n, err
}

// EnsureWorkspaceUser returns the workspace called name and its user with
// email, creating either when missing. plan applies only to a new workspace.
func (s *Store) EnsureWorkspaceUser(ctx context.Context, name, plan, email string) (Workspace, User, error) {
	var ws Workspace
	var u User
	err := s.Tx(ctx, func(q Querier) error {
		ws, u = Workspace{}, User{}
		err := q.QueryRow(ctx, `SELECT id, name, plan, website, created_at FROM workspaces WHERE name = $1`, name).
			Scan(&ws.ID, &ws.Name, &ws.Plan, &ws.Website, &ws.CreatedAt)
		if errors.Is(err, ErrNotFound) {
			ws = Workspace{ID: NewID(), Name: name, Plan: plan, CreatedAt: s.Now()}
			if _, err := q.Exec(ctx, `INSERT INTO workspaces (id, name, plan, website, created_at) VALUES ($1, $2, $3, $4, $5)`,
				ws.ID, ws.Name, ws.Plan, ws.Website, ws.CreatedAt); err != nil {
				return fmt.Errorf("create workspace %s: %w", name, err)
			}
		} else if err != nil {
			return fmt.Errorf("find workspace %s: %w", name, err)
		}
		err = q.QueryRow(ctx, `SELECT id, workspace_id, email, created_at FROM users WHERE workspace_id = $1 AND email = $2`, ws.ID, email).
			Scan(&u.ID, &u.WorkspaceID, &u.Email, &u.CreatedAt)
		if errors.Is(err, ErrNotFound) {
			u = User{ID: NewID(), WorkspaceID: ws.ID, Email: email, CreatedAt: s.Now()}
			if _, err := q.Exec(ctx, `INSERT INTO users (id, workspace_id, email, created_at) VALUES ($1, $2, $3, $4)`,
				u.ID, u.WorkspaceID, u.Email, u.CreatedAt); err != nil {
				return fmt.Errorf("create user %s: %w", email, err)
			}
		} else if err != nil {
			return fmt.Errorf("find user %s: %w", email, err)
		}
		return nil
	})
	return ws, u, err
}

// SetWorkspacePlan changes a workspace's plan.
func (s *Store) SetWorkspacePlan(ctx context.Context, workspaceID, plan string) error {
	n, err := s.exec(ctx, `UPDATE workspaces SET plan = $1 WHERE id = $2`, plan, workspaceID)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// SetWorkspaceWebsite records the team website (used by ensure routes).
func (s *Store) SetWorkspaceWebsite(ctx context.Context, workspaceID, website string) error {
	n, err := s.exec(ctx, `UPDATE workspaces SET website = $1 WHERE id = $2`, website, workspaceID)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// SetUserWebsite records a user's own website (herald keys create
// --website); sites/ensure falls back to it when the team has none.
func (s *Store) SetUserWebsite(ctx context.Context, userID, website string) error {
	n, err := s.exec(ctx, `UPDATE users SET website = $1 WHERE id = $2`, website, userID)
	if err != nil {
		return fmt.Errorf("set user website: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// UserWebsite returns a user's own website, "" when none; ErrNotFound for
// an unknown user.
func (s *Store) UserWebsite(ctx context.Context, userID string) (string, error) {
	var website string
	err := s.queryRow(ctx, `SELECT website FROM users WHERE id = $1`, userID).Scan(&website)
	return website, err
}

// CreateAPIKey stores a key (its hash, never the secret).
func (s *Store) CreateAPIKey(ctx context.Context, k APIKey) error {
	if k.ID == "" {
		k.ID = NewID()
	}
	if k.CreatedAt == 0 {
		k.CreatedAt = s.Now()
	}
	_, err := s.exec(ctx, `INSERT INTO api_keys (id, workspace_id, user_id, prefix, hash, created_at, mcp_unattended) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		k.ID, k.WorkspaceID, k.UserID, k.Prefix, k.Hash, k.CreatedAt, k.MCPUnattended)
	if err != nil {
		return fmt.Errorf("create api key: %w", err)
	}
	return nil
}

// PrincipalByKeyHash finds the workspace and user of an unrevoked key by the
// hex SHA-256 of its secret. ErrNotFound when there is none.
func (s *Store) PrincipalByKeyHash(ctx context.Context, hash string) (Principal, string, error) {
	var p Principal
	var stored string
	err := s.queryRow(ctx, `SELECT k.id, k.user_id, k.hash, k.mcp_unattended, w.id, w.name, w.plan, w.website, w.created_at
		FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
		WHERE k.hash = $1 AND k.revoked_at IS NULL`, hash).
		Scan(&p.KeyID, &p.UserID, &stored, &p.MCPUnattended, &p.Workspace.ID, &p.Workspace.Name, &p.Workspace.Plan, &p.Workspace.Website, &p.Workspace.CreatedAt)
	return p, stored, err
}

// PrincipalByUser loads the workspace of a user, for session JWTs.
func (s *Store) PrincipalByUser(ctx context.Context, workspaceID, userID string) (Principal, error) {
	p := Principal{UserID: userID}
	err := s.queryRow(ctx, `SELECT w.id, w.name, w.plan, w.website, w.created_at
		FROM users u JOIN workspaces w ON w.id = u.workspace_id
		WHERE u.id = $1 AND w.id = $2`, userID, workspaceID).
		Scan(&p.Workspace.ID, &p.Workspace.Name, &p.Workspace.Plan, &p.Workspace.Website, &p.Workspace.CreatedAt)
	return p, err
}
