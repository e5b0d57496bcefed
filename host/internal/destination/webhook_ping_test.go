package destination_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// POST /v1/webhooks/{id}/test sends one signed delivery marked as a test;
// a refusal is reported with the receiver's answer; other workspaces get 404.
func TestAWebhookTestDeliveryIsSigned(t *testing.T) {
	t.Parallel()
	b := scheduletest.Setup(t, storetest.SQLite(t))
	rc := scheduletest.NewReceiver(t, 400)
	hook := b.SaveWebhook(t, b.Acme, rc)

	res := b.Do(t, "POST", "/v1/webhooks/"+hook+"/test", b.Acme, "")
	if res.Status != http.StatusBadRequest || !strings.Contains(res.Raw, "400") {
		t.Fatalf("a refused test delivery: %d %s, want 400 with the receiver's answer", res.Status, res.Raw)
	}
	res = b.Do(t, "POST", "/v1/webhooks/"+hook+"/test", b.Acme, "").Want(t, http.StatusOK)
	if !strings.Contains(res.Raw, `"deliveryId":"test_`) {
		t.Fatalf("body: %s", res.Raw)
	}
	b.Do(t, "POST", "/v1/webhooks/"+hook+"/test", b.Other, "").Want(t, http.StatusNotFound)
	if rc.Count() != 2 {
		t.Fatalf("deliveries %d, want 2", rc.Count())
	}
	d := rc.Deliveries()[1]
	if !d.Valid || !strings.HasPrefix(d.ID, "test_") || d.ScheduleID != d.ID || d.Content["test"] != true {
		t.Fatalf("test delivery: %+v, want a valid signature, a test_ webhook-id and content.test = true", d)
	}
}
