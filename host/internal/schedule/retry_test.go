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
	hook := b.SaveWebhook(t, b.Acme, rc)
	id := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(0))).Want(t, http.StatusOK))["id"].(string)
	b.WaitStatus(t, b.Acme, id, "failed", 15*time.Second)

	// Only the owner's workspace sees it; a bad time names the field.
	b.Do(t, "POST", "/v1/scheduler/"+id+"/retry", b.Other, `{}`).Want(t, http.StatusNotFound)
	b.Do(t, "POST", "/v1/scheduler/"+id+"/retry", b.Acme, `{"whenToExport":"tomorrow"}`).Want(t, http.StatusBadRequest)

	sc := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/"+id+"/retry", b.Acme, `{}`).Want(t, http.StatusOK))
	if sc["status"] != "pending" && sc["status"] != "publishing" && sc["status"] != "published" {
		t.Fatalf("after retry: status %v", sc["status"])
	}
	sc = b.WaitStatus(t, b.Acme, id, "published", 15*time.Second)
	if rc.Count() != 2 {
		t.Fatalf("deliveries %d, want 2", rc.Count())
	}
	if d := rc.Deliveries()[1]; d.ID != id || !d.Valid {
		t.Fatalf("the retry changed the webhook-id or signature: %+v", d)
	}

	// A published post is not retried.
	res := b.Do(t, "POST", "/v1/scheduler/"+id+"/retry", b.Acme, `{}`).Want(t, http.StatusConflict)
	if !strings.Contains(res.Raw, "only a failed schedule") {
		t.Fatalf("409 body: %s", res.Raw)
	}
}

// A retry at a later whenToExport waits for it.
func TestARetryAtALaterTimeWaits(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t, 400)
	hook := b.SaveWebhook(t, b.Acme, rc)
	id := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(0))).Want(t, http.StatusOK))["id"].(string)
	b.WaitStatus(t, b.Acme, id, "failed", 15*time.Second)
	later := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	sc := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/"+id+"/retry", b.Acme, fmt.Sprintf(`{"whenToExport":%q}`, later)).Want(t, http.StatusOK))
	if sc["status"] != "pending" || !strings.HasPrefix(fmt.Sprint(sc["whenToExport"]), later[:16]) {
		t.Fatalf("retry at %s: %v", later, sc)
	}
	if rc.Count() != 1 {
		t.Fatalf("a retry an hour away was delivered: %d deliveries", rc.Count())
	}
}
