package tracker

import (
	"time"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// Cadences of a tracker.
const (
	CadenceDaily  = "daily"
	CadenceWeekly = "weekly"
)

// MaxTags caps a prompt's tags.
const (
	MaxTags     = 10
	MaxTagChars = 50
)

// TrackerPrompt is a buyer prompt with its tags.
type TrackerPrompt struct {
	Text string   `json:"text"`
	Tags []string `json:"tags,omitempty"`
}

// TrackerSetup is what a tracker's runs run on: a report's input with
// tagged prompts. Competitors are kept in the form given (strings or
// objects), as reports keep them.
type TrackerSetup struct {
	WebsiteURL  string                     `json:"websiteurl"`
	Competitors []analysis.CompetitorInput `json:"competitors"`
	Prompts     []TrackerPrompt            `json:"prompts"`
	SelfAliases []string                   `json:"selfAliases,omitempty"`
}

// TrackerSkip is a slot that did not run, and why.
type TrackerSkip struct {
	At     time.Time
	Reason string
}

// Tracker is a stored report setup run at its slot.
type Tracker struct {
	ID      string
	Setup   TrackerSetup
	Engines []string
	Cadence string
	Active  bool
	// SlotMinute is the minute of the UTC day of the slot, SlotWeekday its
	// weekday (weekly).
	SlotMinute  int
	SlotWeekday time.Weekday
	// NextRunAt is nil while paused.
	NextRunAt    *time.Time
	LastRunAt    *time.Time
	LastReportID string
	LastLate     *time.Duration
	LastSkip     *TrackerSkip
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// Samples is the tracker's own answers per prompt and engine; nil:
	// the plan's tracker_samples.
	Samples *int
}

// NewTracker asks for a tracker.
type NewTracker struct {
	Setup   TrackerSetup
	Engines []string
	Cadence string
	// Active defaults to true.
	Active *bool
	// Samples lowers the plan's tracker_samples for this tracker; nil:
	// the plan's.
	Samples *int
}

// TrackerUpdate changes the fields that are not nil.
type TrackerUpdate struct {
	ID          string
	WebsiteURL  *string
	Competitors *[]analysis.CompetitorInput
	Prompts     *[]TrackerPrompt
	Engines     *[]string
	Cadence     *string
	Active      *bool
	SelfAliases *[]string
	// Samples: 0 goes back to the plan's.
	Samples *int
}
