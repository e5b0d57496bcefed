package schedule_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A failed post is retried with POST /v1/scheduler/{id}/retry: back to
// pending, exported again with the same webhook-id, and published.
func TestAFailedPostIsRetried(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t, 400) // refused once, then 200
	hook := b.saveWebhook(t, b.acme, rc)
	id := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(0))).want(t, http.StatusOK).schedule(t)["id"].(string)
	b.waitStatus(t, b.acme, id, "failed", 15*time.Second)

	// Only the owner's workspace sees it; a bad time names the field.
	b.do(t, "POST", "/v1/scheduler/"+id+"/retry", b.other, `{}`).want(t, http.StatusNotFound)
	b.do(t, "POST", "/v1/scheduler/"+id+"/retry", b.acme, `{"whenToExport":"tomorrow"}`).want(t, http.StatusBadRequest)

	sc := b.do(t, "POST", "/v1/scheduler/"+id+"/retry", b.acme, `{}`).want(t, http.StatusOK).schedule(t)
	if sc["status"] != "pending" && sc["status"] != "publishing" && sc["status"] != "published" {
		t.Fatalf("after retry: status %v", sc["status"])
	}
	sc = b.waitStatus(t, b.acme, id, "published", 15*time.Second)
	if rc.count() != 2 {
		t.Fatalf("deliveries %d, want 2", rc.count())
	}
	rc.mu.Lock()
	if rc.deliveries[1].id != id || !rc.deliveries[1].valid {
		t.Fatalf("the retry changed the webhook-id or signature: %+v", rc.deliveries[1])
	}
	rc.mu.Unlock()

	// A published post is not retried.
	res := b.do(t, "POST", "/v1/scheduler/"+id+"/retry", b.acme, `{}`).want(t, http.StatusConflict)
	if !strings.Contains(res.raw, "only a failed schedule") {
		t.Fatalf("409 body: %s", res.raw)
	}
}

// A retry at a later whenToExport waits for it.
func TestARetryAtALaterTimeWaits(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t, 400)
	hook := b.saveWebhook(t, b.acme, rc)
	id := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(0))).want(t, http.StatusOK).schedule(t)["id"].(string)
	b.waitStatus(t, b.acme, id, "failed", 15*time.Second)
	later := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	sc := b.do(t, "POST", "/v1/scheduler/"+id+"/retry", b.acme, fmt.Sprintf(`{"whenToExport":%q}`, later)).want(t, http.StatusOK).schedule(t)
	if sc["status"] != "pending" || !strings.HasPrefix(fmt.Sprint(sc["whenToExport"]), later[:16]) {
		t.Fatalf("retry at %s: %v", later, sc)
	}
	if rc.count() != 1 {
		t.Fatalf("a retry an hour away was delivered: %d deliveries", rc.count())
	}
}
