package schedule_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestARepeatingPostShowsAt9InTheCalendarAcrossTheDaylightSavingChange(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
	// Next year's spring change in New York is on the second Sunday of
	// March; start on the Thursday before it, at 9:00 local.
	year := time.Now().Year() + 1
	ny, _ := time.LoadLocation("America/New_York")
	change := time.Date(year, time.March, 8, 12, 0, 0, 0, ny)
	for change.Weekday() != time.Sunday {
		change = change.AddDate(0, 0, 1)
	}
	start := time.Date(year, time.March, change.Day()-3, 9, 0, 0, 0, ny)
	res := b.Do(t, "POST", "/v1/posts", b.Acme, fmt.Sprintf(`{"title":"Morning post","whenToExport":%q,
		"destinations":[{"exportTo":"webhook","webhookId":%q}],
		"repeat":{"frequency":"daily","timeZone":"America/New_York","count":6}}`, start.Format(time.RFC3339), hook)).Want(t, http.StatusOK)
	post := postOf(t, res)
	ruleID, _ := post["ruleId"].(string)
	if ruleID == "" {
		t.Fatalf("no ruleId: %s", res.Raw)
	}
	// Occurrences are created a week ahead; read them all from the
	// calendar once created (within a week of now they would be; here the
	// rule is a year away, so the first is only planned).
	if post["id"] != nil && post["id"] != "" {
		t.Fatalf("an occurrence a year away was created already: %v", post)
	}
	// A rule starting now-ish is created at once.
	soon := time.Now().In(ny).Add(time.Hour).Truncate(time.Minute)
	res = b.Do(t, "POST", "/v1/posts", b.Acme, fmt.Sprintf(`{"title":"Soon","whenToExport":%q,
		"destinations":[{"exportTo":"webhook","webhookId":%q}],
		"repeat":{"frequency":"daily","timeZone":"Europe/Berlin","count":3}}`, soon.Format(time.RFC3339), hook)).Want(t, http.StatusOK)
	if p := postOf(t, res); p["id"] == "" || p["status"] != "pending" {
		t.Fatalf("first occurrence: %v", p)
	}
	from, to := soon.Format(time.DateOnly), soon.AddDate(0, 0, 4).Format(time.DateOnly)
	cal := b.Do(t, "GET", "/v1/scheduler/calendar?from="+from+"&to="+to+"&tz=America/New_York", b.Acme, "").Want(t, http.StatusOK)
	days, _ := cal.Body["days"].([]any)
	n := 0
	for _, d := range days {
		for _, raw := range d.(map[string]any)["posts"].([]any) {
			p := raw.(map[string]any)
			if p["title"] == "Soon" {
				n++
				when, _ := time.Parse(time.RFC3339, p["whenToExport"].(string))
				if got := when.In(ny).Format("15:04"); got != soon.Format("15:04") {
					t.Fatalf("occurrence at %s New York time, want %s", got, soon.Format("15:04"))
				}
			}
		}
	}
	if n != 3 {
		t.Fatalf("%d occurrences in the calendar, want 3: %s", n, cal.Raw)
	}
	// Another workspace's calendar is empty.
	other := b.Do(t, "GET", "/v1/scheduler/calendar?from="+from+"&to="+to, b.Other, "").Want(t, http.StatusOK)
	if d, _ := other.Body["days"].([]any); len(d) != 0 {
		t.Fatalf("another workspace sees %s", other.Raw)
	}
	// Cancelling the rule stops it; its created occurrences stay.
	b.Do(t, "DELETE", "/v1/scheduler/rules/"+ruleID, b.Acme, "").Want(t, http.StatusOK)
	b.Do(t, "DELETE", "/v1/scheduler/rules/"+ruleID, b.Other, "").Want(t, http.StatusNotFound)
}

func TestCalendarAndRepeatRefuseBadInputNamingTheField(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
	for _, tc := range []struct{ path, want string }{
		{"/v1/scheduler/calendar?from=2030-01-01&to=2030-01-31&tz=Mars/Base", `tz "Mars/Base" is not an IANA time zone`},
		{"/v1/scheduler/calendar?to=2030-01-31", "from is required"},
		{"/v1/scheduler/calendar?from=2030-01-01&to=soon", "to must be a date"},
		{"/v1/scheduler/calendar?from=2030-01-01&to=2030-12-31", "longer than 100 days"},
	} {
		res := b.Do(t, "GET", tc.path, b.Acme, "").Want(t, http.StatusBadRequest)
		if msg := fmt.Sprint(res.Body["message"]); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %q, want %q", tc.path, msg, tc.want)
		}
	}
	when := in(time.Hour)
	for _, tc := range []struct{ repeat, want string }{
		{`{"frequency":"daily","timeZone":"Europe/Berln","count":3}`, `repeat.timeZone "Europe/Berln" is not an IANA time zone`},
		{`{"frequency":"daily","timeZone":"Europe/Berlin"}`, "repeat.until or repeat.count is required"},
		{`{"frequency":"daily","timeZone":"Europe/Berlin","until":"2099-01-01"}`, "repeat.until: the rule's last occurrence"},
	} {
		res := b.Do(t, "POST", "/v1/posts", b.Acme, fmt.Sprintf(`{"title":"T","whenToExport":%q,"destinations":[{"exportTo":"webhook","webhookId":%q}],"repeat":%s}`, when, hook, tc.repeat)).Want(t, http.StatusBadRequest)
		if msg := fmt.Sprint(res.Body["message"]); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %q, want %q", tc.repeat, msg, tc.want)
		}
	}
}

func TestMovingAPostPublishesItAtTheNewTimeOnly(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t)
	hook := b.SaveWebhook(t, b.Acme, rc)
	post := postOf(t, b.Do(t, "POST", "/v1/posts", b.Acme, fmt.Sprintf(`{"title":"Moved","whenToExport":%q,"destinations":[{"exportTo":"webhook","webhookId":%q}]}`, in(2*time.Second), hook)).Want(t, http.StatusOK))
	id := post["id"].(string)
	later := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	moved := postOf(t, b.Do(t, "POST", "/v1/posts/"+id+"/move", b.Acme, fmt.Sprintf(`{"whenToExport":%q}`, later.Format(time.RFC3339))).Want(t, http.StatusOK))
	if got, _ := time.Parse(time.RFC3339, fmt.Sprint(moved["whenToExport"])); !got.Equal(later) {
		t.Fatalf("moved post at %v, want %s", moved["whenToExport"], later.Format(time.RFC3339))
	}
	b.Do(t, "POST", "/v1/posts/"+id+"/move", b.Other, fmt.Sprintf(`{"whenToExport":%q}`, later.Format(time.RFC3339))).Want(t, http.StatusNotFound)
	// The old job comes due and does nothing.
	time.Sleep(4 * time.Second)
	if rc.Count() != 0 {
		t.Fatalf("the moved post was delivered at its old time")
	}
	sc := schedulesOf(moved)["webhook/"+hook]
	if got := scheduleOf(t, b.Do(t, "GET", "/v1/scheduler/"+sc["id"].(string), b.Acme, "").Want(t, http.StatusOK)); got["status"] != "pending" {
		t.Fatalf("schedule is %v, want pending at its new time", got["status"])
	}
}

func TestAPreviewCatchesEachDestinationsRefusal(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
	res := b.Do(t, "POST", "/v1/scheduler/preview", b.Acme, fmt.Sprintf(`{"title":"Launch","content":"<p>Hi</p>","whenToExport":%q,"destinations":[
		{"exportTo":"linkedin","contentToExport":{"text":%q}},
		{"exportTo":"wordpress","contentToExport":{"status":"scheduled"}},
		{"exportTo":"webflow","contentToExport":{"collectionId":"nope","imageField":"hero","fieldData":{"Hero Title":"x"}}},
		{"exportTo":"notion","contentToExport":{"properties":"Tags"}},
		{"exportTo":"webhook","webhookId":%q,"contentToExport":{"imageUrl":"ftp://img.example/a.png"}}]}`, in(time.Hour), strings.Repeat("a", 3001), hook)).Want(t, http.StatusOK)
	if res.Body["ok"] != false {
		t.Fatalf("ok = %v, want false", res.Body["ok"])
	}
	want := map[string][]string{
		"linkedin":  {"text has 3001 characters; LinkedIn allows 3000", `credential "token" (Access token) is required by linkedin`},
		"wordpress": {`status "scheduled" is not one of publish`},
		"webflow":   {"collectionId must be a Webflow collection id", "the item would have no main image", "fieldData key Hero Title is not a Webflow field slug"},
		"notion":    {"properties must be an object", "notion needs a parent"},
		"webhook":   {"imageUrl must be an https URL or a data: URL"},
	}
	for _, raw := range res.Body["destinations"].([]any) {
		d := raw.(map[string]any)
		got := fmt.Sprint(d["problems"])
		for _, w := range want[d["exportTo"].(string)] {
			if !strings.Contains(got, w) {
				t.Errorf("%s: problems %s, want %q", d["exportTo"], got, w)
			}
		}
		if d["exportTo"] == "wordpress" && !strings.HasPrefix(fmt.Sprint(d["rendered"]), "Launch\n\n<p>Hi</p>") {
			t.Errorf("wordpress rendered %q", d["rendered"])
		}
	}
	// Nothing was stored.
	if list := b.Do(t, "GET", "/v1/scheduler", b.Acme, "").Want(t, http.StatusOK); list.Body["total"] != float64(0) {
		t.Fatalf("a preview stored schedules: %s", list.Raw)
	}
}
