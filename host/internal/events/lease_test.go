package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/events"
	"github.com/heraldhq/herald/host/internal/events/catalog"
)

// An attempt is given up before its claim's lease ends, so its outcome is
// still the claiming host's to record: a receiver that never answers
// leaves a retry with its error, not a delivery whose lease ran out with
// nothing recorded (which another host would send again while the first
// attempt may still arrive).
func TestAnAttemptEndsBeforeItsLease(t *testing.T) {
	t.Parallel()
	b := setup(t)
	done := make(chan struct{})
	var sent atomic.Int32
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(done) })
	body, _ := json.Marshal(map[string]any{"url": hang.URL + "/hook", "events": []string{catalog.ReportCompleted}, "format": "standard"})
	id := b.srv.Do(t, "POST", "/v1/events/subscriptions", b.acme, string(body)).Want(t, 201).Body["subscription"].(map[string]any)["id"].(string)
	b.emit(t, reportEvent(b.acmeWS, "r1"))

	// Host A claims and sends; host B looks for due deliveries the whole
	// time A's attempt lasts, as another host would.
	opt := events.DelivererOptions{Lease: 2 * time.Second, Backoff: []time.Duration{time.Hour}}
	opt.Host = "a"
	a := events.NewDeliverer(b.svc, opt)
	opt.Host = "b"
	other := events.NewDeliverer(b.svc, opt)
	finished := make(chan error, 1)
	go func() {
		n, err := a.DeliverOnce(context.Background(), 16)
		if err == nil && n != 1 {
			err = fmt.Errorf("host A sent %d deliveries, want 1", n)
		}
		finished <- err
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case err := <-finished:
			if err != nil {
				t.Fatal(err)
			}
			waiting = false
		case <-tick.C:
			if _, err := other.DeliverOnce(context.Background(), 16); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := sent.Load(); n != 1 {
		t.Fatalf("the receiver got %d requests while host A's attempt lasted, want 1: the claim's lease ran out under a live attempt", n)
	}
	got := deliveries(t, b, id)[0].(map[string]any)
	if got["status"] != "retrying" && got["status"] != "pending" || got["attempts"] != float64(1) || got["error"] == nil || got["nextAttemptAt"] == nil {
		t.Fatalf("want the timed-out attempt recorded with a retry: %v", got)
	}
}
