package schedule

import (
	"context"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/quota"
)

// Bounds of a calendar request: the longest range, and the most schedules
// it returns (Truncated says when a range held more).
const (
	maxCalendarDays = 100
	maxCalendarRows = 20000
)

// Calendar is the workspace's posts by day in a time zone.
type Calendar struct {
	TimeZone  string
	From, To  time.Time
	Days      []CalendarDay
	Truncated bool
}

// CalendarDay is one local date and its posts in time order.
type CalendarDay struct {
	Date  string // 2006-01-02 in the calendar's zone
	Posts []CalendarPost
}

// CalendarPost is a post as the calendar shows it.
type CalendarPost struct {
	ID           string
	Title        string
	WhenToExport int64
	Status       PostStatus
	RuleID       *string
	Destinations []CalendarDestination
}

// CalendarDestination is one schedule of a calendar post.
type CalendarDestination struct {
	ScheduleID string
	ExportTo   string
	Status     Status
}

// Calendar returns the posts of the caller's workspace timed from from to
// to (dates such as 2030-01-01, read in tz, to inclusive; or ISO-8601
// times), grouped by their day in tz (an IANA zone; default UTC). 400
// names from, to or tz.
func (s *Service) Calendar(ctx context.Context, p auth.Principal, from, to, tz string) (Calendar, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return Calendar{}, err
	}
	tz = strings.TrimSpace(tz)
	if tz == "" {
		tz = "UTC"
	}
	loc, err := loadZone(tz)
	if err != nil {
		return Calendar{}, apierr.Invalid("tz %q is not an IANA time zone (such as Europe/Berlin or America/New_York)", tz)
	}
	start, err := calendarBound("from", from, loc, false)
	if err != nil {
		return Calendar{}, err
	}
	end, err := calendarBound("to", to, loc, true)
	if err != nil {
		return Calendar{}, err
	}
	if !end.After(start) {
		return Calendar{}, apierr.Invalid("to %s must be after from %s", to, from)
	}
	if end.Sub(start) > maxCalendarDays*24*time.Hour+time.Hour {
		return Calendar{}, apierr.Invalid("to: the range from %s to %s is longer than %d days", from, to, maxCalendarDays)
	}
	entries, err := s.store.Calendar(ctx, p.WorkspaceID, start.UnixMilli(), end.UnixMilli(), maxCalendarRows+1)
	if err != nil {
		return Calendar{}, err
	}
	out := Calendar{TimeZone: tz, From: start, To: end, Truncated: len(entries) > maxCalendarRows}
	if out.Truncated {
		entries = entries[:maxCalendarRows]
	}
	var day *CalendarDay
	var post *CalendarPost
	var sts []Status
	flush := func() {
		if post != nil {
			post.Status = postStatus(sts)
			day.Posts = append(day.Posts, *post)
			post, sts = nil, nil
		}
	}
	// Entries come in time order: a new day starts when one passes the
	// end of the current day in loc (found once per day, not per post).
	var dayEnd int64
	for _, e := range entries {
		if post == nil || post.ID != e.PostID {
			flush()
			if day == nil || e.WhenToExport >= dayEnd {
				t := time.UnixMilli(e.WhenToExport).In(loc)
				y, m, d := t.Date()
				dayEnd = time.Date(y, m, d+1, 0, 0, 0, 0, loc).UnixMilli()
				out.Days = append(out.Days, CalendarDay{Date: t.Format(time.DateOnly)})
				day = &out.Days[len(out.Days)-1]
			}
			post = &CalendarPost{ID: e.PostID, Title: e.Title, WhenToExport: e.WhenToExport, RuleID: e.RuleID}
		}
		st := statusOf(e.Status)
		post.Destinations = append(post.Destinations, CalendarDestination{ScheduleID: e.ScheduleID, ExportTo: e.ExportTo, Status: st})
		sts = append(sts, st)
	}
	flush()
	return out, nil
}

// calendarBound reads a calendar bound: a date in loc (the start of that
// day; of the next one for an inclusive end) or an ISO-8601 time.
func calendarBound(field, v string, loc *time.Location, end bool) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, apierr.Invalid("%s is required: a date such as 2030-01-01 or an ISO-8601 time", field)
	}
	if d, err := time.ParseInLocation(time.DateOnly, v, loc); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return d, nil
	}
	t, err := ParseTime(v)
	if err != nil {
		return time.Time{}, apierr.Invalid("%s %q is not a date (2030-01-01) or an ISO-8601 time", field, v)
	}
	return t, nil
}
