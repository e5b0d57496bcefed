package schedule

import (
	"fmt"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones on hosts without /usr/share/zoneinfo

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
)

// Repeat is a post's repeat rule as a request gives it: Frequency daily,
// weekly (on Weekdays) or monthly (on MonthDay), in the IANA TimeZone, from
// the post's whenToExport (its wall-clock time in that zone is the time of
// every occurrence, so a 9:00 post stays at 9:00 across daylight saving
// changes), until the date or time Until or for Count occurrences.
type Repeat struct {
	Frequency string
	// Weekdays are "mon" to "sun"; empty: the first occurrence's weekday.
	Weekdays []string
	// MonthDay is 1 to 31; 0: the first occurrence's day. A month without
	// that day is skipped.
	MonthDay int
	TimeZone string
	Until    string
	Count    int
}

// Frequencies of a repeat rule.
const (
	RepeatDaily   = "daily"
	RepeatWeekly  = "weekly"
	RepeatMonthly = "monthly"
)

// maxRepeatCount bounds repeat.count whatever the horizon.
const maxRepeatCount = 1000

var weekdayNames = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// rule is a checked repeat rule, as stored (JSON) with its schedule rule.
type rule struct {
	Frequency string         `json:"frequency"`
	Weekdays  []time.Weekday `json:"weekdays,omitempty"`
	MonthDay  int            `json:"monthDay,omitempty"`
	TimeZone  string         `json:"timeZone"`
	// First is the first occurrence (epoch ms); Hour and Minute its wall
	// clock in TimeZone.
	First  int64 `json:"first"`
	Hour   int   `json:"hour"`
	Minute int   `json:"minute"`
	Second int   `json:"second"`
	// Until (epoch ms) and Count end the rule; at least one is set.
	Until *int64 `json:"until,omitempty"`
	Count int    `json:"count,omitempty"`

	loc *time.Location
}

// checkRepeat validates r for a post first published at first, with the
// plan's horizon: 400 naming the field for an unknown zone or frequency, a
// rule without an end, or one ending past now + the horizon.
func checkRepeat(r Repeat, first, now time.Time, plan config.Plan) (rule, error) {
	out := rule{Frequency: strings.ToLower(strings.TrimSpace(r.Frequency)), TimeZone: strings.TrimSpace(r.TimeZone)}
	switch out.Frequency {
	case RepeatDaily, RepeatWeekly, RepeatMonthly:
	default:
		return rule{}, apierr.Invalid("repeat.frequency must be daily, weekly or monthly, got %q", r.Frequency)
	}
	if out.TimeZone == "" {
		return rule{}, apierr.Invalid("repeat.timeZone is required: an IANA time zone such as Europe/Berlin")
	}
	loc, err := loadZone(out.TimeZone)
	if err != nil {
		return rule{}, apierr.Invalid("repeat.timeZone %q is not an IANA time zone (such as Europe/Berlin or America/New_York)", out.TimeZone)
	}
	out.loc = loc
	local := first.In(loc)
	out.First, out.Hour, out.Minute, out.Second = first.UnixMilli(), local.Hour(), local.Minute(), local.Second()
	for _, d := range r.Weekdays {
		i := slices.Index(weekdayNames, strings.ToLower(strings.TrimSpace(d))[:min(3, len(strings.TrimSpace(d)))])
		if i < 0 || out.Frequency != RepeatWeekly {
			return rule{}, apierr.Invalid("repeat.weekdays must be mon, tue, wed, thu, fri, sat or sun, on a weekly rule; got %q", d)
		}
		if !slices.Contains(out.Weekdays, time.Weekday(i)) {
			out.Weekdays = append(out.Weekdays, time.Weekday(i))
		}
	}
	if out.Frequency == RepeatWeekly && len(out.Weekdays) == 0 {
		out.Weekdays = []time.Weekday{local.Weekday()}
	}
	if r.MonthDay != 0 && (out.Frequency != RepeatMonthly || r.MonthDay < 1 || r.MonthDay > 31) {
		return rule{}, apierr.Invalid("repeat.monthDay must be 1 to 31, on a monthly rule; got %d", r.MonthDay)
	}
	out.MonthDay = r.MonthDay
	if out.Frequency == RepeatMonthly && out.MonthDay == 0 {
		out.MonthDay = local.Day()
	}
	if !out.matches(local) {
		out.First = out.after(first).UnixMilli()
		first = time.UnixMilli(out.First)
	}
	if r.Count < 0 || r.Count > maxRepeatCount {
		return rule{}, apierr.Invalid("repeat.count must be 1 to %d, got %d", maxRepeatCount, r.Count)
	}
	out.Count = r.Count
	if u := strings.TrimSpace(r.Until); u != "" {
		t, err := parseUntil(u, loc)
		if err != nil {
			return rule{}, apierr.Invalid("repeat.until %q is not a date (2030-01-31) or an ISO-8601 time", r.Until)
		}
		if t.Before(first) {
			return rule{}, apierr.Invalid("repeat.until %s is before the first occurrence %s", u, first.Format(time.RFC3339))
		}
		ms := t.UnixMilli()
		out.Until = &ms
	}
	days := plan.RepeatHorizonDays
	if days <= 0 {
		days = config.DefaultRepeatHorizonDays
	}
	horizon := now.AddDate(0, 0, days)
	if out.Until == nil && out.Count == 0 {
		return rule{}, apierr.Invalid("repeat.until or repeat.count is required: a repeat rule must end within the plan's %d days", days)
	}
	if last := out.last(); last.After(horizon) {
		field := "repeat.count"
		if out.Until != nil && time.UnixMilli(*out.Until).After(horizon) {
			field = "repeat.until"
		}
		return rule{}, apierr.Invalid("%s: the rule's last occurrence (%s) is past the plan's horizon of %d days (%s)",
			field, last.Format(time.RFC3339), days, horizon.Format("2006-01-02"))
	}
	return out, nil
}

// loadZone is time.LoadLocation without its "" and "Local" meanings.
func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("not an IANA zone: %q", name)
	}
	return time.LoadLocation(name)
}

// parseUntil reads a date (the end of that day in loc) or a time.
func parseUntil(v string, loc *time.Location) (time.Time, error) {
	if d, err := time.ParseInLocation("2006-01-02", v, loc); err == nil {
		return d.AddDate(0, 0, 1).Add(-time.Millisecond), nil
	}
	return ParseTime(v)
}

func (r *rule) zone() *time.Location {
	if r.loc == nil {
		loc, err := loadZone(r.TimeZone)
		if err != nil {
			loc = time.UTC
		}
		r.loc = loc
	}
	return r.loc
}

// matches reports whether the local date is a day of the rule.
func (r *rule) matches(d time.Time) bool {
	switch r.Frequency {
	case RepeatWeekly:
		return slices.Contains(r.Weekdays, d.Weekday())
	case RepeatMonthly:
		return d.Day() == r.MonthDay
	}
	return true
}

// at is the occurrence on the local date of d, at the rule's wall clock.
// time.Date puts a wall clock that a daylight saving change skips after
// the change.
func (r *rule) at(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), r.Hour, r.Minute, r.Second, 0, r.zone())
}

// after returns the first occurrence strictly after t (at or after the
// first occurrence), ignoring the rule's end; the zero time when there is
// none within 5 years.
func (r *rule) after(t time.Time) time.Time {
	first := time.UnixMilli(r.First).In(r.zone())
	if t.Before(first) {
		return first
	}
	d := t.In(r.zone())
	d = time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, r.zone())
	for range 5 * 366 {
		if r.matches(d) {
			if o := r.at(d); o.After(t) {
				return o
			}
		}
		d = time.Date(d.Year(), d.Month(), d.Day()+1, 12, 0, 0, 0, r.zone())
	}
	return time.Time{}
}

// occurrence returns the i-th occurrence (from 0), ignoring the end.
func (r *rule) occurrence(i int) time.Time {
	t := time.UnixMilli(r.First).In(r.zone())
	for ; i > 0 && !t.IsZero(); i-- {
		t = r.after(t)
	}
	return t
}

// next returns the occurrence after t when the rule has one, given that
// created occurrences exist (t is the last of them).
func (r *rule) next(t time.Time, created int) (time.Time, bool) {
	if r.Count > 0 && created >= r.Count {
		return time.Time{}, false
	}
	o := r.after(t)
	if o.IsZero() || (r.Until != nil && o.UnixMilli() > *r.Until) {
		return time.Time{}, false
	}
	return o, true
}

// last is the rule's last occurrence.
func (r *rule) last() time.Time {
	if r.Count > 0 {
		t := r.occurrence(r.Count - 1)
		if r.Until == nil || t.UnixMilli() <= *r.Until {
			return t
		}
	}
	return time.UnixMilli(*r.Until)
}
