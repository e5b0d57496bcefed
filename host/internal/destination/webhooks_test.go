package destination_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestAWebhookSecretIsShownOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	res := b.do(t, "POST", "/v1/webhooks", b.acme, `{"url":"https://hooks.test/in?token=s3cret"}`).want(t, http.StatusCreated)
	secret, _ := res.body["secret"].(string)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if !strings.HasPrefix(secret, "whsec_") || err != nil || len(key) < 24 {
		t.Fatalf("secret %q", secret)
	}
	w := res.body["webhook"].(map[string]any)
	if w["url"] != "https://hooks.test/****" || w["name"] != "hooks.test" {
		t.Fatalf("webhook: %v", w)
	}
	list := b.do(t, "GET", "/v1/webhooks", b.acme, "").want(t, http.StatusOK)
	if strings.Contains(list.raw, secret) || strings.Contains(list.raw, "s3cret") || len(list.body["webhooks"].([]any)) != 1 {
		t.Fatalf("list: %s", list.raw)
	}
	if n := len(b.do(t, "GET", "/v1/webhooks", b.other, "").body["webhooks"].([]any)); n != 0 {
		t.Fatalf("another workspace lists %d webhooks", n)
	}
	b.do(t, "DELETE", "/v1/webhooks/"+w["id"].(string), b.other, "").want(t, http.StatusNotFound)
	b.do(t, "DELETE", "/v1/webhooks/"+w["id"].(string), b.acme, "").want(t, http.StatusOK)
	b.do(t, "POST", "/v1/webhooks", b.acme, `{"url":"ftp://x"}`).want(t, http.StatusBadRequest)
}

func TestWebhookURLsAreShownAndStoredMasked(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		const token = "XXXXSLACKTOKENXXXX1234"
		res := b.do(t, "POST", "/v1/webhooks", b.acme, `{"name":"slack","url":"https://hooks.slack.com/services/T000/B000/`+token+`"}`).want(t, http.StatusCreated)
		if strings.Contains(res.raw, token[:10]) {
			t.Errorf("create answers the token: %s", res.raw)
		}
		list := b.do(t, "GET", "/v1/webhooks", b.acme, "").want(t, http.StatusOK)
		if strings.Contains(list.raw, token[:10]) || !strings.Contains(list.raw, `"url":"https://hooks.slack.com/****1234"`) {
			t.Errorf("list: %s", list.raw)
		}
		var n int
		if err := storetest.QueryRow(context.Background(), s, `SELECT COUNT(*) FROM webhooks WHERE display_url LIKE '%SLACKTOKEN%'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("display_url holds the token in clear (%d rows, %v)", n, err)
		}
	})
}

// Issue 18: a saved webhook that pending posts use is not deleted behind
// their back. DELETE answers 409 listing exactly those posts (not another
// workspace's, not a draft, published or failed one); ?force=true deletes
// it and fails them at once with the reason, in one transaction, and their
// publish jobs then send nothing. A webhook no pending post uses deletes
// with 200 as before.
func TestDeletingAWebhookThatPendingPostsUseIsRefusedUnlessForced(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		ctx := context.Background()
		rc := newReceiver(t)
		hook := b.saveWebhook(t, b.acme, rc)
		create := func(extra string) map[string]any {
			return b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t"%s}`, hook, extra)).want(t, http.StatusOK).schedule(t)
		}
		later := create(fmt.Sprintf(`,"whenToExport":%q`, in(2*time.Hour)))
		sooner := create(fmt.Sprintf(`,"whenToExport":%q`, in(time.Hour)))
		draft := create(`,"status":"draft"`)
		// Rows no delete may touch: a published and a failed post of acme,
		// and a pending post of another workspace naming the same id.
		now := s.Now()
		other, _, err := s.EnsureWorkspaceUser(ctx, "other", "business", "o@other.test")
		if err != nil {
			t.Fatal(err)
		}
		untouched := map[string]string{}
		for _, sc := range []*store.Schedule{
			{WorkspaceID: b.acmeID, Status: store.SchedulePublished},
			{WorkspaceID: b.acmeID, Status: store.ScheduleFailed},
			{WorkspaceID: other.ID, Status: store.SchedulePending},
		} {
			sc.UserID, sc.ExportTo, sc.WhenToExport, sc.WebhookID, sc.Content = "u", "webhook", &now, &hook, `{"title":"t"}`
			if err := s.InsertSchedule(ctx, nil, sc); err != nil {
				t.Fatal(err)
			}
			untouched[sc.ID] = sc.Status
		}

		res := b.do(t, "DELETE", "/v1/webhooks/"+hook, b.acme, "").want(t, http.StatusConflict)
		var listed []string
		for _, it := range res.body["schedules"].([]any) {
			m := it.(map[string]any)
			listed = append(listed, fmt.Sprint(m["id"], " ", m["whenToExport"]))
		}
		want := []string{fmt.Sprint(sooner["id"], " ", sooner["whenToExport"]), fmt.Sprint(later["id"], " ", later["whenToExport"])}
		if !slices.Equal(listed, want) || !strings.Contains(res.body["message"].(string), "?force=true") {
			t.Fatalf("409 body %s, want the schedules %v", res.raw, want)
		}
		if n := len(b.do(t, "GET", "/v1/webhooks", b.acme, "").body["webhooks"].([]any)); n != 1 {
			t.Fatalf("a refused delete deleted the webhook (%d left)", n)
		}
		if sc := b.do(t, "GET", "/v1/scheduler/"+sooner["id"].(string), b.acme, "").schedule(t); sc["status"] != "pending" {
			t.Fatalf("a refused delete changed a post: %v", sc)
		}

		b.do(t, "DELETE", "/v1/webhooks/"+hook+"?force=true", b.acme, "").want(t, http.StatusOK)
		reason := "the saved webhook " + hook + " was deleted"
		for _, id := range []string{sooner["id"].(string), later["id"].(string)} {
			if sc := b.do(t, "GET", "/v1/scheduler/"+id, b.acme, "").schedule(t); sc["status"] != "failed" || sc["lastError"] != reason {
				t.Fatalf("after a forced delete: %v, want failed with %q", sc, reason)
			}
		}
		if sc := b.do(t, "GET", "/v1/scheduler/"+draft["id"].(string), b.acme, "").schedule(t); sc["status"] != "draft" {
			t.Fatalf("a forced delete changed a draft: %v", sc)
		}
		for id, status := range untouched {
			var got string
			if err := storetest.QueryRow(ctx, s, `SELECT status FROM schedules WHERE id = $1`, id).Scan(&got); err != nil || got != status {
				t.Fatalf("schedule %s is %q (%v), want it left %s", id, got, err, status)
			}
		}
		// Their publish jobs fall due now and send nothing.
		if _, err := storetest.Exec(ctx, s, `UPDATE jobs SET run_at = $1 WHERE workspace_id = $2`, s.Now(), b.acmeID); err != nil {
			t.Fatal(err)
		}
		b.queue.Wake("contentQueue")
		b.waitIdle(t, 10*time.Second)
		if rc.count() != 0 {
			t.Fatalf("%d deliveries for posts of a deleted webhook", rc.count())
		}

		// A webhook no pending post uses deletes as before.
		free := b.saveWebhook(t, b.acme, newReceiver(t))
		b.do(t, "DELETE", "/v1/webhooks/"+free, b.acme, "").want(t, http.StatusOK)
		b.do(t, "DELETE", "/v1/webhooks/"+free, b.acme, "").want(t, http.StatusNotFound)
	})
}
