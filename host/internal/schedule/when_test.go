package schedule_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A past whenToExport within the bounds (2000-01-01 to ten years ahead)
// publishes at once; the bounds themselves are in the table of
// TestCreateRefusesEveryBadRequestWith400.
func TestAPastWhenToExportPublishesNow(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t)
	hook := b.SaveWebhook(t, b.Acme, rc)
	res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"Old","whenToExport":"2000-01-01T00:00:00Z"}`, hook)).Want(t, http.StatusOK)
	id := scheduleOf(t, res)["id"].(string)
	if d := rc.Wait(t, 10*time.Second); d.ID != id {
		t.Fatalf("delivery: %+v", d)
	}
}
