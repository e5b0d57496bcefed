package analyticsstore

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
)

// AnalyticsConnection is a workspace's connection to a web analytics source
// (source "google"). Sealed is the AES-256-GCM sealed JSON of the
// credentials the source's plugin handed over; ExpiresAt (epoch ms, 0:
// never) is when they need a refresh.
type AnalyticsConnection struct {
	WorkspaceID, Source, Method, Account string
	Sealed                               string
	ExpiresAt, CreatedAt, UpdatedAt      int64
}

const analyticsConnectionColumns = `workspace_id, source, method, account, sealed, expires_at, created_at, updated_at`

// PutAnalyticsConnection creates or replaces the workspace's connection to
// c.Source (a reconnect keeps the first CreatedAt).
func (s *Store) PutAnalyticsConnection(ctx context.Context, c *AnalyticsConnection) error {
	now := s.db.Now()
	c.UpdatedAt = now
	if c.CreatedAt == 0 {
		c.CreatedAt = now
	}
	_, err := s.db.Exec(ctx, `INSERT INTO analytics_connections (`+analyticsConnectionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (workspace_id, source) DO UPDATE SET method = excluded.method, account = excluded.account, sealed = excluded.sealed,
			expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
		c.WorkspaceID, c.Source, c.Method, c.Account, c.Sealed, c.ExpiresAt, c.CreatedAt, now)
	if err != nil {
		return fmt.Errorf("store the %s analytics connection: %w", c.Source, err)
	}
	return nil
}

// UpdateAnalyticsCredentials replaces the sealed credentials of a
// connection after a refresh, only while the connection is the one read
// (updated_at unchanged), so a refresh racing a disconnect or a reconnect
// never brings old credentials back. It reports whether it wrote.
func (s *Store) UpdateAnalyticsCredentials(ctx context.Context, c AnalyticsConnection, sealed string, expiresAt int64) (bool, error) {
	n, err := s.db.Exec(ctx, `UPDATE analytics_connections SET sealed = $1, expires_at = $2, updated_at = $3
		WHERE workspace_id = $4 AND source = $5 AND updated_at = $6`, sealed, expiresAt, max(s.db.Now(), c.UpdatedAt+1), c.WorkspaceID, c.Source, c.UpdatedAt)
	if err != nil {
		return false, fmt.Errorf("store refreshed %s analytics credentials: %w", c.Source, err)
	}
	return n == 1, nil
}

// GetAnalyticsConnection returns the workspace's connection to source, or
// store.ErrNotFound.
func (s *Store) GetAnalyticsConnection(ctx context.Context, workspaceID, source string) (AnalyticsConnection, error) {
	var c AnalyticsConnection
	err := s.db.QueryRow(ctx, `SELECT `+analyticsConnectionColumns+` FROM analytics_connections WHERE workspace_id = $1 AND source = $2`,
		workspaceID, source).Scan(&c.WorkspaceID, &c.Source, &c.Method, &c.Account, &c.Sealed, &c.ExpiresAt, &c.CreatedAt, &c.UpdatedAt)
	return c, err
}

// DeleteAnalyticsConnection removes the workspace's connection to source
// and its site mappings in one transaction; store.ErrNotFound when there is none.
func (s *Store) DeleteAnalyticsConnection(ctx context.Context, workspaceID, source string) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		n, err := q.Exec(ctx, `DELETE FROM analytics_connections WHERE workspace_id = $1 AND source = $2`, workspaceID, source)
		if err != nil {
			return fmt.Errorf("delete the %s analytics connection: %w", source, err)
		}
		if n == 0 {
			return store.ErrNotFound
		}
		if _, err := q.Exec(ctx, `DELETE FROM analytics_site_properties WHERE workspace_id = $1 AND source = $2`, workspaceID, source); err != nil {
			return fmt.Errorf("delete the %s site properties: %w", source, err)
		}
		return nil
	})
}

// AnalyticsState is a connect under way: the SHA-256 of its one-time
// state, the sealed PKCE verifier and the redirect URI it was started with.
type AnalyticsState struct {
	StateHash, WorkspaceID, Source string
	SealedVerifier, RedirectURI    string
	ExpiresAt, CreatedAt           int64
}

// PutAnalyticsState stores a new state and drops the expired ones.
func (s *Store) PutAnalyticsState(ctx context.Context, st AnalyticsState) error {
	now := s.db.Now()
	if _, err := s.db.Exec(ctx, `DELETE FROM analytics_oauth_states WHERE expires_at <= $1`, now); err != nil {
		return fmt.Errorf("prune analytics states: %w", err)
	}
	_, err := s.db.Exec(ctx, `INSERT INTO analytics_oauth_states (state_hash, workspace_id, source, sealed_verifier, redirect_uri, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, st.StateHash, st.WorkspaceID, st.Source, st.SealedVerifier, st.RedirectURI, st.ExpiresAt, now)
	if err != nil {
		return fmt.Errorf("store analytics state: %w", err)
	}
	return nil
}

// ClaimAnalyticsState takes the state of hash once: it is deleted as it is
// read, so a second claim (a replayed redirect) finds nothing. An expired
// state, or none, is store.ErrNotFound.
func (s *Store) ClaimAnalyticsState(ctx context.Context, hash string) (AnalyticsState, error) {
	var st AnalyticsState
	err := s.db.QueryRow(ctx, `SELECT state_hash, workspace_id, source, sealed_verifier, redirect_uri, expires_at, created_at
		FROM analytics_oauth_states WHERE state_hash = $1`, hash).
		Scan(&st.StateHash, &st.WorkspaceID, &st.Source, &st.SealedVerifier, &st.RedirectURI, &st.ExpiresAt, &st.CreatedAt)
	if err != nil {
		return AnalyticsState{}, err
	}
	n, err := s.db.Exec(ctx, `DELETE FROM analytics_oauth_states WHERE state_hash = $1`, hash)
	if err != nil {
		return AnalyticsState{}, fmt.Errorf("claim analytics state: %w", err)
	}
	if n == 0 || st.ExpiresAt <= s.db.Now() {
		return AnalyticsState{}, store.ErrNotFound
	}
	return st, nil
}

// AnalyticsSiteProperty maps a tracked site to a property of a source.
type AnalyticsSiteProperty struct {
	SiteID, SiteKey, Domain, PropertyID string
}

// SetAnalyticsSiteProperty maps the workspace's site to propertyID of
// source; an empty propertyID removes the mapping.
func (s *Store) SetAnalyticsSiteProperty(ctx context.Context, workspaceID, source, siteID, propertyID string) error {
	if propertyID == "" {
		_, err := s.db.Exec(ctx, `DELETE FROM analytics_site_properties WHERE workspace_id = $1 AND source = $2 AND site_id = $3`, workspaceID, source, siteID)
		if err != nil {
			return fmt.Errorf("remove site property: %w", err)
		}
		return nil
	}
	_, err := s.db.Exec(ctx, `INSERT INTO analytics_site_properties (site_id, source, workspace_id, property_id, updated_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (site_id, source) DO UPDATE SET property_id = excluded.property_id, updated_at = excluded.updated_at
		WHERE analytics_site_properties.workspace_id = excluded.workspace_id`, siteID, source, workspaceID, propertyID, s.db.Now())
	if err != nil {
		return fmt.Errorf("set site property: %w", err)
	}
	return nil
}

// AnalyticsSiteProperties lists the workspace's sites mapped to a property
// of source, by site key.
func (s *Store) AnalyticsSiteProperties(ctx context.Context, workspaceID, source string) ([]AnalyticsSiteProperty, error) {
	rows, err := s.db.Query(ctx, `SELECT p.site_id, t.site_key, t.domain, p.property_id FROM analytics_site_properties p
		JOIN traffic_sites t ON t.id = p.site_id AND t.workspace_id = p.workspace_id
		WHERE p.workspace_id = $1 AND p.source = $2 ORDER BY t.site_key`, workspaceID, source)
	if err != nil {
		return nil, fmt.Errorf("list site properties: %w", err)
	}
	defer rows.Close()
	var out []AnalyticsSiteProperty
	for rows.Next() {
		var p AnalyticsSiteProperty
		if err := rows.Scan(&p.SiteID, &p.SiteKey, &p.Domain, &p.PropertyID); err != nil {
			return nil, fmt.Errorf("list site properties: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// AnalyticsSitePropertyOf returns the property of source mapped to the
// workspace's site, or store.ErrNotFound.
func (s *Store) AnalyticsSitePropertyOf(ctx context.Context, workspaceID, source, siteID string) (string, error) {
	var id string
	err := s.db.QueryRow(ctx, `SELECT property_id FROM analytics_site_properties WHERE workspace_id = $1 AND source = $2 AND site_id = $3`,
		workspaceID, source, siteID).Scan(&id)
	return id, err
}

// Store reads and writes the analytics tables of the one schema.
type Store struct{ db *store.Store }

// New returns the analytics queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
