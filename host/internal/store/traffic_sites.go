package store

import (
	"context"
	"errors"
	"fmt"
)

// TrafficSite is a website tracked for AI traffic.
type TrafficSite struct {
	ID          string
	WorkspaceID string
	SiteKey     string
	Domain      string
	Name        string
	IsActive    bool
	CreatedAt   int64
}

const siteColumns = `id, workspace_id, site_key, domain, name, is_active, created_at`

func scanSite(r Row, s *TrafficSite) error {
	return r.Scan(&s.ID, &s.WorkspaceID, &s.SiteKey, &s.Domain, &s.Name, &s.IsActive, &s.CreatedAt)
}

// CreateTrafficSite stores site unless the workspace already tracks its
// domain; either way it returns the stored site and whether it is new. With
// a Cap, a new domain is an *OverCapError, and nothing is written, when the
// workspace already holds cap.Max sites (checked in the same transaction);
// a domain it tracks is returned at the cap too.
func (s *Store) CreateTrafficSite(ctx context.Context, site TrafficSite, caps ...Cap) (TrafficSite, bool, error) {
	if site.ID == "" {
		site.ID = NewID()
	}
	if site.CreatedAt == 0 {
		site.CreatedAt = s.Now()
	}
	var got TrafficSite
	created := false
	c := firstCap(caps)
	write := func(q Querier) error {
		created = false
		if c.Max > 0 {
			err := scanSite(q.QueryRow(ctx, `SELECT `+siteColumns+` FROM traffic_sites WHERE workspace_id = $1 AND domain = $2`,
				site.WorkspaceID, site.Domain), &got)
			if err == nil || !errors.Is(err, ErrNotFound) {
				return err
			}
			if err := s.holdCap(ctx, q, CountSites, site.WorkspaceID, c); err != nil {
				return err
			}
		}
		n, err := q.Exec(ctx, `INSERT INTO traffic_sites (`+siteColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (workspace_id, domain) DO NOTHING`,
			site.ID, site.WorkspaceID, site.SiteKey, site.Domain, site.Name, site.IsActive, site.CreatedAt)
		if err != nil {
			return err
		}
		if n == 1 {
			got, created = site, true
			return nil
		}
		// Another request added the domain between the look and the insert.
		return scanSite(q.QueryRow(ctx, `SELECT `+siteColumns+` FROM traffic_sites WHERE workspace_id = $1 AND domain = $2`,
			site.WorkspaceID, site.Domain), &got)
	}
	var err error
	if c.Max > 0 {
		err = s.Tx(ctx, write)
	} else {
		err = write(s.b)
	}
	if err != nil {
		return TrafficSite{}, false, fmt.Errorf("create traffic site %s: %w", site.Domain, err)
	}
	return got, created, nil
}

// ListTrafficSites returns the workspace's sites, oldest first.
func (s *Store) ListTrafficSites(ctx context.Context, workspaceID string) ([]TrafficSite, error) {
	rows, err := s.query(ctx, `SELECT `+siteColumns+` FROM traffic_sites WHERE workspace_id = $1 ORDER BY created_at, id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("list traffic sites: %w", err)
	}
	defer rows.Close()
	var out []TrafficSite
	for rows.Next() {
		var site TrafficSite
		if err := scanSite(rows, &site); err != nil {
			return nil, fmt.Errorf("list traffic sites: %w", err)
		}
		out = append(out, site)
	}
	return out, rows.Err()
}

// TrafficSiteByKey finds a site by its public key, in any workspace.
func (s *Store) TrafficSiteByKey(ctx context.Context, siteKey string) (TrafficSite, error) {
	var site TrafficSite
	err := scanSite(s.queryRow(ctx, `SELECT `+siteColumns+` FROM traffic_sites WHERE site_key = $1`, siteKey), &site)
	return site, err
}

// SetTrafficSiteActive turns collection for a site on or off.
func (s *Store) SetTrafficSiteActive(ctx context.Context, workspaceID, id string, active bool) error {
	n, err := s.exec(ctx, `UPDATE traffic_sites SET is_active = $1 WHERE id = $2 AND workspace_id = $3`, active, id, workspaceID)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// RecordWorkspaceWebsite sets the workspace website when it has none, so
// that the first tracked site's domain becomes the team website.
func (s *Store) RecordWorkspaceWebsite(ctx context.Context, workspaceID, website string) error {
	_, err := s.exec(ctx, `UPDATE workspaces SET website = $1 WHERE id = $2 AND website = ''`, website, workspaceID)
	if err != nil {
		return fmt.Errorf("record workspace website: %w", err)
	}
	return nil
}
