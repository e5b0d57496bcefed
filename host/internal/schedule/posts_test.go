package schedule_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// postOf is the "post" object of an answer.
func postOf(t *testing.T, r response) map[string]any {
	t.Helper()
	p, ok := r.Body["post"].(map[string]any)
	if !ok {
		t.Fatalf("no post in %s", r.Raw)
	}
	return p
}

// schedulesOf maps a post's schedules by destination (webhooks by id).
func schedulesOf(post map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, raw := range post["schedules"].([]any) {
		sc := raw.(map[string]any)
		key := sc["exportTo"].(string)
		if id, ok := sc["webhookId"].(string); ok {
			key += "/" + id
		}
		out[key] = sc
	}
	return out
}

func TestAPostToThreeDestinationsWhereOneFailsPublishesTheOthersOnceAndRetriesTheFailedOne(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	wp := scheduletest.NewFakeWordPress(t)
	b.Do(t, "PUT", "/v1/destinations/wordpress/connection", b.Acme, wp.Credentials(scheduletest.WPPassword)).Want(t, http.StatusOK)
	good := newReceiver(t)
	// The second receiver refuses the first delivery (400: not retried),
	// then accepts: it was fixed.
	broken := newReceiver(t, http.StatusBadRequest)
	goodID, brokenID := b.SaveWebhook(t, b.Acme, good), b.SaveWebhook(t, b.Acme, broken)

	res := b.Do(t, "POST", "/v1/posts", b.Acme, fmt.Sprintf(`{"title":"Launch","text":"We shipped","content":"<p>We shipped</p>","whenToExport":%q,
		"destinations":[{"exportTo":"wordpress","contentToExport":{"title":"Launch (blog)"}},
		{"exportTo":"webhook","webhookId":%q,"contentToExport":{"text":"Short version"}},
		{"exportTo":"webhook","webhookId":%q}]}`, in(0), goodID, brokenID)).Want(t, http.StatusOK)
	post := postOf(t, res)
	postID := post["id"].(string)
	scs := schedulesOf(post)
	if len(scs) != 3 {
		t.Fatalf("%d schedules, want 3: %s", len(scs), res.Raw)
	}
	for key, sc := range scs {
		if sc["postId"] != postID {
			t.Fatalf("schedule %s has postId %v, want %s", key, sc["postId"], postID)
		}
	}
	wpID, goodSc, brokenSc := scs["wordpress"]["id"].(string), scs["webhook/"+goodID]["id"].(string), scs["webhook/"+brokenID]["id"].(string)
	b.WaitStatus(t, b.Acme, wpID, "published", 15*time.Second)
	b.WaitStatus(t, b.Acme, goodSc, "published", 15*time.Second)
	failed := b.WaitStatus(t, b.Acme, brokenSc, "failed", 15*time.Second)
	if !strings.Contains(fmt.Sprint(failed["lastError"]), "400") {
		t.Fatalf("lastError %v, want the receiver's 400", failed["lastError"])
	}
	b.WaitIdle(t, 15*time.Second)
	if p := postOf(t, b.Do(t, "GET", "/v1/posts/"+postID, b.Acme, "").Want(t, http.StatusOK)); p["status"] != "partially_failed" {
		t.Fatalf("post status %v, want partially_failed", p["status"])
	}
	// Each destination got its own variant.
	if got := wp.Posts(); len(got) != 1 || got[0] != "Launch (blog)" {
		t.Fatalf("wordpress posts %v, want one titled from its variant", got)
	}
	if d := good.Deliveries(); len(d) != 1 || d[0].Content["text"] != "Short version" || d[0].Content["title"] != "Launch" {
		t.Fatalf("good receiver got %v, want one delivery of its variant", d)
	}

	// Retrying the post retries only the failed destination.
	retry := b.Do(t, "POST", "/v1/posts/"+postID+"/retry", b.Acme, `{}`).Want(t, http.StatusOK)
	if outs := fmt.Sprint(retry.Body["outcomes"]); strings.Count(outs, "retried") != 1 {
		t.Fatalf("outcomes %s, want exactly one retried", outs)
	}
	b.WaitStatus(t, b.Acme, brokenSc, "published", 15*time.Second)
	b.WaitIdle(t, 15*time.Second)
	if p := postOf(t, b.Do(t, "GET", "/v1/posts/"+postID, b.Acme, "").Want(t, http.StatusOK)); p["status"] != "published" {
		t.Fatalf("post status %v after the retry, want published", p["status"])
	}
	if n, g, w := broken.Count(), good.Count(), len(wp.Posts()); n != 2 || g != 1 || w != 1 {
		t.Fatalf("deliveries: broken %d (want the refused one and the retry), good %d, wordpress %d (want 1 each)", n, g, w)
	}
	// A published post cannot be retried again.
	b.Do(t, "POST", "/v1/posts/"+postID+"/retry", b.Acme, `{}`).Want(t, http.StatusConflict)
	// Another workspace does not see it.
	b.Do(t, "GET", "/v1/posts/"+postID, b.Other, "").Want(t, http.StatusNotFound)
	b.Do(t, "DELETE", "/v1/posts/"+postID, b.Other, "").Want(t, http.StatusNotFound)
}

func TestTheCreateRouteTakesExportToAsAListOrOneString(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t)
	hook := b.SaveWebhook(t, b.Acme, rc)
	wp := scheduletest.NewFakeWordPress(t)
	b.Do(t, "PUT", "/v1/destinations/wordpress/connection", b.Acme, wp.Credentials(scheduletest.WPPassword)).Want(t, http.StatusOK)
	res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":["webhook","wordpress"],"webhookId":%q,"title":"T","content":"C","status":"draft"}`, hook)).Want(t, http.StatusOK)
	post := postOf(t, res)
	if scs := schedulesOf(post); len(scs) != 2 || post["status"] != "draft" || res.Body["message"] != "Draft saved" {
		t.Fatalf("list create answered %s", res.Raw)
	}
	one := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"T","status":"draft"}`, hook)).Want(t, http.StatusOK))
	if one["exportTo"] != "webhook" || one["postId"] == nil {
		t.Fatalf("single create answered %v", one)
	}
	// Deleting the post removes its drafts, and the post with them.
	b.Do(t, "DELETE", "/v1/posts/"+post["id"].(string), b.Acme, "").Want(t, http.StatusOK)
	b.Do(t, "GET", "/v1/posts/"+post["id"].(string), b.Acme, "").Want(t, http.StatusNotFound)
}

func TestAPostOverThePlansDestinationsIsRefusedNamingTheField(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	// business allows 10 destinations a post.
	var dests []string
	for range 11 {
		dests = append(dests, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q}`, b.SaveWebhook(t, b.Acme, newReceiver(t))))
	}
	body := fmt.Sprintf(`{"title":"T","whenToExport":%q,"destinations":[%s]}`, in(time.Hour), strings.Join(dests, ","))
	res := b.Do(t, "POST", "/v1/posts", b.Acme, body).Want(t, http.StatusForbidden)
	if msg := fmt.Sprint(res.Body["message"]); !strings.HasPrefix(msg, "destinations: 11 destinations, the business plan allows 10") {
		t.Fatalf("message %q", msg)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"title":"T","whenToExport":"` + in(time.Hour) + `"}`, "destinations is required"},
		{`{"title":"T","whenToExport":"` + in(time.Hour) + `","destinations":[{"exportTo":"myspace"}]}`, `destinations[0]: exportTo "myspace" is not a configured destination`},
		{`{"title":"T","whenToExport":"` + in(time.Hour) + `","destinations":[` + dests[0] + `,` + dests[0] + `]}`, "destinations[1] repeats destinations[0]"},
		{`{"title":"T","whenToExport":"` + in(time.Hour) + `","destinations":[` + dests[0] + `,{"exportTo":"wordpress"}]}`, "destinations[1]: contentToExport is not valid for wordpress"},
	} {
		res := b.Do(t, "POST", "/v1/posts", b.Acme, tc.body).Want(t, http.StatusBadRequest)
		if msg := fmt.Sprint(res.Body["message"]); !strings.Contains(msg, tc.want) {
			t.Errorf("message %q, want %q", msg, tc.want)
		}
	}
}
