package store

import (
	"context"
	"fmt"
)

// TrafficEventCount counts the stored events of a site by kind; tests and
// the durability check use it.
func (s *Store) TrafficEventCount(ctx context.Context, siteID string, kind TrafficKind) (int64, error) {
	var n int64
	err := s.queryRow(ctx, `SELECT COUNT(*) FROM traffic_events WHERE site_id = $1 AND kind = $2`, siteID, string(kind)).Scan(&n)
	return n, err
}

// StoredTrafficEvent is a stored pageview or crawler hit.
type StoredTrafficEvent struct {
	ID string
	TrafficEvent
}

// TrafficEvents returns the stored events of a site, oldest first, at most
// limit; tests and exports use it.
func (s *Store) TrafficEvents(ctx context.Context, siteID string, limit int) ([]StoredTrafficEvent, error) {
	rows, err := s.query(ctx, `SELECT id, site_id, kind, session_id, path, title, referrer, source, bot, utm_source, utm_medium,
		utm_campaign, user_agent, duration_ms, scroll_depth, created_at FROM traffic_events WHERE site_id = $1 ORDER BY id LIMIT $2`, siteID, limit)
	if err != nil {
		return nil, fmt.Errorf("read traffic events: %w", err)
	}
	defer rows.Close()
	var out []StoredTrafficEvent
	for rows.Next() {
		var e StoredTrafficEvent
		var kind string
		if err := rows.Scan(&e.ID, &e.SiteID, &kind, &e.SessionID, &e.Path, &e.Title, &e.Referrer, &e.Source, &e.Bot, &e.UTMSource,
			&e.UTMMedium, &e.UTMCampaign, &e.UserAgent, &e.DurationMs, &e.ScrollDepth, &e.At); err != nil {
			return nil, fmt.Errorf("read traffic events: %w", err)
		}
		e.Kind = TrafficKind(kind)
		out = append(out, e)
	}
	return out, rows.Err()
}

// pruneChunk caps the rows one prune statement deletes, so that pruning
// never holds the SQLite writer (or PostgreSQL row locks) for long.
const pruneChunk = 5000

// PruneTraffic deletes the raw events of every site from days before
// beforeDay (epoch day) and the sessions whose latest pageview is older.
// Rollups are kept, so stats over those days do not change; an engagement
// update for a pruned session is no longer stored. It returns the events
// and sessions deleted.
func (s *Store) PruneTraffic(ctx context.Context, beforeDay int64) (events, sessions int64, err error) {
	rows, err := s.query(ctx, `SELECT id FROM traffic_sites ORDER BY id`)
	if err != nil {
		return 0, 0, fmt.Errorf("prune traffic: %w", err)
	}
	var sites []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, 0, fmt.Errorf("prune traffic: %w", err)
		}
		sites = append(sites, id)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return 0, 0, fmt.Errorf("prune traffic: %w", err)
	}
	for _, site := range sites {
		for _, st := range []struct {
			n   *int64
			sql string
		}{
			{&events, `DELETE FROM traffic_events WHERE site_id = $1 AND day < $2 AND id IN
				(SELECT id FROM traffic_events WHERE site_id = $1 AND day < $2 LIMIT $3)`},
			// Raw crawler lines from logs are kept as long as raw events.
			{&events, `DELETE FROM crawler_hits WHERE site_id = $1 AND day < $2 AND id IN
				(SELECT id FROM crawler_hits WHERE site_id = $1 AND day < $2 LIMIT $3)`},
			{&sessions, `DELETE FROM traffic_sessions WHERE site_id = $1 AND session_id IN
				(SELECT session_id FROM traffic_sessions WHERE site_id = $1 AND last_day < $2 LIMIT $3)`},
		} {
			for {
				n, err := s.exec(ctx, st.sql, site, beforeDay, pruneChunk)
				if err != nil {
					return events, sessions, fmt.Errorf("prune traffic of site %s: %w", site, err)
				}
				*st.n += n
				if n < pruneChunk {
					break
				}
			}
		}
	}
	return events, sessions, nil
}
