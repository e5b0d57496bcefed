package schedule_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestADuePostArrivesOnceSignedAndIsPublished(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		rc := newReceiver(t)
		hook := b.SaveWebhook(t, b.Acme, rc)
		when := time.Now().Add(time.Second)
		res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"Launch","content":"Body","whenToExport":%q,"imageBase64":%q}`,
			hook, when.UTC().Format(time.RFC3339Nano), base64.StdEncoding.EncodeToString(pngBytes))).Want(t, http.StatusOK)
		id := scheduleOf(t, res)["id"].(string)
		d := rc.Wait(t, 10*time.Second)
		if !d.Valid || d.ID != id || d.ScheduleID != id || d.Content["title"] != "Launch" || !strings.HasPrefix(d.ImageURL, "http://blobs.test/") {
			t.Fatalf("delivery: %+v", d)
		}
		if d.At.Before(when) {
			t.Fatalf("delivered %s before whenToExport", when.Sub(d.At))
		}
		sc := b.WaitStatus(t, b.Acme, id, "published", 5*time.Second)
		if sc["externalId"] != id || sc["attempts"] != float64(1) || !nonEmptyString(sc["publishedAt"]) || !isNull(sc, "lastError") {
			t.Fatalf("published schedule: %v", sc)
		}
		b.Do(t, "DELETE", "/v1/scheduler/"+id, b.Acme, "").Want(t, http.StatusConflict)
		b.WaitIdle(t, 10*time.Second)
		if n := rc.Count(); n != 1 {
			t.Fatalf("%d deliveries, want 1", n)
		}
	})
}

func TestRetryableAnswersAreRetriedAndRefusalsFailAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	for _, tc := range []struct {
		name       string
		answers    []int
		want       string
		deliveries int
		lastError  string
		// minGap is the least time between the two deliveries: the
		// receiver's Retry-After (1 s) where it sends one, while the
		// publisher's own backoff here is 100-200 ms.
		minGap time.Duration
	}{
		{"a 500 then 200 is published on the retry", []int{500}, "published", 2, "webhook endpoint answered 500", 0},
		{"a 503 with Retry-After is retried after it", []int{503}, "published", 2, "(HTTP 503)", time.Second},
		{"a 429 then 200 is published on the retry", []int{429}, "published", 2, "answered 429", 0},
		{"a 400 fails at once with the destination's message", []int{400}, "failed", 1, "webhook endpoint answered 400: title must not be empty here (HTTP 400)", 0},
		{"a 410 fails at once", []int{410}, "failed", 1, "answered 410", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t, tc.answers...)
			hook := b.SaveWebhook(t, b.Acme, rc)
			res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(0))).Want(t, http.StatusOK)
			id := scheduleOf(t, res)["id"].(string)
			sc := b.WaitStatus(t, b.Acme, id, tc.want, 15*time.Second)
			if got, _ := sc["lastError"].(string); !strings.Contains(got, tc.lastError) {
				t.Fatalf("lastError %q, want it to contain %q", got, tc.lastError)
			}
			if sc["attempts"] != float64(tc.deliveries) || rc.Count() != tc.deliveries {
				t.Fatalf("attempts %v, deliveries %d; want %d", sc["attempts"], rc.Count(), tc.deliveries)
			}
			got := rc.Deliveries()
			for _, d := range got {
				if d.ID != id || !d.Valid {
					t.Fatalf("a retry changed the webhook-id or signature: %+v", d)
				}
			}
			if tc.minGap > 0 {
				if gap := got[1].At.Sub(got[0].At); gap < tc.minGap-5*time.Millisecond { // run times are whole ms
					t.Fatalf("retried %s after the first delivery, want at least the Retry-After %s", gap, tc.minGap)
				}
			}
		})
	}
}

func TestACancelledPostIsNeverSent(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t)
	hook := b.SaveWebhook(t, b.Acme, rc)
	cancelled := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"no","whenToExport":%q}`, hook, in(3*time.Second))).Want(t, http.StatusOK))["id"].(string)
	b.Do(t, "DELETE", "/v1/scheduler/"+cancelled, b.Acme, "").Want(t, http.StatusOK)
	sent := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"yes","whenToExport":%q}`, hook, in(3500*time.Millisecond))).Want(t, http.StatusOK))["id"].(string)
	if d := rc.Wait(t, 10*time.Second); d.ID != sent {
		t.Fatalf("delivered %s, want only %s", d.ID, sent)
	}
	b.WaitIdle(t, 10*time.Second)
	if sc := scheduleOf(t, b.Do(t, "GET", "/v1/scheduler/"+cancelled, b.Acme, "")); sc["status"] != "cancelled" || rc.Count() != 1 {
		t.Fatalf("cancelled schedule: %v, deliveries %d", sc, rc.Count())
	}
}

func TestAnAttemptThatDiedIsTakenOverWithTheSameKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		rc := newReceiver(t)
		hook := b.SaveWebhook(t, b.Acme, rc)
		id := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(time.Second))).Want(t, http.StatusOK))["id"].(string)
		// An attempt on a host that then died claimed the schedule and
		// never recorded an outcome.
		if _, ok, err := s.ClaimSchedule(context.Background(), b.AcmeID, id); !ok || err != nil {
			t.Fatal(ok, err)
		}
		d := rc.Wait(t, 10*time.Second)
		sc := b.WaitStatus(t, b.Acme, id, "published", 5*time.Second)
		b.WaitIdle(t, 10*time.Second)
		if d.ID != id || sc["attempts"] != float64(2) || rc.Count() != 1 {
			t.Fatalf("delivery %+v, schedule %v, deliveries %d", d, sc, rc.Count())
		}
	})
}

func TestReconcileGivesADueScheduleWithoutAJobANewOne(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		rc := newReceiver(t)
		hook := b.SaveWebhook(t, b.Acme, rc)
		id := b.InsertOrphan(t, hook)
		if err := b.Pub.Reconcile(context.Background()); err != nil {
			t.Fatal(err)
		}
		if d := rc.Wait(t, 10*time.Second); d.ID != id || d.Content["title"] != "orphan" {
			t.Fatalf("delivery: %+v", d)
		}
		b.WaitStatus(t, b.Acme, id, "published", 5*time.Second)
		if err := b.Pub.Reconcile(context.Background()); err != nil {
			t.Fatal(err)
		}
		b.WaitIdle(t, 10*time.Second)
		if rc.Count() != 1 {
			t.Fatalf("%d deliveries after a second reconcile", rc.Count())
		}
	})
}

func TestAPostForADeletedWebhookFailsWithTheReason(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t)
	hook := b.SaveWebhook(t, b.Acme, rc)
	id := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(time.Second))).Want(t, http.StatusOK))["id"].(string)
	// A delete refuses while the post is pending (package destination);
	// one that raced the post's creation leaves the webhook deleted under
	// a pending post.
	if _, err := storetest.Exec(context.Background(), b.Store, `UPDATE webhooks SET deleted_at = $1, sealed = '' WHERE id = $2`, b.Store.Now(), hook); err != nil {
		t.Fatal(err)
	}
	sc := b.WaitStatus(t, b.Acme, id, "failed", 10*time.Second)
	if !strings.Contains(sc["lastError"].(string), "was deleted") || rc.Count() != 0 {
		t.Fatalf("schedule %v, deliveries %d", sc, rc.Count())
	}
}

// isNull reports whether the JSON object m has key with the value null
// (README: such fields are null until set, not missing).
func isNull(m map[string]any, key string) bool {
	v, ok := m[key]
	return ok && v == nil
}
