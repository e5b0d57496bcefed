package schedule

import "github.com/heraldhq/herald/host/internal/store"

// Status is where a schedule is in its life. A client creates pending or
// draft; the publisher moves pending through publishing to published or
// failed; DELETE moves pending to cancelled. The store keeps the same
// words as text: statusOf and Status.stored convert at that boundary, and
// no other package compares status words.
type Status string

// Statuses of a schedule.
const (
	StatusDraft      Status = "draft"
	StatusPending    Status = "pending"
	StatusPublishing Status = "publishing"
	StatusPublished  Status = "published"
	StatusFailed     Status = "failed"
	StatusCancelled  Status = "cancelled"
)

// statusOf is the status of a stored row's text.
func statusOf(v string) Status { return Status(v) }

// stored is the status as the store writes it.
func (st Status) stored() string { return string(st) }

// String is the status word clients see.
func (st Status) String() string { return string(st) }

// Finished reports whether no attempt will change the schedule any more.
func (st Status) Finished() bool {
	return st == StatusPublished || st == StatusFailed || st == StatusCancelled
}

// ParseStatus reads the status a create request asks for: pending (the
// default for "") or draft.
func ParseStatus(v string) (Status, bool) {
	switch Status(v) {
	case "", StatusPending:
		return StatusPending, true
	case StatusDraft:
		return StatusDraft, true
	}
	return "", false
}

// The store's words are the same as the schedule's: a compile-time check
// that the two lists agree would need the store to import this package, so
// statusWords is checked by a test instead.
var statusWords = map[Status]string{
	StatusDraft: store.ScheduleDraft, StatusPending: store.SchedulePending, StatusPublishing: store.SchedulePublishing,
	StatusPublished: store.SchedulePublished, StatusFailed: store.ScheduleFailed, StatusCancelled: store.ScheduleCancelled,
}
