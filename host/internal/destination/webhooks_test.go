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

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestAWebhookSecretIsShownOnce(t *testing.T) {
	t.Parallel()
	b := scheduletest.Setup(t, storetest.SQLite(t))
	res := b.Do(t, "POST", "/v1/webhooks", b.Acme, `{"url":"https://hooks.test/in?token=s3cret"}`).Want(t, http.StatusCreated)
	secret, _ := res.Body["secret"].(string)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if !strings.HasPrefix(secret, "whsec_") || err != nil || len(key) < 24 {
		t.Fatalf("secret %q", secret)
	}
	w := res.Body["webhook"].(map[string]any)
	if w["url"] != "https://hooks.test/****" || w["name"] != "hooks.test" {
		t.Fatalf("webhook: %v", w)
	}
	list := b.Do(t, "GET", "/v1/webhooks", b.Acme, "").Want(t, http.StatusOK)
	if strings.Contains(list.Raw, secret) || strings.Contains(list.Raw, "s3cret") || len(list.Body["webhooks"].([]any)) != 1 {
		t.Fatalf("list: %s", list.Raw)
	}
	if n := len(b.Do(t, "GET", "/v1/webhooks", b.Other, "").Body["webhooks"].([]any)); n != 0 {
		t.Fatalf("another workspace lists %d webhooks", n)
	}
	b.Do(t, "DELETE", "/v1/webhooks/"+w["id"].(string), b.Other, "").Want(t, http.StatusNotFound)
	b.Do(t, "DELETE", "/v1/webhooks/"+w["id"].(string), b.Acme, "").Want(t, http.StatusOK)
	b.Do(t, "POST", "/v1/webhooks", b.Acme, `{"url":"ftp://x"}`).Want(t, http.StatusBadRequest)
}

func TestWebhookURLsAreShownAndStoredMasked(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := scheduletest.Setup(t, s)
		const token = "XXXXSLACKTOKENXXXX1234"
		res := b.Do(t, "POST", "/v1/webhooks", b.Acme, `{"name":"slack","url":"https://hooks.slack.com/services/T000/B000/`+token+`"}`).Want(t, http.StatusCreated)
		if strings.Contains(res.Raw, token[:10]) {
			t.Errorf("create answers the token: %s", res.Raw)
		}
		list := b.Do(t, "GET", "/v1/webhooks", b.Acme, "").Want(t, http.StatusOK)
		if strings.Contains(list.Raw, token[:10]) || !strings.Contains(list.Raw, `"url":"https://hooks.slack.com/****1234"`) {
			t.Errorf("list: %s", list.Raw)
		}
		var n int
		if err := storetest.QueryRow(context.Background(), s, `SELECT COUNT(*) FROM webhooks WHERE display_url LIKE '%SLACKTOKEN%'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("display_url holds the token in clear (%d rows, %v)", n, err)
		}
	})
}

// A saved webhook that pending posts use is not deleted behind
// their back. DELETE answers 409 listing exactly those posts (not another
// workspace's, not a draft, published or failed one); ?force=true deletes
// it and fails them at once with the reason, in one transaction, and their
// publish jobs then send nothing. A webhook no pending post uses deletes
// with 200 as before.
func TestDeletingAWebhookThatPendingPostsUseIsRefusedUnlessForced(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := scheduletest.Setup(t, s)
		ctx := context.Background()
		rc := scheduletest.NewReceiver(t)
		hook := b.SaveWebhook(t, b.Acme, rc)
		create := func(extra string) map[string]any {
			return scheduletest.Schedule(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t"%s}`, hook, extra)).Want(t, http.StatusOK))
		}
		later := create(fmt.Sprintf(`,"whenToExport":%q`, scheduletest.In(2*time.Hour)))
		sooner := create(fmt.Sprintf(`,"whenToExport":%q`, scheduletest.In(time.Hour)))
		draft := create(`,"status":"draft"`)
		// Rows no delete may touch: a published and a failed post of acme,
		// and a pending post of another workspace naming the same id.
		now := s.Now()
		dueLater := now + time.Hour.Milliseconds()
		other, _, err := s.EnsureWorkspaceUser(ctx, "other", "business", "o@other.test")
		if err != nil {
			t.Fatal(err)
		}
		untouched := map[string]string{}
		for _, sc := range []*store.Schedule{
			{WorkspaceID: b.AcmeID, Status: store.SchedulePublished},
			{WorkspaceID: b.AcmeID, Status: store.ScheduleFailed},
			{WorkspaceID: other.ID, Status: store.SchedulePending},
		} {
			sc.UserID, sc.ExportTo, sc.WhenToExport, sc.WebhookID, sc.Content = "u", "webhook", &now, &hook, `{"title":"t"}`
			if sc.Status == store.SchedulePending {
				// Due later: a due pending row without a job is the
				// publisher reconciler's to give a job (which would fail
				// it, the webhook not being its workspace's).
				sc.WhenToExport = &dueLater
			}
			if err := s.InsertSchedule(ctx, nil, sc); err != nil {
				t.Fatal(err)
			}
			untouched[sc.ID] = sc.Status
		}

		res := b.Do(t, "DELETE", "/v1/webhooks/"+hook, b.Acme, "").Want(t, http.StatusConflict)
		var listed []string
		for _, it := range res.Body["schedules"].([]any) {
			m := it.(map[string]any)
			listed = append(listed, fmt.Sprint(m["id"], " ", m["whenToExport"]))
		}
		want := []string{fmt.Sprint(sooner["id"], " ", sooner["whenToExport"]), fmt.Sprint(later["id"], " ", later["whenToExport"])}
		if !slices.Equal(listed, want) || !strings.Contains(res.Body["message"].(string), "?force=true") {
			t.Fatalf("409 body %s, want the schedules %v", res.Raw, want)
		}
		if n := len(b.Do(t, "GET", "/v1/webhooks", b.Acme, "").Body["webhooks"].([]any)); n != 1 {
			t.Fatalf("a refused delete deleted the webhook (%d left)", n)
		}
		if sc := scheduletest.Schedule(t, b.Do(t, "GET", "/v1/scheduler/"+sooner["id"].(string), b.Acme, "")); sc["status"] != "pending" {
			t.Fatalf("a refused delete changed a post: %v", sc)
		}

		b.Do(t, "DELETE", "/v1/webhooks/"+hook+"?force=true", b.Acme, "").Want(t, http.StatusOK)
		reason := "the saved webhook " + hook + " was deleted"
		for _, id := range []string{sooner["id"].(string), later["id"].(string)} {
			if sc := scheduletest.Schedule(t, b.Do(t, "GET", "/v1/scheduler/"+id, b.Acme, "")); sc["status"] != "failed" || sc["lastError"] != reason {
				t.Fatalf("after a forced delete: %v, want failed with %q", sc, reason)
			}
		}
		if sc := scheduletest.Schedule(t, b.Do(t, "GET", "/v1/scheduler/"+draft["id"].(string), b.Acme, "")); sc["status"] != "draft" {
			t.Fatalf("a forced delete changed a draft: %v", sc)
		}
		for id, status := range untouched {
			var got string
			if err := storetest.QueryRow(ctx, s, `SELECT status FROM schedules WHERE id = $1`, id).Scan(&got); err != nil || got != status {
				t.Fatalf("schedule %s is %q (%v), want it left %s", id, got, err, status)
			}
		}
		// Their publish jobs fall due now and send nothing.
		if _, err := storetest.Exec(ctx, s, `UPDATE jobs SET run_at = $1 WHERE workspace_id = $2`, s.Now(), b.AcmeID); err != nil {
			t.Fatal(err)
		}
		b.Queue.Wake("contentQueue")
		b.WaitIdle(t, 10*time.Second)
		if rc.Count() != 0 {
			t.Fatalf("%d deliveries for posts of a deleted webhook", rc.Count())
		}

		// A webhook no pending post uses deletes as before.
		free := b.SaveWebhook(t, b.Acme, scheduletest.NewReceiver(t))
		b.Do(t, "DELETE", "/v1/webhooks/"+free, b.Acme, "").Want(t, http.StatusOK)
		b.Do(t, "DELETE", "/v1/webhooks/"+free, b.Acme, "").Want(t, http.StatusNotFound)
	})
}
