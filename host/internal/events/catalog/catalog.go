// Package catalog is the list of Herald's events: each type's name, its
// payload and the dashboard link of the resource it is about. The areas
// that make a change build its event here and hand it to the store, which
// writes it in the change's transaction; package events delivers it. It
// imports nothing of the host, so the store may use it too.
package catalog

import (
	"encoding/json"
	"net/url"
	"strconv"
)

// The event types a subscription may name.
const (
	ReportCompleted     = "report.completed"
	ReportFailed        = "report.failed"
	TrackerRunCompleted = "tracker.run.completed"
	TrackerChanged      = "tracker.changed"
	SchedulePublished   = "schedule.published"
	ScheduleFailed      = "schedule.failed"
	ConnectionFailed    = "destination.connection.failed"
	ConnectionExpiring  = "destination.connection.expiring"
	CreditsLow          = "credits.low"
	CreditsExhausted    = "credits.exhausted"
	CrawlerFirstSeen    = "crawler.first_seen"
	// Test is the type of the event a subscription's test sends; it is
	// never written to the outbox and cannot be subscribed to.
	Test = "event.test"
)

// Types are the event types a subscription may name, in the order the
// docs list them.
var Types = []string{
	ReportCompleted, ReportFailed, TrackerRunCompleted, TrackerChanged, SchedulePublished, ScheduleFailed,
	ConnectionFailed, ConnectionExpiring, CreditsLow, CreditsExhausted, CrawlerFirstSeen,
}

// Known reports whether typ is a type a subscription may name.
func Known(typ string) bool {
	for _, t := range Types {
		if t == typ {
			return true
		}
	}
	return false
}

// Event is an event before it is stored: its type, its payload (a struct
// of this package), the dashboard path of its resource (relative to the
// host's public URL) and, for events that happen once per thing, a dedupe
// key.
type Event struct {
	WorkspaceID string
	Type        string
	Data        any
	Link        string
	DedupeKey   string
}

// JSON is the payload's JSON.
func (e Event) JSON() string {
	b, err := json.Marshal(e.Data)
	if err != nil {
		panic(err) // only this package's payload types, which always marshal
	}
	return string(b)
}

func link(page, id string) string {
	if id == "" {
		return "/dashboard/#/" + page
	}
	return "/dashboard/#/" + page + "/" + url.PathEscape(id)
}

// Report is the payload of report.completed and report.failed.
type Report struct {
	ReportID   string `json:"reportId"`
	WebsiteURL string `json:"websiteUrl"`
	// TrackerID is set on a tracker's runs.
	TrackerID *string `json:"trackerId"`
	// AIVisibility and EntityUnderstanding are the report's scores
	// (0-100; completed only).
	AIVisibility        *float64 `json:"aiVisibility,omitempty"`
	EntityUnderstanding *float64 `json:"entityUnderstanding,omitempty"`
	// Error says why the report failed (failed only).
	Error string `json:"error,omitempty"`
}

// ReportDone is report.completed (failed false) or report.failed.
func ReportDone(ws string, failed bool, r Report) Event {
	typ := ReportCompleted
	if failed {
		typ = ReportFailed
	}
	return Event{WorkspaceID: ws, Type: typ, Data: r, Link: link("visibility", r.ReportID)}
}

// TrackerRun is the payload of tracker.run.completed and tracker.changed.
type TrackerRun struct {
	TrackerID    string  `json:"trackerId"`
	ReportID     string  `json:"reportId"`
	AIVisibility float64 `json:"aiVisibility"`
	// Change is the AI visibility score minus the previous run's; null on
	// a tracker's first run.
	Change *float64 `json:"change"`
	// Significant is true when the 95% interval of the change (over the
	// prompts both runs asked) excludes 0: the only changes tracker.changed
	// reports.
	Significant bool `json:"significant"`
	// ChangeInterval is that interval; null when there is none (fewer than
	// 5 shared prompts, or a first run).
	ChangeInterval *Range `json:"changeInterval"`
}

// Range is an interval {low, high}.
type Range struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// TrackerRunDone is tracker.run.completed.
func TrackerRunDone(ws string, r TrackerRun) Event {
	return Event{WorkspaceID: ws, Type: TrackerRunCompleted, Data: r, Link: link("trackers", r.TrackerID)}
}

// TrackerChange is tracker.changed.
func TrackerChange(ws string, r TrackerRun) Event {
	return Event{WorkspaceID: ws, Type: TrackerChanged, Data: r, Link: link("trackers", r.TrackerID)}
}

// Schedule is the payload of schedule.published and schedule.failed.
type Schedule struct {
	ScheduleID  string `json:"scheduleId"`
	Destination string `json:"destination"`
	ExternalID  string `json:"externalId,omitempty"`
	ExternalURL string `json:"externalUrl,omitempty"`
	// Error is the destination's error (failed only).
	Error string `json:"error,omitempty"`
	// WillRetry says whether Herald tries again (failed only; false: the
	// post failed for good).
	WillRetry bool `json:"willRetry"`
}

// SchedulePublish is schedule.published.
func SchedulePublish(ws string, s Schedule) Event {
	return Event{WorkspaceID: ws, Type: SchedulePublished, Data: s, Link: link("schedules", s.ScheduleID)}
}

// ScheduleFailure is schedule.failed.
func ScheduleFailure(ws string, s Schedule) Event {
	return Event{WorkspaceID: ws, Type: ScheduleFailed, Data: s, Link: link("schedules", s.ScheduleID)}
}

// Connection is the payload of destination.connection.failed and
// destination.connection.expiring.
type Connection struct {
	Destination string `json:"destination"`
	// Message is the destination's refusal (failed only).
	Message string `json:"message,omitempty"`
	// ExpiresAt is the known expiry, epoch ms (expiring only).
	ExpiresAt int64 `json:"expiresAt,omitempty"`
}

// ConnectionExpiry is destination.connection.expiring, written once per
// connection and expiry.
func ConnectionExpiry(ws string, c Connection) Event {
	return Event{WorkspaceID: ws, Type: ConnectionExpiring, Data: c, Link: link("destinations", ""),
		DedupeKey: ConnectionExpiring + ":" + c.Destination + ":" + strconv.FormatInt(c.ExpiresAt, 10)}
}

// ConnectionFailure is destination.connection.failed.
func ConnectionFailure(ws string, c Connection) Event {
	return Event{WorkspaceID: ws, Type: ConnectionFailed, Data: c, Link: link("destinations", "")}
}

// Credits is the payload of credits.low and credits.exhausted.
type Credits struct {
	Month string `json:"month"`
	Used  int    `json:"used"`
	Limit int    `json:"limit"`
}

// LowCreditsShare is the share of the month's AI credits whose use makes
// credits.low.
const LowCreditsShare = 0.8

// CreditsCrossed returns the credit events a reservation that took usage
// from before to after crosses: credits.low at 80% of limit, exhausted at
// the limit, each once per workspace and month (dedupe key).
func CreditsCrossed(ws, month string, before, after, limit int) []Event {
	if limit <= 0 {
		return nil
	}
	var out []Event
	c := Credits{Month: month, Used: after, Limit: limit}
	low := int(float64(limit)*LowCreditsShare + 0.999999)
	if before < low && after >= low && after < limit {
		out = append(out, Event{WorkspaceID: ws, Type: CreditsLow, Data: c, Link: link("usage", ""), DedupeKey: CreditsLow + ":" + month})
	}
	if before < limit && after >= limit {
		out = append(out, Event{WorkspaceID: ws, Type: CreditsExhausted, Data: c, Link: link("usage", ""), DedupeKey: CreditsExhausted + ":" + month})
	}
	return out
}

// Crawler is the payload of crawler.first_seen.
type Crawler struct {
	SiteID   string `json:"siteId"`
	Operator string `json:"operator"`
	Crawler  string `json:"crawler"`
	Path     string `json:"path"`
}

// CrawlerSeen is crawler.first_seen for an operator's verified hit on a
// site. Its dedupe key is the site and operator, so only the first such
// hit ever stored makes an event.
func CrawlerSeen(ws string, c Crawler) Event {
	return Event{WorkspaceID: ws, Type: CrawlerFirstSeen, Data: c, Link: link("traffic", c.SiteID),
		DedupeKey: CrawlerFirstSeen + ":" + c.SiteID + ":" + c.Operator}
}

// TestEvent is the payload of event.test.
type TestEvent struct {
	Message string `json:"message"`
	Test    bool   `json:"test"`
}
