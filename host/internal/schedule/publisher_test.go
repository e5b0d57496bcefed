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
		hook := b.saveWebhook(t, b.acme, rc)
		when := time.Now().Add(time.Second)
		res := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"Launch","content":"Body","whenToExport":%q,"imageBase64":%q}`,
			hook, when.UTC().Format(time.RFC3339Nano), base64.StdEncoding.EncodeToString(pngBytes))).want(t, http.StatusOK)
		id := res.schedule(t)["id"].(string)
		d := rc.wait(t, 10*time.Second)
		if !d.valid || d.id != id || d.scheduleID != id || d.content["title"] != "Launch" || !strings.HasPrefix(d.imageURL, "http://blobs.test/") {
			t.Fatalf("delivery: %+v", d)
		}
		if d.at.Before(when) {
			t.Fatalf("delivered %s before whenToExport", when.Sub(d.at))
		}
		sc := b.waitStatus(t, b.acme, id, "published", 5*time.Second)
		if sc["externalId"] != id || sc["attempts"] != float64(1) || !nonEmptyString(sc["publishedAt"]) || !isNull(sc, "lastError") {
			t.Fatalf("published schedule: %v", sc)
		}
		b.do(t, "DELETE", "/v1/scheduler/"+id, b.acme, "").want(t, http.StatusConflict)
		b.waitIdle(t, 10*time.Second)
		if n := rc.count(); n != 1 {
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
			hook := b.saveWebhook(t, b.acme, rc)
			res := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(0))).want(t, http.StatusOK)
			id := res.schedule(t)["id"].(string)
			sc := b.waitStatus(t, b.acme, id, tc.want, 15*time.Second)
			if got, _ := sc["lastError"].(string); !strings.Contains(got, tc.lastError) {
				t.Fatalf("lastError %q, want it to contain %q", got, tc.lastError)
			}
			if sc["attempts"] != float64(tc.deliveries) || rc.count() != tc.deliveries {
				t.Fatalf("attempts %v, deliveries %d; want %d", sc["attempts"], rc.count(), tc.deliveries)
			}
			rc.mu.Lock()
			defer rc.mu.Unlock()
			for _, d := range rc.deliveries {
				if d.id != id || !d.valid {
					t.Fatalf("a retry changed the webhook-id or signature: %+v", d)
				}
			}
			if tc.minGap > 0 {
				if gap := rc.deliveries[1].at.Sub(rc.deliveries[0].at); gap < tc.minGap-5*time.Millisecond { // run times are whole ms
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
	hook := b.saveWebhook(t, b.acme, rc)
	cancelled := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"no","whenToExport":%q}`, hook, in(3*time.Second))).want(t, http.StatusOK).schedule(t)["id"].(string)
	b.do(t, "DELETE", "/v1/scheduler/"+cancelled, b.acme, "").want(t, http.StatusOK)
	sent := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"yes","whenToExport":%q}`, hook, in(3500*time.Millisecond))).want(t, http.StatusOK).schedule(t)["id"].(string)
	if d := rc.wait(t, 10*time.Second); d.id != sent {
		t.Fatalf("delivered %s, want only %s", d.id, sent)
	}
	b.waitIdle(t, 10*time.Second)
	if sc := b.do(t, "GET", "/v1/scheduler/"+cancelled, b.acme, "").schedule(t); sc["status"] != "cancelled" || rc.count() != 1 {
		t.Fatalf("cancelled schedule: %v, deliveries %d", sc, rc.count())
	}
}

func TestAnAttemptThatDiedIsTakenOverWithTheSameKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		rc := newReceiver(t)
		hook := b.saveWebhook(t, b.acme, rc)
		id := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(time.Second))).want(t, http.StatusOK).schedule(t)["id"].(string)
		// An attempt on a host that then died claimed the schedule and
		// never recorded an outcome.
		if _, ok, err := s.ClaimSchedule(context.Background(), b.acmeID, id); !ok || err != nil {
			t.Fatal(ok, err)
		}
		d := rc.wait(t, 10*time.Second)
		sc := b.waitStatus(t, b.acme, id, "published", 5*time.Second)
		b.waitIdle(t, 10*time.Second)
		if d.id != id || sc["attempts"] != float64(2) || rc.count() != 1 {
			t.Fatalf("delivery %+v, schedule %v, deliveries %d", d, sc, rc.count())
		}
	})
}

func TestReconcileGivesADueScheduleWithoutAJobANewOne(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		rc := newReceiver(t)
		hook := b.saveWebhook(t, b.acme, rc)
		now := s.Now()
		sc := &store.Schedule{WorkspaceID: b.acmeID, UserID: b.acmeUser, ExportTo: "webhook", Status: store.SchedulePending,
			WhenToExport: &now, WebhookID: &hook, Content: `{"title":"orphan"}`}
		if err := s.InsertSchedule(context.Background(), nil, sc); err != nil {
			t.Fatal(err)
		}
		if err := b.pub.Reconcile(context.Background()); err != nil {
			t.Fatal(err)
		}
		if d := rc.wait(t, 10*time.Second); d.id != sc.ID || d.content["title"] != "orphan" {
			t.Fatalf("delivery: %+v", d)
		}
		b.waitStatus(t, b.acme, sc.ID, "published", 5*time.Second)
		if err := b.pub.Reconcile(context.Background()); err != nil {
			t.Fatal(err)
		}
		b.waitIdle(t, 10*time.Second)
		if rc.count() != 1 {
			t.Fatalf("%d deliveries after a second reconcile", rc.count())
		}
	})
}

func TestAPostForADeletedWebhookFailsWithTheReason(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t)
	hook := b.saveWebhook(t, b.acme, rc)
	id := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(time.Second))).want(t, http.StatusOK).schedule(t)["id"].(string)
	// A delete refuses while the post is pending (package destination);
	// one that raced the post's creation leaves the webhook deleted under
	// a pending post.
	if _, err := storetest.Exec(context.Background(), b.store, `UPDATE webhooks SET deleted_at = $1, sealed = '' WHERE id = $2`, b.store.Now(), hook); err != nil {
		t.Fatal(err)
	}
	sc := b.waitStatus(t, b.acme, id, "failed", 10*time.Second)
	if !strings.Contains(sc["lastError"].(string), "was deleted") || rc.count() != 0 {
		t.Fatalf("schedule %v, deliveries %d", sc, rc.count())
	}
}

// isNull reports whether the JSON object m has key with the value null
// (README: such fields are null until set, not missing).
func isNull(m map[string]any, key string) bool {
	v, ok := m[key]
	return ok && v == nil
}
