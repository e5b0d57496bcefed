package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
)

// occurrences lists the first n occurrences of r.
func occurrences(r rule, n int) []time.Time {
	var out []time.Time
	t := time.UnixMilli(r.First)
	for created := 1; len(out) < n; created++ {
		out = append(out, t)
		next, ok := r.next(t, created)
		if !ok {
			break
		}
		t = next
	}
	return out
}

func TestARepeatKeepsItsWallClockAcrossDaylightSavingChanges(t *testing.T) {
	plan := config.DefaultPlans()["business"]
	for _, tc := range []struct {
		zone string
		// first is 9:00 local a few days before the zone's spring change.
		first string
		// offsets before and after the change
		before, after string
	}{
		{"Europe/Berlin", "2026-03-26T09:00:00+01:00", "+01:00", "+02:00"},    // change on 29 March
		{"America/New_York", "2026-03-05T09:00:00-05:00", "-05:00", "-04:00"}, // change on 8 March
	} {
		t.Run(tc.zone, func(t *testing.T) {
			first, _ := time.Parse(time.RFC3339, tc.first)
			now := first.Add(-24 * time.Hour)
			r, err := checkRepeat(Repeat{Frequency: "daily", TimeZone: tc.zone, Count: 7}, first, now, plan)
			if err != nil {
				t.Fatal(err)
			}
			loc, _ := time.LoadLocation(tc.zone)
			list := occurrences(r, 10)
			if len(list) != 7 {
				t.Fatalf("%d occurrences, want 7 (count)", len(list))
			}
			offsets := map[string]bool{}
			for _, o := range list {
				l := o.In(loc)
				if l.Hour() != 9 || l.Minute() != 0 {
					t.Fatalf("occurrence %s is at %s local, want 09:00", o.UTC(), l.Format("15:04"))
				}
				offsets[l.Format("-07:00")] = true
			}
			if !offsets[tc.before] || !offsets[tc.after] {
				t.Fatalf("occurrences %v do not span the change (%s to %s)", list, tc.before, tc.after)
			}
			// The UTC gap across the change is 23 hours, not 24.
			shortest := 24 * time.Hour
			for i := 1; i < len(list); i++ {
				shortest = min(shortest, list[i].Sub(list[i-1]))
			}
			if shortest != 23*time.Hour {
				t.Fatalf("shortest gap %s, want 23h across the spring change", shortest)
			}
		})
	}
	// Autumn, weekly on Monday and Friday in Berlin: 25 October 2026.
	first, _ := time.Parse(time.RFC3339, "2026-10-19T09:00:00+02:00") // a Monday
	r, err := checkRepeat(Repeat{Frequency: "weekly", Weekdays: []string{"mon", "fri"}, TimeZone: "Europe/Berlin", Until: "2026-11-06"}, first, first, plan)
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation("Europe/Berlin")
	var got []string
	for _, o := range occurrences(r, 20) {
		got = append(got, o.In(loc).Format("Mon 02 15:04 -07:00"))
	}
	want := "Mon 19 09:00 +02:00,Fri 23 09:00 +02:00,Mon 26 09:00 +01:00,Fri 30 09:00 +01:00,Mon 02 09:00 +01:00,Fri 06 09:00 +01:00"
	if strings.Join(got, ",") != want {
		t.Fatalf("weekly occurrences\n got %s\nwant %s", strings.Join(got, ","), want)
	}
}

func TestAMonthlyRuleSkipsMonthsWithoutItsDay(t *testing.T) {
	first, _ := time.Parse(time.RFC3339, "2027-01-31T08:30:00-05:00")
	r, err := checkRepeat(Repeat{Frequency: "monthly", TimeZone: "America/New_York", Count: 4}, first, first, config.DefaultPlans()["business"])
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation("America/New_York")
	var got []string
	for _, o := range occurrences(r, 10) {
		got = append(got, o.In(loc).Format("2006-01-02 15:04"))
	}
	if want := "2027-01-31 08:30,2027-03-31 08:30,2027-05-31 08:30,2027-07-31 08:30"; strings.Join(got, ",") != want {
		t.Fatalf("got %s, want %s", strings.Join(got, ","), want)
	}
}

func TestABadRepeatRuleIsRefusedNamingTheField(t *testing.T) {
	first := time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)
	pro := config.DefaultPlans()["pro"] // 92 days ahead
	for _, tc := range []struct {
		r    Repeat
		want string
	}{
		{Repeat{Frequency: "daily", TimeZone: "Mars/Olympus_Mons", Count: 3}, `repeat.timeZone "Mars/Olympus_Mons" is not an IANA time zone`},
		{Repeat{Frequency: "daily", Count: 3}, "repeat.timeZone is required"},
		{Repeat{Frequency: "hourly", TimeZone: "UTC", Count: 3}, "repeat.frequency must be daily, weekly or monthly"},
		{Repeat{Frequency: "daily", TimeZone: "UTC"}, "repeat.until or repeat.count is required"},
		{Repeat{Frequency: "daily", TimeZone: "UTC", Count: 200}, "repeat.count: the rule's last occurrence"},
		{Repeat{Frequency: "daily", TimeZone: "UTC", Until: "2028-01-01"}, "repeat.until: the rule's last occurrence"},
		{Repeat{Frequency: "weekly", Weekdays: []string{"someday"}, TimeZone: "UTC", Count: 3}, "repeat.weekdays must be"},
		{Repeat{Frequency: "daily", MonthDay: 3, TimeZone: "UTC", Count: 3}, "repeat.monthDay must be 1 to 31, on a monthly rule"},
		{Repeat{Frequency: "daily", TimeZone: "UTC", Until: "2026-01-01"}, "repeat.until 2026-01-01 is before the first occurrence"},
	} {
		_, err := checkRepeat(tc.r, first, first, pro)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.r, err, tc.want)
		}
	}
	if _, err := checkRepeat(Repeat{Frequency: "daily", TimeZone: "UTC", Count: 90}, first, first, pro); err != nil {
		t.Fatalf("90 daily occurrences fit pro's 92 days: %v", err)
	}
}
