package store

import (
	"context"
	"fmt"
)

// SetIngestSecret stores the SHA-256 (hex) of a site's new ingest secret,
// replacing the previous one, so the old secret stops working at once.
func (s *Store) SetIngestSecret(ctx context.Context, siteID, hash string) error {
	_, err := s.exec(ctx, `INSERT INTO traffic_ingest_secrets (site_id, secret_hash, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (site_id) DO UPDATE SET secret_hash = excluded.secret_hash, created_at = excluded.created_at`, siteID, hash, s.Now())
	if err != nil {
		return fmt.Errorf("set ingest secret of site %s: %w", siteID, err)
	}
	return nil
}

// SiteByIngestSecret returns the site whose ingest secret has this hash
// and its workspace's plan, or ErrNotFound.
func (s *Store) SiteByIngestSecret(ctx context.Context, hash string) (TrafficSite, string, error) {
	var site TrafficSite
	var plan string
	err := s.queryRow(ctx, `SELECT s.id, s.workspace_id, s.site_key, s.domain, s.name, s.is_active, s.created_at, w.plan
		FROM traffic_ingest_secrets i JOIN traffic_sites s ON s.id = i.site_id JOIN workspaces w ON w.id = s.workspace_id
		WHERE i.secret_hash = $1`, hash).
		Scan(&site.ID, &site.WorkspaceID, &site.SiteKey, &site.Domain, &site.Name, &site.IsActive, &site.CreatedAt, &plan)
	return site, plan, err
}

// CrawlerRangeRow is a range file loaded by an operator command.
type CrawlerRangeRow struct {
	ID, Name, Operator, Source, Body string
	// Created is the file's creationTime (epoch ms); LoadedAt when it was
	// loaded.
	Created, LoadedAt int64
}

// AddCrawlerRange stores a loaded range file.
func (s *Store) AddCrawlerRange(ctx context.Context, r CrawlerRangeRow) error {
	if r.ID == "" {
		r.ID = NewID()
	}
	if r.LoadedAt == 0 {
		r.LoadedAt = s.Now()
	}
	_, err := s.exec(ctx, `INSERT INTO crawler_ranges (id, name, operator, source, created, body, loaded_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		r.ID, r.Name, r.Operator, r.Source, r.Created, r.Body, r.LoadedAt)
	if err != nil {
		return fmt.Errorf("store range file %s: %w", r.Name, err)
	}
	return nil
}

// CrawlerRanges returns the loaded range files, oldest load first.
func (s *Store) CrawlerRanges(ctx context.Context) ([]CrawlerRangeRow, error) {
	rows, err := s.query(ctx, `SELECT id, name, operator, source, created, body, loaded_at FROM crawler_ranges ORDER BY loaded_at, id`)
	if err != nil {
		return nil, fmt.Errorf("read crawler_ranges: %w", err)
	}
	defer rows.Close()
	var out []CrawlerRangeRow
	for rows.Next() {
		var r CrawlerRangeRow
		if err := rows.Scan(&r.ID, &r.Name, &r.Operator, &r.Source, &r.Created, &r.Body, &r.LoadedAt); err != nil {
			return nil, fmt.Errorf("read crawler_ranges: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// LastCrawlerRangeLoad is the latest loaded_at, 0 when none: the cheap
// read that tells a host to reload its ranges.
func (s *Store) LastCrawlerRangeLoad(ctx context.Context) (int64, error) {
	var v *int64
	if err := s.queryRow(ctx, `SELECT MAX(loaded_at) FROM crawler_ranges`).Scan(&v); err != nil {
		return 0, fmt.Errorf("last range load: %w", err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}
