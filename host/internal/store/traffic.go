package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// The traffic writer's storage: events, sessions and the rollups are written
// here in one transaction, but the rules that decide them (visits,
// engagement, sources) are the traffic package's Sessionize, a pure
// function from the events and the loaded sessions to a TrafficBatch.

// TrafficKind is what a beacon records.
type TrafficKind string

// The kinds of traffic events.
const (
	// TrafficPageview is a page shown to a visitor; the first of a session
	// starts a visit.
	TrafficPageview TrafficKind = "pageview"
	// TrafficEngagement updates the session's latest pageview with visible
	// time and scroll depth; it is not a visit.
	TrafficEngagement TrafficKind = "engagement"
	// TrafficCrawler is a hit by an AI crawler or fetcher.
	TrafficCrawler TrafficKind = "crawler"
)

// TrafficEvent is one classified beacon.
type TrafficEvent struct {
	SiteID    string
	Kind      TrafficKind
	SessionID string
	Path      string
	Title     string
	Referrer  string
	// Source is the AI source of the visit ("" when not from an AI); only the
	// first pageview of a session decides the visit's source.
	Source                            string
	Bot                               string
	UTMSource, UTMMedium, UTMCampaign string
	UserAgent                         string
	// DurationMs is the visible time on the page so far, -1 when not sent.
	DurationMs int64
	// ScrollDepth is the maximum scroll depth in percent, -1 when not sent.
	ScrollDepth int
	// At is when the event was received, epoch ms.
	At int64
}

// Day returns the UTC epoch day of an epoch-ms time.
func Day(ms int64) int64 { return floorDiv(ms, 86_400_000) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// TrafficSessionKey identifies a session: session ids are chosen by the
// browser, so they are unique only within a site.
type TrafficSessionKey struct{ SiteID, SessionID string }

// TrafficSession is one traffic_sessions row: a visit and its latest
// pageview, which later engagement events update.
type TrafficSession struct {
	SiteID, SessionID string
	// Source is the visit's AI source, set by its first pageview.
	Source         string
	Day, StartedAt int64
	Pageviews      int64
	DurationMs     int64
	Engaged        bool
	LastEventID    string
	LastPath       string
	LastDay        int64
	LastDurationMs int64
	LastScroll     int
	UpdatedAt      int64
	// New marks a session not stored yet; Dirty a stored one to rewrite.
	New, Dirty bool
}

// TrafficEventUpdate sets the engagement of a stored pageview.
type TrafficEventUpdate struct {
	ID, SiteID  string
	Day         int64
	DurationMs  int64
	ScrollDepth int
}

// TrafficBatch is what one batch of traffic events writes.
type TrafficBatch struct {
	// Sessions are the loaded and new sessions; those marked New are
	// inserted, those marked Dirty rewritten.
	Sessions map[TrafficSessionKey]*TrafficSession
	// Inserts are the events to store (pageviews and crawler hits).
	Inserts []StoredTrafficEvent
	// Updates set the engagement of pageviews stored by earlier batches.
	Updates []TrafficEventUpdate
	// Rollups are the increments of the rollup rows stats read.
	Rollups *TrafficRollups
	// Mark, when set, records how far the beacon inbox is applied, in the
	// same transaction.
	Mark *TrafficInboxMark
}

// RecordTraffic records a batch of events in one transaction: it loads
// (and on PostgreSQL/CockroachDB locks) the sessions the events refer to,
// passes them to apply, and writes the batch apply returns. apply must have
// no effect outside its result: a retried transaction calls it again. The
// whole batch commits or none of it does.
func (s *Store) RecordTraffic(ctx context.Context, events []TrafficEvent, apply func(map[TrafficSessionKey]*TrafficSession) (TrafficBatch, error)) error {
	err := s.Tx(ctx, func(q Querier) error {
		sessions, err := s.loadSessions(ctx, q, events)
		if err != nil {
			return err
		}
		b, err := apply(sessions)
		if err != nil {
			return err
		}
		return s.writeTraffic(ctx, q, b)
	})
	if err != nil {
		return fmt.Errorf("record %d traffic events: %w", len(events), err)
	}
	return nil
}

// writeTraffic writes a batch: sessions, events, pageview updates, rollups.
func (s *Store) writeTraffic(ctx context.Context, q Querier, b TrafficBatch) error {
	if err := s.writeSessions(ctx, q, b.Sessions); err != nil {
		return err
	}
	if err := insertEvents(ctx, q, s.Dialect, b.Inserts); err != nil {
		return err
	}
	for _, u := range b.Updates {
		if _, err := q.Exec(ctx, `UPDATE traffic_events SET duration_ms = $1, scroll_depth = $2
			WHERE site_id = $3 AND day = $4 AND id = $5`, u.DurationMs, u.ScrollDepth, u.SiteID, u.Day, u.ID); err != nil {
			return fmt.Errorf("update pageview engagement: %w", err)
		}
	}
	if b.Rollups != nil {
		if err := b.Rollups.write(ctx, q, s.Dialect, s.Now()); err != nil {
			return err
		}
	}
	if b.Mark != nil {
		return writeInboxMark(ctx, q, *b.Mark)
	}
	return nil
}

// loadSessions reads (and on PostgreSQL/CockroachDB locks) the sessions the
// batch refers to.
func (s *Store) loadSessions(ctx context.Context, q Querier, events []TrafficEvent) (map[TrafficSessionKey]*TrafficSession, error) {
	// The session ids of each site, sorted and without repeats. A batch
	// nearly always holds one site, so a list per site beats a set.
	bySite := map[string][]string{}
	for i := range events {
		if ev := &events[i]; ev.Kind != TrafficCrawler {
			if bySite[ev.SiteID] == nil {
				bySite[ev.SiteID] = make([]string, 0, len(events)-i)
			}
			bySite[ev.SiteID] = append(bySite[ev.SiteID], ev.SessionID)
		}
	}
	lock := s.ForUpdate()
	sessions := make(map[TrafficSessionKey]*TrafficSession, len(events))
	for site, keys := range bySite {
		slices.Sort(keys)
		keys = slices.Compact(keys)
		err := inList(s.Dialect, []any{site}, keys, maxSessionChunk, func(list string, args []any) error {
			rows, err := q.Query(ctx, `SELECT `+sessionColumns+` FROM traffic_sessions WHERE site_id = `+placeholder(s.Dialect, 1)+
				` AND session_id IN (`+list+`)`+lock, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var x TrafficSession
				if err := rows.Scan(&x.SiteID, &x.SessionID, &x.Source, &x.Day, &x.StartedAt, &x.Pageviews, &x.DurationMs, &x.Engaged,
					&x.LastEventID, &x.LastPath, &x.LastDay, &x.LastDurationMs, &x.LastScroll, &x.UpdatedAt); err != nil {
					return err
				}
				sessions[TrafficSessionKey{x.SiteID, x.SessionID}] = &x
			}
			return rows.Err()
		})
		if err != nil {
			return nil, fmt.Errorf("load traffic sessions: %w", err)
		}
	}
	return sessions, nil
}

const sessionColumns = `site_id, session_id, source, day, started_at, pageviews, duration_ms, engaged,
	last_event_id, last_path, last_day, last_duration_ms, last_scroll, updated_at`

// writeSessions inserts new sessions with a plain INSERT, so that two hosts
// creating the same session at once conflict (and the batch is retried)
// instead of one overwriting the other, and rewrites changed sessions, which
// loadSessions locked, with one upsert. On SQLite, new sessions that hold
// only their first pageview (nearly all of them) are inserted with the five
// columns that pageview leaves constant written as SQL constants; on
// PostgreSQL/CockroachDB every new session goes in one statement in key
// order, so that two hosts inserting the same new sessions take their locks
// in the same order (SQLite has a single writer).
func (s *Store) writeSessions(ctx context.Context, q Querier, sessions map[TrafficSessionKey]*TrafficSession) error {
	var first, fresh, changed []*TrafficSession
	for _, x := range sessions {
		switch {
		case x.New && s.Dialect == SQLite && firstPageviewSession(x):
			first = append(first, x)
		case x.New:
			fresh = append(fresh, x)
		case x.Dirty:
			changed = append(changed, x)
		}
	}
	for _, l := range [][]*TrafficSession{first, fresh, changed} {
		slices.SortFunc(l, func(a, b *TrafficSession) int {
			if c := strings.Compare(a.SiteID, b.SiteID); c != 0 {
				return c
			}
			return strings.Compare(a.SessionID, b.SessionID)
		})
	}
	const insert = `INSERT INTO traffic_sessions (` + sessionColumns + `) VALUES `
	var site, source, day, at lastArg
	_, err := valuesRows(ctx, q, s.Dialect, insert, firstPageviewSessionTypes, len(first), func(args []any, i int) []any {
		x := first[i]
		return append(args, site.str(x.SiteID), x.SessionID, source.str(x.Source), day.int(x.Day), at.int(x.StartedAt),
			x.LastEventID, x.LastPath, day.int(x.LastDay), at.int(x.UpdatedAt))
	}, "")
	if err != nil {
		return fmt.Errorf("write traffic sessions: %w", err)
	}
	row := func(args []any, x *TrafficSession) []any {
		return append(args, x.SiteID, x.SessionID, x.Source, x.Day, x.StartedAt, x.Pageviews, x.DurationMs, x.Engaged,
			x.LastEventID, x.LastPath, x.LastDay, x.LastDurationMs, int64(x.LastScroll), x.UpdatedAt)
	}
	const update = ` ON CONFLICT (site_id, session_id) DO UPDATE SET pageviews = excluded.pageviews,
		duration_ms = excluded.duration_ms, engaged = excluded.engaged, last_event_id = excluded.last_event_id,
		last_path = excluded.last_path, last_day = excluded.last_day, last_duration_ms = excluded.last_duration_ms,
		last_scroll = excluded.last_scroll, updated_at = excluded.updated_at`
	for _, part := range []struct {
		rows   []*TrafficSession
		suffix string
	}{{fresh, ""}, {changed, update}} {
		err := insertRows(ctx, q, s.Dialect, insert, 14, len(part.rows),
			func(args []any, i int) []any { return row(args, part.rows[i]) }, part.suffix)
		if err != nil {
			return fmt.Errorf("write traffic sessions: %w", err)
		}
	}
	return nil
}

// firstPageviewSessionTypes are the columns of a first-pageview session
// row: the constants firstPageviewSession checks, the rest bound.
var firstPageviewSessionTypes = []string{"", "", "", "", "", sqlLiteral("1"), sqlLiteral("0"), sqlLiteral("FALSE"),
	"", "", "", sqlLiteral("0"), sqlLiteral("-1"), ""}

// firstPageviewSession reports whether x holds only its first pageview,
// with no engagement yet: the constants writeSessions writes for such rows.
func firstPageviewSession(x *TrafficSession) bool {
	return x.Pageviews == 1 && x.DurationMs == 0 && !x.Engaged && x.LastDurationMs == 0 && x.LastScroll == -1
}

// insertEvents inserts events in two kinds of statements: pageviews with no
// bot and no UTM tags (nearly every beacon) with those five columns written
// as SQL constants, and every other event with all its columns bound. Each
// keeps the events' order.
func insertEvents(ctx context.Context, q Querier, d Dialect, events []StoredTrafficEvent) error {
	plain := make([]*StoredTrafficEvent, 0, len(events))
	var other []*StoredTrafficEvent
	for i := range events {
		if ev := &events[i]; plainPageview(ev) {
			plain = append(plain, ev)
		} else {
			other = append(other, ev)
		}
	}
	const prefix = `INSERT INTO traffic_events (id, site_id, kind, session_id, day, path, title, referrer, source, bot,
		utm_source, utm_medium, utm_campaign, user_agent, duration_ms, scroll_depth, created_at) VALUES `
	var site, day, title, referrer, source, agent, duration, scroll, at lastArg
	_, err := valuesRows(ctx, q, d, prefix, plainPageviewTypes, len(plain), func(args []any, i int) []any {
		ev := plain[i]
		return append(args, ev.ID, site.str(ev.SiteID), ev.SessionID, day.int(Day(ev.At)), ev.Path, title.str(ev.Title),
			referrer.str(ev.Referrer), source.str(ev.Source), agent.str(ev.UserAgent), duration.int(ev.DurationMs),
			scroll.int(int64(ev.ScrollDepth)), at.int(ev.At))
	}, "")
	if err == nil {
		err = insertRows(ctx, q, d, prefix, 17, len(other), func(args []any, i int) []any {
			ev := other[i]
			return append(args, ev.ID, ev.SiteID, string(ev.Kind), ev.SessionID, Day(ev.At), ev.Path, ev.Title, ev.Referrer, ev.Source, ev.Bot,
				ev.UTMSource, ev.UTMMedium, ev.UTMCampaign, ev.UserAgent, ev.DurationMs, int64(ev.ScrollDepth), ev.At)
		}, "")
	}
	if err != nil {
		return fmt.Errorf("insert traffic events: %w", err)
	}
	return nil
}

// plainPageviewTypes are the columns of a plain pageview row: kind, bot and
// the UTM tags constant, the rest bound.
var plainPageviewTypes = []string{"", "", sqlLiteral("'" + string(TrafficPageview) + "'"), "", "", "", "", "", "",
	sqlLiteral("''"), sqlLiteral("''"), sqlLiteral("''"), sqlLiteral("''"), "", "", "", ""}

// plainPageview reports whether ev is a pageview whose bot and UTM columns
// are empty, which insertEvents writes as constants.
func plainPageview(ev *StoredTrafficEvent) bool {
	return ev.Kind == TrafficPageview && ev.Bot == "" && ev.UTMSource == "" && ev.UTMMedium == "" && ev.UTMCampaign == ""
}

// maxSessionChunk caps the session ids of one SELECT.
const maxSessionChunk = 512
