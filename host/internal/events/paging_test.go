package events_test

import (
	"fmt"
	"testing"

	"github.com/heraldhq/herald/host/internal/events/catalog"
)

// The delivery log pages: limit after skip, newest first, with the total;
// the pages together hold every delivery once.
func TestTheDeliveryLogPagesWithSkipAndTotal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, _ := b.subscribe(t, "standard", catalog.ReportCompleted)
	for i := range 5 {
		b.emit(t, reportEvent(b.acmeWS, fmt.Sprintf("r%d", i)))
	}
	b.deliverAll(t)
	path := "/v1/events/subscriptions/" + id + "/deliveries"
	seen := map[string]bool{}
	for _, skip := range []int{0, 2, 4} {
		body := b.srv.Do(t, "GET", fmt.Sprintf("%s?limit=2&skip=%d", path, skip), b.acme, "").Want(t, 200).Body
		if body["total"] != float64(5) {
			t.Fatalf("skip %d: total %v, want 5", skip, body["total"])
		}
		page := body["deliveries"].([]any)
		if want := min(2, 5-skip); len(page) != want {
			t.Fatalf("skip %d: %d deliveries, want %d", skip, len(page), want)
		}
		for _, d := range page {
			did := d.(map[string]any)["id"].(string)
			if seen[did] {
				t.Fatalf("delivery %s on two pages", did)
			}
			seen[did] = true
		}
	}
	if len(seen) != 5 {
		t.Fatalf("the pages held %d of 5 deliveries", len(seen))
	}
	b.srv.Do(t, "GET", path+"?skip=-1", b.acme, "").Want(t, 400)
	b.srv.Do(t, "GET", path+"?skip=2", b.other, "").Want(t, 404)
}
