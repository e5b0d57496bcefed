package events_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/heraldhq/herald/host/internal/events/catalog"
)

// nextAttemptIn is how long after now the delivery's next attempt is due.
func nextAttemptIn(t *testing.T, d map[string]any, now time.Time) time.Duration {
	t.Helper()
	s, ok := d["nextAttemptAt"].(string)
	if !ok {
		t.Fatalf("no next attempt: %v", d)
	}
	next, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return next.Sub(now)
}

func near(got, want time.Duration) bool { return (got - want).Abs() < time.Minute }

// Without a longer Retry-After, each retry waits its backoff step (a
// shorter Retry-After does not hurry it); when the steps run out the
// delivery is failed and nothing more is sent. Every attempt carries the
// same webhook-id and verifies.
func TestRetriesFollowTheBackoffThenTheDeliveryFails(t *testing.T) {
	t.Parallel()
	b := setup(t, options{backoff: []time.Duration{time.Hour, 2 * time.Hour}})
	id, secret := b.subscribe(t, "standard", catalog.ReportCompleted)
	b.recv.fail(http.Header{"Retry-After": {"1"}}, 500, 500, 500)
	b.emit(t, reportEvent(b.acmeWS, "r1"))

	b.deliverAll(t)
	d := deliveries(t, b, id)[0].(map[string]any)
	if d["status"] != "pending" || d["attempts"] != float64(1) || d["responseCode"] != float64(500) {
		t.Fatalf("after the first failure: %v", d)
	}
	if wait := nextAttemptIn(t, d, time.Now()); !near(wait, time.Hour) {
		t.Fatalf("second attempt in %s, want the first step (1h); Retry-After asked 1 s", wait)
	}
	b.advance(59 * time.Minute)
	b.deliverAll(t)
	if n := len(b.recv.requests()); n != 1 {
		t.Fatalf("retried before its step: %d requests", n)
	}
	b.advance(61 * time.Minute)
	b.deliverAll(t)
	d = deliveries(t, b, id)[0].(map[string]any)
	if d["status"] != "pending" || d["attempts"] != float64(2) {
		t.Fatalf("after the second failure: %v", d)
	}
	if wait := nextAttemptIn(t, d, time.Now().Add(61*time.Minute)); !near(wait, 2*time.Hour) {
		t.Fatalf("third attempt in %s, want the second step (2h)", wait)
	}
	b.advance(3*time.Hour + 2*time.Minute)
	b.deliverAll(t)
	d = deliveries(t, b, id)[0].(map[string]any)
	if d["status"] != "failed" || d["attempts"] != float64(3) || d["nextAttemptAt"] != nil || !strings.Contains(d["error"].(string), "500") {
		t.Fatalf("after the steps ran out: %v", d)
	}
	b.advance(60 * time.Hour)
	b.deliverAll(t)
	got := b.recv.requests()
	if len(got) != 3 {
		t.Fatalf("%d requests; want 3 attempts and none after the delivery failed", len(got))
	}
	wh, _ := standardwebhooks.NewWebhook(secret)
	for i, r := range got {
		if r.Header.Get("webhook-id") != d["id"] {
			t.Fatalf("attempt %d has webhook-id %q, want the delivery's %q", i+1, r.Header.Get("webhook-id"), d["id"])
		}
		if err := wh.Verify(r.Body, r.Header); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
}

// A Retry-After longer than the step is honoured, as seconds or as an
// HTTP date, up to 24 h.
func TestALongerRetryAfterIsHonouredUpToADay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, header string
		want         time.Duration
	}{
		{"seconds", "7200", 2 * time.Hour},
		{"an HTTP date", time.Now().Add(3 * time.Hour).UTC().Format(http.TimeFormat), 3 * time.Hour},
		{"over a day", "172800", 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, options{backoff: []time.Duration{time.Second}})
			id, _ := b.subscribe(t, "standard", catalog.ReportCompleted)
			b.recv.fail(http.Header{"Retry-After": {tc.header}}, 429)
			b.emit(t, reportEvent(b.acmeWS, "r1"))
			b.deliverAll(t)
			d := deliveries(t, b, id)[0].(map[string]any)
			if d["status"] != "pending" || d["responseCode"] != float64(429) {
				t.Fatalf("after a 429: %v", d)
			}
			if wait := nextAttemptIn(t, d, time.Now()); !near(wait, tc.want) {
				t.Fatalf("Retry-After %q: next attempt in %s, want %s", tc.header, wait, tc.want)
			}
		})
	}
}

// A delivered event can be redelivered: from its first attempt, with the
// same webhook-id, signed. Another workspace's key, or a delivery that is
// not the subscription's, is a 404 and sends nothing.
func TestRedeliveringADeliveredEventSendsItAgainWithItsWebhookID(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, secret := b.subscribe(t, "standard", catalog.ReportCompleted)
	b.emit(t, reportEvent(b.acmeWS, "r1"))
	b.deliverAll(t)
	d := deliveries(t, b, id)[0].(map[string]any)
	if d["status"] != "delivered" || d["attempts"] != float64(1) {
		t.Fatalf("first delivery: %v", d)
	}
	did := d["id"].(string)
	path := "/v1/events/subscriptions/" + id + "/deliveries/" + did + "/redeliver"
	b.srv.Do(t, "POST", path, b.other, "").Want(t, 404)
	b.srv.Do(t, "POST", "/v1/events/subscriptions/"+id+"/deliveries/nope/redeliver", b.acme, "").Want(t, 404)
	b.deliverAll(t)
	if n := len(b.recv.requests()); n != 1 {
		t.Fatalf("a refused redelivery sent something: %d requests", n)
	}

	red := b.srv.Do(t, "POST", path, b.acme, "").Want(t, 200).Body["delivery"].(map[string]any)
	if red["id"] != did || red["status"] != "pending" || red["attempts"] != float64(0) {
		t.Fatalf("redelivered: %v", red)
	}
	b.deliverAll(t)
	got := b.recv.requests()
	if len(got) != 2 || got[1].Header.Get("webhook-id") != did || string(got[1].Body) != string(got[0].Body) {
		t.Fatalf("want the same event again under webhook-id %s: %d requests", did, len(got))
	}
	wh, _ := standardwebhooks.NewWebhook(secret)
	if err := wh.Verify(got[1].Body, got[1].Header); err != nil {
		t.Fatalf("the redelivery: %v", err)
	}
	d = deliveries(t, b, id)[0].(map[string]any)
	if d["status"] != "delivered" || d["attempts"] != float64(1) || d["responseCode"] != float64(204) {
		t.Fatalf("after the redelivery: %v", d)
	}
}
