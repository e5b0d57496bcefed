package traffic

import (
	"context"
	"fmt"
	"sort"

	"github.com/heraldhq/herald/host/internal/store"
)

// EngagedAfterMs is the visible time after which a visit counts as engaged
// (as does a second pageview), as in GA4.
const EngagedAfterMs = 10_000

// Outcome is what recording did with one event.
type Outcome struct {
	// Stored is false for an engagement update with no pageview to attach to.
	Stored bool
	// Source is the AI source of the event's visit.
	Source string
}

// Record stores a batch of events in one transaction: the store loads the
// sessions they refer to, Sessionize applies the visit rules, and the store
// writes the result. Outcomes are in the order of events. The whole batch
// commits or none of it does.
func Record(ctx context.Context, st *store.Store, events []store.TrafficEvent) ([]Outcome, error) {
	return recordMarked(ctx, st, events, nil)
}

// recordMarked is Record that also writes the beacon inbox mark, when
// given, in the same transaction.
func recordMarked(ctx context.Context, st *store.Store, events []store.TrafficEvent, mark *store.TrafficInboxMark) ([]Outcome, error) {
	var out []Outcome
	err := st.RecordTraffic(ctx, events, func(sessions map[store.TrafficSessionKey]*store.TrafficSession) (store.TrafficBatch, error) {
		// A retried transaction calls this again with freshly loaded
		// sessions; only the last run's outcomes count.
		b, o, err := Sessionize(events, sessions)
		out = o
		b.Mark = mark
		return b, err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Sessionize applies the session, visit and engagement rules to a batch of
// events, given the stored sessions they refer to (keyed by site and
// session; sessions is updated in place and new sessions are added). It
// does no I/O: the returned batch is every row to insert or update and the
// rollup increments, and the outcomes are in the order of events.
//
// The rules: the first pageview of a session starts a visit, and that
// pageview's source is the visit's source for every later event. A visit
// is engaged at its second pageview or once its visible time reaches
// EngagedAfterMs. An engagement event updates the session's latest
// pageview (only when it names the same path, or none), adding the growth
// of visible time and scroll depth; with no pageview to attach to it is
// not stored. A crawler hit is stored and counted, outside sessions.
func Sessionize(events []store.TrafficEvent, sessions map[store.TrafficSessionKey]*store.TrafficSession) (store.TrafficBatch, []Outcome, error) {
	return sessionize(events, sessions, true)
}

// outcomes applies the same rules as Sessionize to sessions and returns
// only the outcomes: what the beacon inbox answers before the batch is
// stored. It builds no rows, rollups or event ids (a session's latest
// pageview gets a placeholder id).
func outcomes(events []store.TrafficEvent, sessions map[store.TrafficSessionKey]*store.TrafficSession) ([]Outcome, error) {
	_, out, err := sessionize(events, sessions, false)
	return out, err
}

// acceptedID stands for the id of a pageview outcomes saw; only whether a
// session has one matters there.
const acceptedID = "accepted"

func sessionize(events []store.TrafficEvent, sessions map[store.TrafficSessionKey]*store.TrafficSession, build bool) (store.TrafficBatch, []Outcome, error) {
	b := store.TrafficBatch{Sessions: sessions}
	out := make([]Outcome, len(events))
	// insertAt maps the id of each event in b.Inserts to its index; it is
	// built at the batch's first engagement event, which is the only one
	// that needs it (most batches are pageviews only), and kept up to date
	// from then on.
	var insertAt map[string]int
	var updates map[string]store.TrafficEventUpdate
	var roll *store.TrafficRollups
	if build {
		b.Rollups = store.NewTrafficRollups()
		roll = b.Rollups
		b.Inserts = make([]store.StoredTrafficEvent, 0, len(events))
	}
	// New sessions are carved from slabs, one allocation for up to 64 of
	// them instead of one each.
	var slab []store.TrafficSession
	newSession := func(remaining int) *store.TrafficSession {
		if len(slab) == 0 {
			slab = make([]store.TrafficSession, min(remaining, 64))
		}
		x := &slab[0]
		slab = slab[1:]
		return x
	}
	for i, ev := range events {
		switch ev.Kind {
		case store.TrafficCrawler:
			if build {
				b.Inserts = append(b.Inserts, store.StoredTrafficEvent{ID: store.NewID(), TrafficEvent: ev})
				roll.AddCrawler(ev.SiteID, store.Day(ev.At), ev.Bot, 1)
			}
			out[i] = Outcome{Stored: true}
		case store.TrafficPageview:
			k := store.TrafficSessionKey{SiteID: ev.SiteID, SessionID: ev.SessionID}
			sess := sessions[k]
			visit := sess == nil
			if visit {
				sess = newSession(len(events) - i)
				*sess = store.TrafficSession{SiteID: ev.SiteID, SessionID: ev.SessionID, Source: ev.Source,
					Day: store.Day(ev.At), StartedAt: ev.At, New: true}
				sessions[k] = sess
			}
			id := acceptedID
			if build {
				id = store.NewID()
			}
			sess.Pageviews++
			sess.LastEventID, sess.LastPath, sess.LastDay = id, ev.Path, store.Day(ev.At)
			sess.LastDurationMs, sess.LastScroll, sess.UpdatedAt, sess.Dirty = 0, -1, ev.At, true
			d := store.TrafficDailyDelta{Pageviews: 1}
			if visit {
				d.Visits = 1
			}
			if !sess.Engaged && sess.Pageviews >= 2 {
				sess.Engaged = true
				d.EngagedVisits = 1
			}
			out[i] = Outcome{Stored: true, Source: sess.Source}
			if !build {
				continue
			}
			roll.AddDaily(ev.SiteID, sess.Day, sess.Source, d)
			if sess.Source != "" {
				p := store.TrafficPageDelta{AIPageviews: 1}
				if visit {
					p.AIVisits = 1
					roll.AddLanding(ev.SiteID, store.Day(ev.At), ev.Path, sess.Source)
				}
				roll.AddPage(ev.SiteID, store.Day(ev.At), ev.Path, p)
			}
			ev.Source = sess.Source
			ev.DurationMs, ev.ScrollDepth = 0, -1
			if insertAt != nil {
				insertAt[id] = len(b.Inserts)
			}
			b.Inserts = append(b.Inserts, store.StoredTrafficEvent{ID: id, TrafficEvent: ev})
		case store.TrafficEngagement:
			sess := sessions[store.TrafficSessionKey{SiteID: ev.SiteID, SessionID: ev.SessionID}]
			if sess == nil || sess.LastEventID == "" || (ev.Path != "" && ev.Path != sess.LastPath) {
				continue // nothing to attach to: not stored
			}
			d := store.TrafficDailyDelta{}
			p := store.TrafficPageDelta{}
			if ev.DurationMs > sess.LastDurationMs {
				delta := ev.DurationMs - sess.LastDurationMs
				sess.LastDurationMs = ev.DurationMs
				sess.DurationMs += delta
				d.DurationMs, p.AIDurationMs = delta, delta
				if !sess.Engaged && sess.DurationMs >= EngagedAfterMs {
					sess.Engaged = true
					d.EngagedVisits = 1
				}
			}
			if ev.ScrollDepth >= 0 && ev.ScrollDepth > sess.LastScroll {
				if sess.LastScroll < 0 {
					d.ScrollCount = 1
					d.ScrollSum = int64(ev.ScrollDepth)
				} else {
					d.ScrollSum = int64(ev.ScrollDepth - sess.LastScroll)
				}
				sess.LastScroll = ev.ScrollDepth
			}
			sess.UpdatedAt, sess.Dirty = ev.At, true
			out[i] = Outcome{Stored: true, Source: sess.Source}
			if !build {
				continue
			}
			roll.AddDaily(ev.SiteID, sess.Day, sess.Source, d)
			if sess.Source != "" && p.AIDurationMs > 0 {
				roll.AddPage(ev.SiteID, sess.LastDay, sess.LastPath, p)
			}
			if insertAt == nil {
				insertAt = make(map[string]int, len(b.Inserts))
				for j := range b.Inserts {
					insertAt[b.Inserts[j].ID] = j
				}
				updates = map[string]store.TrafficEventUpdate{}
			}
			if j, ok := insertAt[sess.LastEventID]; ok {
				b.Inserts[j].DurationMs, b.Inserts[j].ScrollDepth = sess.LastDurationMs, sess.LastScroll
			} else {
				updates[sess.LastEventID] = store.TrafficEventUpdate{ID: sess.LastEventID, SiteID: sess.SiteID, Day: sess.LastDay,
					DurationMs: sess.LastDurationMs, ScrollDepth: sess.LastScroll}
			}
		default:
			return store.TrafficBatch{}, nil, fmt.Errorf("unknown traffic event kind %q", ev.Kind)
		}
	}
	if len(updates) == 0 { // outcomes only, or no engagement to attach
		return b, out, nil
	}
	b.Updates = make([]store.TrafficEventUpdate, 0, len(updates))
	for _, u := range updates {
		b.Updates = append(b.Updates, u)
	}
	sort.Slice(b.Updates, func(i, j int) bool { return b.Updates[i].ID < b.Updates[j].ID })
	return b, out, nil
}
