package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CrawlerHit is one AI crawler request read from a site's server log.
type CrawlerHit struct {
	// At is epoch milliseconds.
	At            int64
	Bot, Operator string
	Verified      bool
	Method, Path  string
	Status        int
	// IP is what the plan lets Herald keep of the address ("" for none).
	IP, UserAgent string
}

// CrawlerBatch is what one log request stores.
type CrawlerBatch struct {
	SiteID string
	// Lines is how many lines the request counts against the site's
	// daily cap (accepted and rejected).
	Lines int64
	// Cap is the plan's log_lines_per_day; 0 is no cap.
	Cap  int64
	Hits []CrawlerHit
	// Events are written in the batch's transaction when it commits
	// (crawler.first_seen, whose dedupe key makes all but the first a
	// no-op).
	Events []*Event
}

// ErrLogCap is returned, and nothing is written, when a batch would take
// its site past Cap lines today.
var ErrLogCap = errors.New("the site's log lines for today are over its plan's log_lines_per_day")

type crawlerDayKey struct {
	day int64
	bot string
}

type crawlerCount struct{ verified, claimed int64 }

func (c *crawlerCount) add(verified bool) {
	if verified {
		c.verified++
	} else {
		c.claimed++
	}
}

// RecordCrawlerHits counts b.Lines against the site's day, then stores the
// raw hits and their rollups, all in one transaction: over the cap
// (ErrLogCap) or on any error nothing is written.
func (s *Store) RecordCrawlerHits(ctx context.Context, b CrawlerBatch) error {
	now := s.Now()
	today := Day(now)
	days := map[crawlerDayKey]*crawlerCount{}
	pages := pageDays{}
	for _, h := range b.Hits {
		day := Day(h.At)
		dk := crawlerDayKey{day, h.Bot}
		if days[dk] == nil {
			days[dk] = &crawlerCount{}
		}
		days[dk].add(h.Verified)
		if h.Verified {
			pages.add(pageDaysKey{b.SiteID, h.Path, pageKindCrawler, h.Operator}, day, 1, 0)
		} else {
			pages.add(pageDaysKey{b.SiteID, h.Path, pageKindCrawler, h.Operator}, day, 0, 1)
		}
	}
	ids := make([]string, len(b.Hits))
	for i := range ids {
		ids[i] = NewID()
	}
	err := s.Tx(ctx, func(q Querier) error {
		if b.Lines > 0 {
			if _, err := q.Exec(ctx, `INSERT INTO crawler_ingest_days (site_id, day, lines) VALUES ($1, $2, $3)
				ON CONFLICT (site_id, day) DO UPDATE SET lines = crawler_ingest_days.lines + excluded.lines`, b.SiteID, today, b.Lines); err != nil {
				return err
			}
			if b.Cap > 0 {
				var lines int64
				if err := q.QueryRow(ctx, `SELECT lines FROM crawler_ingest_days WHERE site_id = $1 AND day = $2`, b.SiteID, today).Scan(&lines); err != nil {
					return err
				}
				if lines > b.Cap {
					return ErrLogCap
				}
			}
		}
		var site lastArg
		err := insertRows(ctx, q, s.Dialect, `INSERT INTO crawler_hits (site_id, day, id, at, bot, operator, verified, method, path, status, ip, user_agent, created_at) VALUES `,
			13, len(b.Hits), func(args []any, i int) []any {
				h := b.Hits[i]
				return append(args, site.str(b.SiteID), Day(h.At), ids[i], h.At, h.Bot, h.Operator, h.Verified, h.Method, h.Path, int64(h.Status), h.IP, h.UserAgent, now)
			}, ``)
		if err != nil {
			return fmt.Errorf("insert crawler_hits: %w", err)
		}
		dk := slices.SortedFunc(mapKeys(days), func(a, b crawlerDayKey) int { return cmp.Or(cmp.Compare(a.day, b.day), strings.Compare(a.bot, b.bot)) })
		err = insertRows(ctx, q, s.Dialect, `INSERT INTO crawler_daily (site_id, day, bot, verified, claimed) VALUES `, 5, len(dk),
			func(args []any, i int) []any {
				c := days[dk[i]]
				return append(args, b.SiteID, dk[i].day, dk[i].bot, c.verified, c.claimed)
			}, ` ON CONFLICT (site_id, day, bot) DO UPDATE SET verified = crawler_daily.verified + excluded.verified, claimed = crawler_daily.claimed + excluded.claimed`)
		if err != nil {
			return fmt.Errorf("upsert crawler_daily: %w", err)
		}
		if err := pages.writeDeltas(ctx, q, s.Dialect); err != nil {
			return err
		}
		for _, e := range b.Events {
			if _, err := s.EmitEvent(ctx, q, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && len(b.Events) > 0 {
		s.EventsCommitted()
	}
	if err != nil && !errors.Is(err, ErrLogCap) {
		return fmt.Errorf("record crawler hits of site %s: %w", b.SiteID, err)
	}
	return err
}

// mapKeys iterates the keys of m.
func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// CrawlerDailyRow is one crawler_daily row.
type CrawlerDailyRow struct {
	Day               int64
	Bot               string
	Verified, Claimed int64
}

// CrawlerDaily returns log crawler hits of a site per day and bot for days
// from..to.
func (s *Store) CrawlerDaily(ctx context.Context, siteID string, from, to int64) ([]CrawlerDailyRow, error) {
	rows, err := s.query(ctx, `SELECT day, bot, verified, claimed FROM crawler_daily WHERE site_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, bot`,
		siteID, from, to)
	if err != nil {
		return nil, fmt.Errorf("read crawler_daily: %w", err)
	}
	defer rows.Close()
	var out []CrawlerDailyRow
	for rows.Next() {
		var r CrawlerDailyRow
		if err := rows.Scan(&r.Day, &r.Bot, &r.Verified, &r.Claimed); err != nil {
			return nil, fmt.Errorf("read crawler_daily: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CrawlerHitRow is a stored raw crawler line.
type CrawlerHitRow struct {
	CrawlerHit
	Day int64
}

// CrawlerHits returns a site's raw crawler lines of days from..to, oldest
// first, at most limit.
func (s *Store) CrawlerHits(ctx context.Context, siteID string, from, to int64, limit int) ([]CrawlerHitRow, error) {
	rows, err := s.query(ctx, `SELECT day, at, bot, operator, verified, method, path, status, ip, user_agent FROM crawler_hits
		WHERE site_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, at, id LIMIT $4`, siteID, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("read crawler_hits: %w", err)
	}
	defer rows.Close()
	var out []CrawlerHitRow
	for rows.Next() {
		var r CrawlerHitRow
		var status int64
		if err := rows.Scan(&r.Day, &r.At, &r.Bot, &r.Operator, &r.Verified, &r.Method, &r.Path, &status, &r.IP, &r.UserAgent); err != nil {
			return nil, fmt.Errorf("read crawler_hits: %w", err)
		}
		r.Status = int(status)
		out = append(out, r)
	}
	return out, rows.Err()
}
