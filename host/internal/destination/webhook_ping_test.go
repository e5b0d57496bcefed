package destination_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// POST /v1/webhooks/{id}/test sends one signed delivery marked as a test;
// a refusal is reported with the receiver's answer; other workspaces get 404.
func TestAWebhookTestDeliveryIsSigned(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t, 400)
	hook := b.saveWebhook(t, b.acme, rc)

	res := b.do(t, "POST", "/v1/webhooks/"+hook+"/test", b.acme, "")
	if res.status != http.StatusBadRequest || !strings.Contains(res.raw, "400") {
		t.Fatalf("a refused test delivery: %d %s, want 400 with the receiver's answer", res.status, res.raw)
	}
	res = b.do(t, "POST", "/v1/webhooks/"+hook+"/test", b.acme, "").want(t, http.StatusOK)
	if !strings.Contains(res.raw, `"deliveryId":"test_`) {
		t.Fatalf("body: %s", res.raw)
	}
	b.do(t, "POST", "/v1/webhooks/"+hook+"/test", b.other, "").want(t, http.StatusNotFound)
	if rc.count() != 2 {
		t.Fatalf("deliveries %d, want 2", rc.count())
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	d := rc.deliveries[1]
	if !d.valid || !strings.HasPrefix(d.id, "test_") || d.scheduleID != d.id || d.content["test"] != true {
		t.Fatalf("test delivery: %+v, want a valid signature, a test_ webhook-id and content.test = true", d)
	}
}
