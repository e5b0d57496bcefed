package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
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
// domain; either way it returns the stored site and whether it is new.
func (s *Store) CreateTrafficSite(ctx context.Context, site TrafficSite) (TrafficSite, bool, error) {
	if site.ID == "" {
		site.ID = NewID()
	}
	if site.CreatedAt == 0 {
		site.CreatedAt = s.Now()
	}
	n, err := s.Exec(ctx, `INSERT INTO traffic_sites (`+siteColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (workspace_id, domain) DO NOTHING`,
		site.ID, site.WorkspaceID, site.SiteKey, site.Domain, site.Name, site.IsActive, site.CreatedAt)
	if err != nil {
		return TrafficSite{}, false, fmt.Errorf("create traffic site %s: %w", site.Domain, err)
	}
	if n == 1 {
		return site, true, nil
	}
	var got TrafficSite
	err = scanSite(s.QueryRow(ctx, `SELECT `+siteColumns+` FROM traffic_sites WHERE workspace_id = $1 AND domain = $2`,
		site.WorkspaceID, site.Domain), &got)
	if err != nil {
		return TrafficSite{}, false, fmt.Errorf("find traffic site %s: %w", site.Domain, err)
	}
	return got, false, nil
}

// ListTrafficSites returns the workspace's sites, oldest first.
func (s *Store) ListTrafficSites(ctx context.Context, workspaceID string) ([]TrafficSite, error) {
	rows, err := s.Query(ctx, `SELECT `+siteColumns+` FROM traffic_sites WHERE workspace_id = $1 ORDER BY created_at, id`, workspaceID)
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
	err := scanSite(s.QueryRow(ctx, `SELECT `+siteColumns+` FROM traffic_sites WHERE site_key = $1`, siteKey), &site)
	return site, err
}

// SetTrafficSiteActive turns collection for a site on or off.
func (s *Store) SetTrafficSiteActive(ctx context.Context, workspaceID, id string, active bool) error {
	n, err := s.Exec(ctx, `UPDATE traffic_sites SET is_active = $1 WHERE id = $2 AND workspace_id = $3`, active, id, workspaceID)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

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

// EngagedAfterMs is the visible time after which a visit counts as engaged
// (as does a second pageview), as in GA4.
const EngagedAfterMs = 10_000

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

// TrafficOutcome is what RecordTraffic did with one event.
type TrafficOutcome struct {
	// Stored is false for an engagement update with no pageview to attach to.
	Stored bool
	// Source is the AI source of the event's visit.
	Source string
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

type sessionKey struct{ site, session string }

type trafficSession struct {
	siteID, sessionID, source string
	day, startedAt            int64
	pageviews, durationMs     int64
	engaged                   bool
	lastEventID, lastPath     string
	lastDay, lastDurationMs   int64
	lastScroll                int
	updatedAt                 int64
	isNew, dirty              bool
}

// RecordTraffic stores a batch of events in one transaction: pageviews and
// crawler hits as rows, engagement updates onto the session's latest
// pageview, the sessions, and the rollups that stats read. Outcomes are in
// the order of events. The whole batch commits or none of it does.
func (s *Store) RecordTraffic(ctx context.Context, events []TrafficEvent) ([]TrafficOutcome, error) {
	var out []TrafficOutcome
	err := s.Tx(ctx, func(q Querier) error {
		var err error
		out, err = s.recordTraffic(ctx, q, events)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("record %d traffic events: %w", len(events), err)
	}
	return out, nil
}

func (s *Store) recordTraffic(ctx context.Context, q Querier, events []TrafficEvent) ([]TrafficOutcome, error) {
	sessions, err := s.loadSessions(ctx, q, events)
	if err != nil {
		return nil, err
	}
	out := make([]TrafficOutcome, len(events))
	var inserts []*TrafficEvent
	insertIDs := map[string]int{} // event id → index in inserts
	var ids []string
	type pvUpdate struct {
		site     string
		day      int64
		duration int64
		scroll   int
	}
	updates := map[string]pvUpdate{}
	roll := NewTrafficRollups()
	for i := range events {
		ev := events[i]
		switch ev.Kind {
		case TrafficCrawler:
			inserts = append(inserts, &ev)
			ids = append(ids, NewID())
			roll.AddCrawler(ev.SiteID, Day(ev.At), ev.Bot, 1)
			out[i] = TrafficOutcome{Stored: true}
		case TrafficPageview:
			k := sessionKey{ev.SiteID, ev.SessionID}
			sess := sessions[k]
			visit := sess == nil
			if visit {
				sess = &trafficSession{siteID: ev.SiteID, sessionID: ev.SessionID, source: ev.Source,
					day: Day(ev.At), startedAt: ev.At, isNew: true}
				sessions[k] = sess
			}
			id := NewID()
			sess.pageviews++
			sess.lastEventID, sess.lastPath, sess.lastDay = id, ev.Path, Day(ev.At)
			sess.lastDurationMs, sess.lastScroll, sess.updatedAt, sess.dirty = 0, -1, ev.At, true
			d := TrafficDailyDelta{Pageviews: 1}
			if visit {
				d.Visits = 1
			}
			if !sess.engaged && sess.pageviews >= 2 {
				sess.engaged = true
				d.EngagedVisits = 1
			}
			roll.AddDaily(ev.SiteID, sess.day, sess.source, d)
			if sess.source != "" {
				p := TrafficPageDelta{AIPageviews: 1}
				if visit {
					p.AIVisits = 1
				}
				roll.AddPage(ev.SiteID, Day(ev.At), ev.Path, p)
			}
			ev.Source = sess.source
			ev.DurationMs, ev.ScrollDepth = 0, -1
			insertIDs[id] = len(inserts)
			inserts = append(inserts, &ev)
			ids = append(ids, id)
			out[i] = TrafficOutcome{Stored: true, Source: sess.source}
		case TrafficEngagement:
			sess := sessions[sessionKey{ev.SiteID, ev.SessionID}]
			if sess == nil || sess.lastEventID == "" || (ev.Path != "" && ev.Path != sess.lastPath) {
				continue // nothing to attach to: not stored
			}
			d := TrafficDailyDelta{}
			p := TrafficPageDelta{}
			if ev.DurationMs > sess.lastDurationMs {
				delta := ev.DurationMs - sess.lastDurationMs
				sess.lastDurationMs = ev.DurationMs
				sess.durationMs += delta
				d.DurationMs, p.AIDurationMs = delta, delta
				if !sess.engaged && sess.durationMs >= EngagedAfterMs {
					sess.engaged = true
					d.EngagedVisits = 1
				}
			}
			if ev.ScrollDepth >= 0 && ev.ScrollDepth > sess.lastScroll {
				if sess.lastScroll < 0 {
					d.ScrollCount = 1
					d.ScrollSum = int64(ev.ScrollDepth)
				} else {
					d.ScrollSum = int64(ev.ScrollDepth - sess.lastScroll)
				}
				sess.lastScroll = ev.ScrollDepth
			}
			sess.updatedAt, sess.dirty = ev.At, true
			roll.AddDaily(ev.SiteID, sess.day, sess.source, d)
			if sess.source != "" && p.AIDurationMs > 0 {
				roll.AddPage(ev.SiteID, sess.lastDay, sess.lastPath, p)
			}
			if j, ok := insertIDs[sess.lastEventID]; ok {
				inserts[j].DurationMs, inserts[j].ScrollDepth = sess.lastDurationMs, sess.lastScroll
			} else {
				updates[sess.lastEventID] = pvUpdate{sess.siteID, sess.lastDay, sess.lastDurationMs, sess.lastScroll}
			}
			out[i] = TrafficOutcome{Stored: true, Source: sess.source}
		default:
			return nil, fmt.Errorf("unknown traffic event kind %q", ev.Kind)
		}
	}

	if err := s.writeSessions(ctx, q, sessions); err != nil {
		return nil, err
	}
	if err := insertEvents(ctx, q, s.Dialect, ids, inserts); err != nil {
		return nil, err
	}
	updateIDs := make([]string, 0, len(updates))
	for id := range updates {
		updateIDs = append(updateIDs, id)
	}
	sort.Strings(updateIDs)
	for _, id := range updateIDs {
		u := updates[id]
		if _, err := q.Exec(ctx, `UPDATE traffic_events SET duration_ms = $1, scroll_depth = $2
			WHERE site_id = $3 AND day = $4 AND id = $5`, u.duration, u.scroll, u.site, u.day, id); err != nil {
			return nil, fmt.Errorf("update pageview engagement: %w", err)
		}
	}
	if err := roll.write(ctx, q, s.Dialect); err != nil {
		return nil, err
	}
	return out, nil
}

// loadSessions reads (and on PostgreSQL/CockroachDB locks) the sessions the
// batch refers to.
func (s *Store) loadSessions(ctx context.Context, q Querier, events []TrafficEvent) (map[sessionKey]*trafficSession, error) {
	bySite := map[string]map[string]bool{}
	for _, ev := range events {
		if ev.Kind == TrafficCrawler {
			continue
		}
		if bySite[ev.SiteID] == nil {
			bySite[ev.SiteID] = map[string]bool{}
		}
		bySite[ev.SiteID][ev.SessionID] = true
	}
	lock := s.ForUpdate()
	sessions := map[sessionKey]*trafficSession{}
	for site, set := range bySite {
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for len(keys) > 0 {
			chunk := keys[:min(len(keys), maxSessionChunk)]
			keys = keys[len(chunk):]
			// Pad the IN list to a power of two with the last key, so that
			// a handful of statement texts serve every batch size and stay
			// prepared.
			n := 1
			for n < len(chunk) {
				n *= 2
			}
			args := make([]any, 0, n+1)
			args = append(args, site)
			for i := 0; i < n; i++ {
				args = append(args, chunk[min(i, len(chunk)-1)])
			}
			var ph strings.Builder
			writePlaceholders(&ph, s.Dialect, 2, n)
			rows, err := q.Query(ctx, `SELECT site_id, session_id, source, day, started_at, pageviews, duration_ms, engaged,
				last_event_id, last_path, last_day, last_duration_ms, last_scroll, updated_at
				FROM traffic_sessions WHERE site_id = `+placeholder(s.Dialect, 1)+` AND session_id IN (`+ph.String()+`)`+lock, args...)
			if err != nil {
				return nil, fmt.Errorf("load traffic sessions: %w", err)
			}
			for rows.Next() {
				var x trafficSession
				if err := rows.Scan(&x.siteID, &x.sessionID, &x.source, &x.day, &x.startedAt, &x.pageviews, &x.durationMs, &x.engaged,
					&x.lastEventID, &x.lastPath, &x.lastDay, &x.lastDurationMs, &x.lastScroll, &x.updatedAt); err != nil {
					rows.Close()
					return nil, fmt.Errorf("load traffic sessions: %w", err)
				}
				sessions[sessionKey{x.siteID, x.sessionID}] = &x
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return nil, fmt.Errorf("load traffic sessions: %w", err)
			}
		}
	}
	return sessions, nil
}

const sessionColumns = `site_id, session_id, source, day, started_at, pageviews, duration_ms, engaged,
	last_event_id, last_path, last_day, last_duration_ms, last_scroll, updated_at`

// writeSessions inserts new sessions with a plain INSERT, so that two hosts
// creating the same session at once conflict (and the batch is retried)
// instead of one overwriting the other, and rewrites changed sessions, which
// loadSessions locked, with one upsert.
func (s *Store) writeSessions(ctx context.Context, q Querier, sessions map[sessionKey]*trafficSession) error {
	var fresh, changed []*trafficSession
	for _, x := range sessions {
		switch {
		case x.isNew:
			fresh = append(fresh, x)
		case x.dirty:
			changed = append(changed, x)
		}
	}
	byKey := func(l []*trafficSession) {
		sort.Slice(l, func(i, j int) bool {
			if l[i].siteID != l[j].siteID {
				return l[i].siteID < l[j].siteID
			}
			return l[i].sessionID < l[j].sessionID
		})
	}
	byKey(fresh)
	byKey(changed)
	row := func(args []any, x *trafficSession) []any {
		return append(args, x.siteID, x.sessionID, x.source, x.day, x.startedAt, x.pageviews, x.durationMs, x.engaged,
			x.lastEventID, x.lastPath, x.lastDay, x.lastDurationMs, x.lastScroll, x.updatedAt)
	}
	const update = ` ON CONFLICT (site_id, session_id) DO UPDATE SET pageviews = excluded.pageviews,
		duration_ms = excluded.duration_ms, engaged = excluded.engaged, last_event_id = excluded.last_event_id,
		last_path = excluded.last_path, last_day = excluded.last_day, last_duration_ms = excluded.last_duration_ms,
		last_scroll = excluded.last_scroll, updated_at = excluded.updated_at`
	for _, part := range []struct {
		rows   []*trafficSession
		suffix string
	}{{fresh, ""}, {changed, update}} {
		err := insertRows(ctx, q, s.Dialect, `INSERT INTO traffic_sessions (`+sessionColumns+`) VALUES `, 14, len(part.rows),
			func(args []any, i int) []any { return row(args, part.rows[i]) }, part.suffix)
		if err != nil {
			return fmt.Errorf("write traffic sessions: %w", err)
		}
	}
	return nil
}

func insertEvents(ctx context.Context, q Querier, d Dialect, ids []string, events []*TrafficEvent) error {
	err := insertRows(ctx, q, d, `INSERT INTO traffic_events (id, site_id, kind, session_id, day, path, title, referrer, source, bot,
		utm_source, utm_medium, utm_campaign, user_agent, duration_ms, scroll_depth, created_at) VALUES `, 17, len(events),
		func(args []any, i int) []any {
			ev := events[i]
			return append(args, ids[i], ev.SiteID, string(ev.Kind), ev.SessionID, Day(ev.At), ev.Path, ev.Title, ev.Referrer, ev.Source, ev.Bot,
				ev.UTMSource, ev.UTMMedium, ev.UTMCampaign, ev.UserAgent, ev.DurationMs, ev.ScrollDepth, ev.At)
		}, "")
	if err != nil {
		return fmt.Errorf("insert traffic events: %w", err)
	}
	return nil
}

// maxSessionChunk caps the session ids of one SELECT.
const maxSessionChunk = 512

// insertRows runs prefix with multi-row VALUES and suffix for n rows. Each
// statement carries a power-of-two number of rows that keeps it under the
// placeholder limits of both dialects, so a few statement texts per table
// serve every batch size and stay prepared (a new text per batch size
// would be parsed again on every batch). row appends the values of row i.
func insertRows(ctx context.Context, q Querier, d Dialect, prefix string, cols, n int, row func(args []any, i int) []any, suffix string) error {
	maxRows := chunkRows(900/cols, 900/cols)
	args := make([]any, 0, min(n, maxRows)*cols)
	for start := 0; start < n; {
		rows := chunkRows(n-start, maxRows)
		args = args[:0]
		for i := start; i < start+rows; i++ {
			args = row(args, i)
		}
		if _, err := q.Exec(ctx, multiRowSQL(d, prefix, suffix, cols, rows), args...); err != nil {
			return err
		}
		start += rows
	}
	return nil
}

type multiRowKey struct {
	d              Dialect
	prefix, suffix string
	cols, rows     int
}

// multiRowTexts caches the statement texts of insertRows: a handful per
// table, rebuilt on every batch otherwise.
var multiRowTexts sync.Map // multiRowKey → string

// multiRowSQL returns prefix, rows groups of cols placeholders, and suffix.
func multiRowSQL(d Dialect, prefix, suffix string, cols, rows int) string {
	k := multiRowKey{d, prefix, suffix, cols, rows}
	if v, ok := multiRowTexts.Load(k); ok {
		return v.(string)
	}
	var b strings.Builder
	b.WriteString(prefix)
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		writePlaceholders(&b, d, i*cols+1, cols)
		b.WriteByte(')')
	}
	b.WriteString(suffix)
	v, _ := multiRowTexts.LoadOrStore(k, b.String())
	return v.(string)
}

// chunkRows returns the largest power of two that is at most n and maxRows
// (n, maxRows >= 1).
func chunkRows(n, maxRows int) int {
	c := 1
	for c*2 <= n && c*2 <= maxRows {
		c *= 2
	}
	return c
}

// placeholder returns bind parameter i (from 1) of a statement whose
// parameters are all written in order with placeholder or
// writePlaceholders.
//
// On SQLite it is an anonymous "?": binding a numbered "$N" makes the
// modernc driver look up the parameter's name in a list that is linear in
// the number of parameters, so binding a multi-row INSERT of 900
// parameters was quadratic and took a third of the traffic writer's time.
// PostgreSQL needs "$N".
func placeholder(d Dialect, i int) string {
	if d == SQLite {
		return "?"
	}
	return "$" + strconv.Itoa(i)
}

// writePlaceholders writes n comma-separated bind parameters numbered from
// first.
func writePlaceholders(b *strings.Builder, d Dialect, first, n int) {
	for c := 0; c < n; c++ {
		if c > 0 {
			b.WriteByte(',')
		}
		if d == SQLite {
			b.WriteByte('?')
			continue
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(first + c))
	}
}

// TrafficDailyDelta is an increment of a traffic_daily row.
type TrafficDailyDelta struct {
	Visits, Pageviews, EngagedVisits, DurationMs, ScrollSum, ScrollCount int64
}

func (d *TrafficDailyDelta) add(o TrafficDailyDelta) {
	d.Visits += o.Visits
	d.Pageviews += o.Pageviews
	d.EngagedVisits += o.EngagedVisits
	d.DurationMs += o.DurationMs
	d.ScrollSum += o.ScrollSum
	d.ScrollCount += o.ScrollCount
}

// TrafficPageDelta is an increment of a traffic_pages row (AI visits only).
type TrafficPageDelta struct {
	AIVisits, AIPageviews, AIDurationMs int64
}

func (p *TrafficPageDelta) add(o TrafficPageDelta) {
	p.AIVisits += o.AIVisits
	p.AIPageviews += o.AIPageviews
	p.AIDurationMs += o.AIDurationMs
}

type dailyKey struct {
	site   string
	day    int64
	source string
}

type pageKey struct {
	site   string
	span   int64
	period int64
	path   string
}

type crawlerKey struct {
	site string
	day  int64
	bot  string
}

// TrafficRollups accumulates rollup increments in memory so that a batch of
// events costs one upsert per touched rollup row, not one per event.
type TrafficRollups struct {
	daily    map[dailyKey]*TrafficDailyDelta
	pages    map[pageKey]*TrafficPageDelta
	crawlers map[crawlerKey]int64
}

// NewTrafficRollups returns empty rollups.
func NewTrafficRollups() *TrafficRollups {
	return &TrafficRollups{daily: map[dailyKey]*TrafficDailyDelta{}, pages: map[pageKey]*TrafficPageDelta{}, crawlers: map[crawlerKey]int64{}}
}

// AddDaily adds d to the visits of site on day from source.
func (r *TrafficRollups) AddDaily(site string, day int64, source string, d TrafficDailyDelta) {
	if d == (TrafficDailyDelta{}) {
		return
	}
	k := dailyKey{site, day, source}
	if r.daily[k] == nil {
		r.daily[k] = &TrafficDailyDelta{}
	}
	r.daily[k].add(d)
}

// AddPage adds p to path on day, in the block of every page span that
// holds the day.
func (r *TrafficRollups) AddPage(site string, day int64, path string, p TrafficPageDelta) {
	for _, span := range pageSpans {
		k := pageKey{site, span, floorDiv(day, span), path}
		if r.pages[k] == nil {
			r.pages[k] = &TrafficPageDelta{}
		}
		r.pages[k].add(p)
	}
}

// AddCrawler adds hits of bot on day.
func (r *TrafficRollups) AddCrawler(site string, day int64, bot string, hits int64) {
	r.crawlers[crawlerKey{site, day, bot}] += hits
}

// AddTrafficRollups writes rollups without raw events. Bulk imports and the
// stats benchmark use it; RecordTraffic writes rollups with their events.
func (s *Store) AddTrafficRollups(ctx context.Context, r *TrafficRollups) error {
	return s.Tx(ctx, func(q Querier) error { return r.write(ctx, q, s.Dialect) })
}

// write upserts the increments in key order, so concurrent writers take row
// locks in the same order.
func (r *TrafficRollups) write(ctx context.Context, q Querier, d Dialect) error {
	dk := make([]dailyKey, 0, len(r.daily))
	for k := range r.daily {
		dk = append(dk, k)
	}
	sort.Slice(dk, func(i, j int) bool {
		a, b := dk[i], dk[j]
		if a.site != b.site {
			return a.site < b.site
		}
		if a.day != b.day {
			return a.day < b.day
		}
		return a.source < b.source
	})
	err := insertRows(ctx, q, d, `INSERT INTO traffic_daily (site_id, day, source, visits, pageviews, engaged_visits, duration_ms, scroll_sum, scroll_count) VALUES `,
		9, len(dk), func(args []any, i int) []any {
			k, v := dk[i], r.daily[dk[i]]
			return append(args, k.site, k.day, k.source, v.Visits, v.Pageviews, v.EngagedVisits, v.DurationMs, v.ScrollSum, v.ScrollCount)
		}, ` ON CONFLICT (site_id, day, source) DO UPDATE SET visits = traffic_daily.visits + excluded.visits,
			pageviews = traffic_daily.pageviews + excluded.pageviews, engaged_visits = traffic_daily.engaged_visits + excluded.engaged_visits,
			duration_ms = traffic_daily.duration_ms + excluded.duration_ms, scroll_sum = traffic_daily.scroll_sum + excluded.scroll_sum,
			scroll_count = traffic_daily.scroll_count + excluded.scroll_count`)
	if err != nil {
		return fmt.Errorf("upsert traffic_daily: %w", err)
	}

	pk := make([]pageKey, 0, len(r.pages))
	for k := range r.pages {
		pk = append(pk, k)
	}
	sort.Slice(pk, func(i, j int) bool {
		a, b := pk[i], pk[j]
		if a.site != b.site {
			return a.site < b.site
		}
		if a.span != b.span {
			return a.span < b.span
		}
		if a.period != b.period {
			return a.period < b.period
		}
		return a.path < b.path
	})
	err = insertRows(ctx, q, d, `INSERT INTO traffic_pages (site_id, span, period, path, ai_visits, ai_pageviews, ai_duration_ms) VALUES `,
		7, len(pk), func(args []any, i int) []any {
			k, v := pk[i], r.pages[pk[i]]
			return append(args, k.site, k.span, k.period, k.path, v.AIVisits, v.AIPageviews, v.AIDurationMs)
		}, ` ON CONFLICT (site_id, span, period, path) DO UPDATE SET ai_visits = traffic_pages.ai_visits + excluded.ai_visits,
			ai_pageviews = traffic_pages.ai_pageviews + excluded.ai_pageviews, ai_duration_ms = traffic_pages.ai_duration_ms + excluded.ai_duration_ms`)
	if err != nil {
		return fmt.Errorf("upsert traffic_pages: %w", err)
	}

	ck := make([]crawlerKey, 0, len(r.crawlers))
	for k := range r.crawlers {
		ck = append(ck, k)
	}
	sort.Slice(ck, func(i, j int) bool {
		a, b := ck[i], ck[j]
		if a.site != b.site {
			return a.site < b.site
		}
		if a.day != b.day {
			return a.day < b.day
		}
		return a.bot < b.bot
	})
	err = insertRows(ctx, q, d, `INSERT INTO traffic_crawlers (site_id, day, bot, hits) VALUES `, 4, len(ck),
		func(args []any, i int) []any { k := ck[i]; return append(args, k.site, k.day, k.bot, r.crawlers[k]) },
		` ON CONFLICT (site_id, day, bot) DO UPDATE SET hits = traffic_crawlers.hits + excluded.hits`)
	if err != nil {
		return fmt.Errorf("upsert traffic_crawlers: %w", err)
	}
	return nil
}

// TrafficDailyRow is one traffic_daily row.
type TrafficDailyRow struct {
	Day    int64
	Source string
	TrafficDailyDelta
}

// TrafficDaily returns the visit rollups of a site for days from..to
// (inclusive epoch days).
func (s *Store) TrafficDaily(ctx context.Context, siteID string, from, to int64) ([]TrafficDailyRow, error) {
	rows, err := s.Query(ctx, `SELECT day, source, visits, pageviews, engaged_visits, duration_ms, scroll_sum, scroll_count
		FROM traffic_daily WHERE site_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, source`, siteID, from, to)
	if err != nil {
		return nil, fmt.Errorf("read traffic_daily: %w", err)
	}
	defer rows.Close()
	var out []TrafficDailyRow
	for rows.Next() {
		var r TrafficDailyRow
		if err := rows.Scan(&r.Day, &r.Source, &r.Visits, &r.Pageviews, &r.EngagedVisits, &r.DurationMs, &r.ScrollSum, &r.ScrollCount); err != nil {
			return nil, fmt.Errorf("read traffic_daily: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TrafficCrawlerRow is one traffic_crawlers row.
type TrafficCrawlerRow struct {
	Day  int64
	Bot  string
	Hits int64
}

// TrafficCrawlers returns AI crawler hits of a site for days from..to.
func (s *Store) TrafficCrawlers(ctx context.Context, siteID string, from, to int64) ([]TrafficCrawlerRow, error) {
	rows, err := s.Query(ctx, `SELECT day, bot, hits FROM traffic_crawlers WHERE site_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, bot`,
		siteID, from, to)
	if err != nil {
		return nil, fmt.Errorf("read traffic_crawlers: %w", err)
	}
	defer rows.Close()
	var out []TrafficCrawlerRow
	for rows.Next() {
		var r TrafficCrawlerRow
		if err := rows.Scan(&r.Day, &r.Bot, &r.Hits); err != nil {
			return nil, fmt.Errorf("read traffic_crawlers: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TrafficEventCount counts the stored events of a site by kind; tests and
// the durability check use it.
func (s *Store) TrafficEventCount(ctx context.Context, siteID string, kind TrafficKind) (int64, error) {
	var n int64
	err := s.QueryRow(ctx, `SELECT COUNT(*) FROM traffic_events WHERE site_id = $1 AND kind = $2`, siteID, string(kind)).Scan(&n)
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
	rows, err := s.Query(ctx, `SELECT id, site_id, kind, session_id, path, title, referrer, source, bot, utm_source, utm_medium,
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

// RecordWorkspaceWebsite sets the workspace website when it has none, so
// that the first tracked site's domain becomes the team website.
func (s *Store) RecordWorkspaceWebsite(ctx context.Context, workspaceID, website string) error {
	_, err := s.Exec(ctx, `UPDATE workspaces SET website = $1 WHERE id = $2 AND website = ''`, website, workspaceID)
	if err != nil {
		return fmt.Errorf("record workspace website: %w", err)
	}
	return nil
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
	rows, err := s.Query(ctx, `SELECT id FROM traffic_sites ORDER BY id`)
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
			{&sessions, `DELETE FROM traffic_sessions WHERE site_id = $1 AND session_id IN
				(SELECT session_id FROM traffic_sessions WHERE site_id = $1 AND last_day < $2 LIMIT $3)`},
		} {
			for {
				n, err := s.Exec(ctx, st.sql, site, beforeDay, pruneChunk)
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
