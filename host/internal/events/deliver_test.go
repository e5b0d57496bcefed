package events_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
)

func reportEvent(ws, id string) *store.Event {
	return store.EventOf(catalog.ReportDone(ws, false, catalog.Report{ReportID: id, WebsiteURL: "https://acme.test/"}))
}

func TestAStandardDeliveryVerifiesWithTheOfficialVerifier(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, secret := b.subscribe(t, "standard", catalog.ReportCompleted)
	b.emit(t, reportEvent(b.acmeWS, "r1"))
	b.deliverAll(t)
	got := b.recv.requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(got[0].Body, got[0].Header); err != nil {
		t.Fatalf("verify: %v (headers %v)", err, got[0].Header)
	}
	var body struct {
		Type string `json:"type"`
		Data struct {
			ReportID string `json:"reportId"`
		} `json:"data"`
		Link string `json:"link"`
	}
	if err := json.Unmarshal(got[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Type != catalog.ReportCompleted || body.Data.ReportID != "r1" || body.Link != "https://herald.test/dashboard/#/visibility/r1" {
		t.Fatalf("body %s", got[0].Body)
	}
	// A wrong secret does not verify: the check above is not vacuous.
	other, _ := standardwebhooks.NewWebhook("whsec_" + strings.Repeat("A", 43) + "=")
	if other.Verify(got[0].Body, got[0].Header) == nil {
		t.Fatal("another secret verified the delivery")
	}
}

func TestARotatedSecretSignsBesideTheNewOneDuringTheOverlap(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, old := b.subscribe(t, "standard", catalog.ReportCompleted)
	rot := b.srv.Do(t, "POST", "/v1/events/subscriptions/"+id+"/rotate", b.acme, "").Want(t, 200).Body
	fresh := rot["secret"].(string)
	b.emit(t, reportEvent(b.acmeWS, "r1"))
	b.deliverAll(t)
	got := b.recv.requests()
	if len(got) != 1 || len(strings.Fields(got[0].Header.Get("webhook-signature"))) != 2 {
		t.Fatalf("want one delivery with two signatures: %v", got)
	}
	for _, secret := range []string{old, fresh} {
		wh, _ := standardwebhooks.NewWebhook(secret)
		if err := wh.Verify(got[0].Body, got[0].Header); err != nil {
			t.Fatalf("secret %s…: %v", secret[:10], err)
		}
	}
	// After the overlap only the new secret signs.
	b.advance(25 * time.Hour)
	b.emit(t, reportEvent(b.acmeWS, "r2"))
	b.deliverAll(t)
	got = b.recv.requests()
	wh, _ := standardwebhooks.NewWebhook(old)
	if len(got) != 2 || wh.VerifyIgnoringTimestamp(got[1].Body, got[1].Header) == nil {
		t.Fatal("the previous secret still signs after the overlap")
	}
}

func TestASlackDeliveryIsAnIncomingWebhookMessageWithALink(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.subscribe(t, "slack", catalog.ScheduleFailed)
	b.emit(t, store.EventOf(catalog.ScheduleFailure(b.acmeWS, catalog.Schedule{ScheduleID: "s1", Destination: "linkedin", Error: "token <expired> & gone", WillRetry: true})))
	b.deliverAll(t)
	got := b.recv.requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	if got[0].Header.Get("Content-Type") != "application/json" || got[0].Header.Get("webhook-signature") != "" {
		t.Fatalf("headers %v", got[0].Header)
	}
	// Slack's incoming webhooks take text (required; the notification's
	// fallback when blocks are given) and blocks: a section with a text
	// object {type: mrkdwn, text}, a context block with elements.
	var msg struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
			Text *struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"text"`
			Elements []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"elements"`
		} `json:"blocks"`
	}
	dec := json.NewDecoder(strings.NewReader(string(got[0].Body)))
	if err := dec.Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg.Text, "s1") || !strings.Contains(msg.Text, "linkedin") || !strings.Contains(msg.Text, "will retry") {
		t.Fatalf("text %q", msg.Text)
	}
	if len(msg.Blocks) != 2 || msg.Blocks[0].Type != "section" || msg.Blocks[0].Text == nil || msg.Blocks[0].Text.Type != "mrkdwn" ||
		msg.Blocks[1].Type != "context" || len(msg.Blocks[1].Elements) != 1 || msg.Blocks[1].Elements[0].Type != "mrkdwn" {
		t.Fatalf("blocks %s", got[0].Body)
	}
	section := msg.Blocks[0].Text.Text
	if !strings.Contains(section, "<https://herald.test/dashboard/#/schedules/s1|Open in Herald>") {
		t.Fatalf("no dashboard link in %q", section)
	}
	if !strings.Contains(section, "&lt;expired&gt; &amp; gone") {
		t.Fatalf("control characters not escaped: %q", section)
	}
	if len(section) > 3000 {
		t.Fatalf("section text over Slack's 3000 characters")
	}
}

func deliveries(t *testing.T, b *bundle, id string) []any {
	t.Helper()
	return b.srv.Do(t, "GET", "/v1/events/subscriptions/"+id+"/deliveries", b.acme, "").Want(t, 200).Body["deliveries"].([]any)
}

func TestAFailedDeliveryIsRetriedAfterRetryAfterWithTheSameWebhookID(t *testing.T) {
	t.Parallel()
	b := setup(t, options{backoff: []time.Duration{time.Second, time.Second}})
	id, _ := b.subscribe(t, "standard", catalog.ReportCompleted)
	b.recv.fail(http.Header{"Retry-After": {"120"}}, 503)
	b.emit(t, reportEvent(b.acmeWS, "r1"))
	b.deliverAll(t)
	d := deliveries(t, b, id)[0].(map[string]any)
	if d["status"] != "pending" || d["responseCode"] != float64(503) || d["attempts"] != float64(1) {
		t.Fatalf("after a 503: %v", d)
	}
	next, _ := time.Parse(time.RFC3339, d["nextAttemptAt"].(string))
	if wait := time.Until(next); wait < 100*time.Second {
		t.Fatalf("next attempt in %s; Retry-After asked 120 s", wait)
	}
	b.advance(90 * time.Second)
	b.deliverAll(t)
	if n := len(b.recv.requests()); n != 1 {
		t.Fatalf("retried before Retry-After: %d requests", n)
	}
	b.advance(121 * time.Second)
	b.deliverAll(t)
	got := b.recv.requests()
	if len(got) != 2 || got[0].Header.Get("webhook-id") != got[1].Header.Get("webhook-id") {
		t.Fatalf("want a second attempt with the same webhook-id: %d requests", len(got))
	}
	d = deliveries(t, b, id)[0].(map[string]any)
	if d["status"] != "delivered" || d["responseCode"] != float64(204) || d["nextAttemptAt"] != nil {
		t.Fatalf("after the retry: %v", d)
	}
}

func TestASubscriptionFailingForThreeDaysIsPausedAndARedeliveryResumesIt(t *testing.T) {
	t.Parallel()
	b := setup(t, options{backoff: []time.Duration{time.Hour, time.Hour, time.Hour, time.Hour, time.Hour}})
	id, _ := b.subscribe(t, "standard", catalog.ReportCompleted)
	b.recv.fail(nil, 500, 500, 500, 500, 500, 500)
	b.emit(t, reportEvent(b.acmeWS, "r1"))
	b.deliverAll(t) // fails at day 0
	b.advance(49 * time.Hour)
	b.deliverAll(t) // fails at day 2: not yet paused
	sub := b.srv.Do(t, "GET", "/v1/events/subscriptions/"+id, b.acme, "").Want(t, 200).Body["subscription"].(map[string]any)
	if sub["state"] != "active" || sub["failingSince"] == nil {
		t.Fatalf("after two days of failures: %v", sub)
	}
	b.advance(73 * time.Hour)
	b.deliverAll(t) // fails past day 3: paused
	sub = b.srv.Do(t, "GET", "/v1/events/subscriptions/"+id, b.acme, "").Want(t, 200).Body["subscription"].(map[string]any)
	if sub["state"] != "paused" || !strings.Contains(sub["pausedReason"].(string), "500") {
		t.Fatalf("after three days: %v", sub)
	}
	// Paused: nothing more is sent and new events make no deliveries.
	before := len(b.recv.requests())
	b.emit(t, reportEvent(b.acmeWS, "r2"))
	b.advance(80 * time.Hour)
	b.deliverAll(t)
	if n := len(b.recv.requests()); n != before {
		t.Fatalf("a paused subscription got %d more requests", n-before)
	}
	list := deliveries(t, b, id)
	if len(list) != 1 {
		t.Fatalf("a paused subscription has %d deliveries; want the first only", len(list))
	}
	// Redelivery resumes it and sends with the same webhook-id.
	b.recv.fail(nil)
	did := list[0].(map[string]any)["id"].(string)
	red := b.srv.Do(t, "POST", "/v1/events/subscriptions/"+id+"/deliveries/"+did+"/redeliver", b.acme, "").Want(t, 200).Body
	if d := red["delivery"].(map[string]any); d["status"] != "pending" || d["attempts"] != float64(0) {
		t.Fatalf("redelivered: %v", d)
	}
	b.deliverAll(t)
	got := b.recv.requests()
	if len(got) != before+1 || got[len(got)-1].Header.Get("webhook-id") != did {
		t.Fatalf("redelivery: %d requests, last id %q, want %q", len(got), got[len(got)-1].Header.Get("webhook-id"), did)
	}
	sub = b.srv.Do(t, "GET", "/v1/events/subscriptions/"+id, b.acme, "").Want(t, 200).Body["subscription"].(map[string]any)
	if sub["state"] != "active" || sub["failingSince"] != nil {
		t.Fatalf("after the redelivery: %v", sub)
	}
}

func TestATestEventReachesTheReceiverSigned(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, secret := b.subscribe(t, "standard", catalog.ReportCompleted)
	res := b.srv.Do(t, "POST", "/v1/events/subscriptions/"+id+"/test", b.acme, "").Want(t, 200).Body
	if res["delivered"] != true || res["responseCode"] != float64(204) {
		t.Fatalf("test: %v", res)
	}
	got := b.recv.requests()
	wh, _ := standardwebhooks.NewWebhook(secret)
	if len(got) != 1 || wh.Verify(got[0].Body, got[0].Header) != nil || !strings.Contains(string(got[0].Body), `"event.test"`) {
		t.Fatalf("test delivery: %v", got)
	}
	b.recv.fail(nil, 410)
	res = b.srv.Do(t, "POST", "/v1/events/subscriptions/"+id+"/test", b.acme, "").Want(t, 200).Body
	if res["delivered"] != false || res["responseCode"] != float64(410) || !strings.Contains(res["error"].(string), "410") {
		t.Fatalf("refused test: %v", res)
	}
}
