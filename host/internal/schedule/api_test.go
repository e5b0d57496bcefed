package schedule_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestCreateRefusesEveryBadRequestWith400(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	rc := newReceiver(t)
	hook := b.SaveWebhook(t, b.Acme, rc)
	otherHook := b.SaveWebhook(t, b.Other, newReceiver(t))
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/text.png":
			w.Write([]byte("this is not an image at all"))
		case "/huge.png":
			w.Write(pngBytes)
			w.Write(make([]byte, blob.MaxBytes))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(files.Close)
	when := in(time.Hour)
	ok := fmt.Sprintf(`"exportTo":"webhook","webhookId":%q,"whenToExport":%q`, hook, when)
	text := base64.StdEncoding.EncodeToString([]byte("plain text, not an image"))

	for _, tc := range []struct {
		name, body, wantMessage string
	}{
		{"a missing exportTo is refused", `{"title":"t","whenToExport":"` + when + `"}`, "exportTo is required"},
		{"an unknown exportTo is refused", `{"exportTo":"myspace","title":"t","whenToExport":"` + when + `"}`, `exportTo "myspace" is not a configured destination`},
		{"missing content is refused", `{` + ok + `}`, "contentToExport is required unless title, text or content is passed"},
		{"a pending post without whenToExport is refused", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t"}`, hook), "whenToExport is required unless status is draft"},
		{"an invalid whenToExport is refused", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":"next tuesday"}`, hook), `whenToExport "next tuesday" is not an ISO-8601 time`},
		{"a whenToExport before 2000 is refused", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":"1999-12-31T23:59:59Z"}`, hook), "whenToExport 1999-12-31T23:59:59Z is before 2000-01-01"},
		{"a whenToExport more than 10 years ahead is refused", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, hook, in(10*366*24*time.Hour)), "is more than 10 years ahead"},
		{"an unknown status is refused", `{` + ok + `,"title":"t","status":"published"}`, "status must be pending or draft"},
		{"confirm false is refused", `{` + ok + `,"title":"t","confirm":false}`, "confirm must be true"},
		{"webhook without webhookId is refused", `{"exportTo":"webhook","title":"t","whenToExport":"` + when + `"}`, "webhookId is required when exportTo is webhook"},
		{"an unknown webhookId is refused", `{"exportTo":"webhook","webhookId":"nope","title":"t","whenToExport":"` + when + `"}`, `webhookId "nope" is not a saved webhook`},
		{"another workspace's webhookId is refused", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q}`, otherHook, when), "is not a saved webhook of this workspace"},
		{"missing destination keys are named", `{"exportTo":"wordpress","text":"body only","whenToExport":"` + when + `"}`, "contentToExport.title is required by wordpress; contentToExport.content is required by wordpress"},
		{"an unconnected destination is refused for a pending post", `{"exportTo":"wordpress","title":"t","content":"c","whenToExport":"` + when + `"}`, "wordpress is not connected for this workspace"},
		{"an http imageUrl is refused", `{` + ok + `,"title":"t","imageUrl":"http://img.test/a.png"}`, "imageUrl must be an https URL or a data: URL"},
		{"an ftp imageUrl is refused", `{` + ok + `,"title":"t","imageUrl":"ftp://img.test/a.png"}`, "imageUrl must be an https URL or a data: URL"},
		{"an ftp download_url is refused", `{` + ok + `,"title":"t","image":{"download_url":"ftp://files.test/a.png","file_id":"f1"}}`, "image.download_url must be an http(s) URL"},
		{"bad base64 is refused", `{` + ok + `,"title":"t","imageBase64":"%%%not base64%%%"}`, "imageBase64 is not valid base64"},
		{"base64 that is not an image is refused", `{` + ok + `,"title":"t","imageBase64":"` + text + `","imageFileName":"x.png"}`, "imageBase64 is not a PNG, JPEG, GIF or WebP image"},
		{"a non-image MIME type is refused", `{` + ok + `,"title":"t","imageBase64":"` + base64.StdEncoding.EncodeToString(pngBytes) + `","imageMimeType":"application/pdf"}`, `imageBase64 has type "application/pdf", which is not an image`},
		{"a data URL that is not an image is refused", `{` + ok + `,"title":"t","imageUrl":"data:image/png;base64,` + text + `"}`, "imageUrl is not a PNG, JPEG, GIF or WebP image"},
		{"a data URL without base64 is refused", `{` + ok + `,"title":"t","imageUrl":"data:image/png,abc"}`, "imageUrl must be a base64 data: URL"},
		{"a download that fails is refused", `{` + ok + `,"title":"t","image":{"download_url":"` + files.URL + `/gone.png","file_id":"f1"}}`, "image.download_url could not be fetched: " + strings.TrimPrefix(files.URL, "http://") + " answered 404"},
		{"a download that is not an image is refused", `{` + ok + `,"title":"t","image":{"download_url":"` + files.URL + `/text.png","file_id":"f1","mime_type":"image/png"}}`, "image is not a PNG, JPEG, GIF or WebP image"},
		{"a download that is too large is refused", `{` + ok + `,"title":"t","image":{"download_url":"` + files.URL + `/huge.png","file_id":"f1"}}`, "image.download_url is larger than the 20 MiB image limit"},
		{"an image without download_url is refused", `{` + ok + `,"title":"t","image":{"file_id":"f1"}}`, "image.download_url is required"},
		{"a data URL anywhere else in contentToExport is refused", `{` + ok + `,"contentToExport":{"title":"t","gallery":[{"src":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(pngBytes) + `"}]}}`,
			"contentToExport.gallery[0].src holds an image data: URL: raw image bytes are not stored"},
		{"a data URL inside HTML content is refused", `{` + ok + `,"title":"t","content":"<p>Hi</p><img src=\"data:image/png;base64,` + base64.StdEncoding.EncodeToString(pngBytes) + `\">"}`,
			"contentToExport.content holds an image data: URL"},
		{"a base64 data URL of another type is refused", `{` + ok + `,"contentToExport":{"title":"t","file":"data:application/octet-stream;base64,` + base64.StdEncoding.EncodeToString(pngBytes) + `"}}`,
			"contentToExport.file holds a base64 data: URL"},
		{"raw base64 image bytes in contentToExport are refused", `{` + ok + `,"contentToExport":{"title":"t","cover":"` + base64.StdEncoding.EncodeToString(pngBytes) + `"}}`,
			"contentToExport.cover holds base64 image bytes"},
		{"an imageAlt over 1,000 characters is refused", `{` + ok + `,"title":"t","imageBase64":"` + base64.StdEncoding.EncodeToString(pngBytes) + `","imageAlt":"` + strings.Repeat("a", 1001) + `"}`, "imageAlt is 1001 characters; the limit is 1000"},
		{"an imageFileName over 255 characters is refused", `{` + ok + `,"title":"t","imageBase64":"` + base64.StdEncoding.EncodeToString(pngBytes) + `","imageFileName":"` + strings.Repeat("a", 256) + `.png"}`, "imageFileName is 260 characters; the limit is 255"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, tc.body).Want(t, http.StatusBadRequest)
			if msg, _ := res.Body["message"].(string); !strings.Contains(msg, tc.wantMessage) {
				t.Fatalf("message %q, want it to contain %q", msg, tc.wantMessage)
			}
		})
	}
	if list := b.Do(t, "GET", "/v1/scheduler", b.Acme, "").Want(t, http.StatusOK); list.Body["total"] != float64(0) {
		t.Fatalf("refused requests stored schedules: %s", list.Raw)
	}
}

func TestAGuardedDownloadRefusesLoopbackUnlessAllowed(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{SecretKey: secretKey, NoCIDRs: true})
	hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(pngBytes) }))
	t.Cleanup(files.Close)
	res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q,"image":{"download_url":%q}}`,
		hook, in(time.Hour), files.URL+"/a.png")).Want(t, http.StatusBadRequest)
	if msg := res.Body["message"].(string); !strings.Contains(msg, "address is not allowed") || strings.Contains(msg, "/a.png") || strings.Contains(msg, "127.0.0.1") {
		t.Fatalf("message %q: want a refusal that names neither the URL's path nor the resolved address", msg)
	}
}

func TestCreateAnswersSPECsShapeAndStoresTimesInUTC(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
	// Far ahead but within the ten years whenToExport may be.
	year := time.Now().Year() + 5
	res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,
		"contentToExport":{"slug":"hello","title":"old"},"title":"Hello","text":"Body","whenToExport":"%d-01-02T17:04:05+02:00","confirm":true}`, hook, year)).Want(t, http.StatusOK)
	if res.Body["message"] != "Post scheduled" {
		t.Fatalf("message: %v", res.Body["message"])
	}
	sc := scheduleOf(t, res)
	for _, k := range []string{"id", "_id", "exportTo", "status", "whenToExport", "webhookId", "contentToExport", "createdAt", "updatedAt"} {
		if _, ok := sc[k]; !ok {
			t.Fatalf("schedule lacks %s: %v", k, sc)
		}
	}
	if sc["id"] != sc["_id"] || sc["status"] != "pending" || sc["exportTo"] != "webhook" || sc["webhookId"] != hook {
		t.Fatalf("schedule: %v", sc)
	}
	if want := fmt.Sprintf("%d-01-02T15:04:05.000Z", year); sc["whenToExport"] != want {
		t.Fatalf("whenToExport %v, want UTC %s", sc["whenToExport"], want)
	}
	content := sc["contentToExport"].(map[string]any)
	if content["title"] != "Hello" || content["text"] != "Body" || content["slug"] != "hello" {
		t.Fatalf("title and text were not merged into contentToExport: %v", content)
	}
	got := b.Do(t, "GET", "/v1/scheduler/"+sc["id"].(string), b.Acme, "").Want(t, http.StatusOK)
	if got.Body["message"] != "Schedule fetched" || scheduleOf(t, got)["whenToExport"] != sc["whenToExport"] {
		t.Fatalf("get: %s", got.Raw)
	}

	draft := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"wordpress","status":"draft","title":"T","content":"C"}`).Want(t, http.StatusOK)
	d := scheduleOf(t, draft)
	if draft.Body["message"] != "Draft saved" || d["status"] != "draft" || d["whenToExport"] != nil || d["webhookId"] != nil {
		t.Fatalf("draft without a time and not connected: %s", draft.Raw)
	}
}

func TestImagesAreStoredAndOnlyTheirURLIsKept(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(pngBytes) }))
	t.Cleanup(files.Close)
	b64 := base64.StdEncoding.EncodeToString(pngBytes)
	for _, tc := range []struct {
		name, image string
		rehosted    bool
	}{
		{"an https imageUrl is kept as is", `"imageUrl":"https://cdn.example.com/a.png"`, false},
		{"a data imageUrl is re-hosted", `"imageUrl":"data:image/png;base64,` + b64 + `"`, true},
		{"raw imageBase64 is re-hosted", `"imageBase64":"` + b64 + `","imageFileName":"a.png","imageMimeType":"image/png"`, true},
		{"a data URL in imageBase64 is re-hosted", `"imageBase64":"data:image/png;base64,` + b64 + `"`, true},
		{"a data URL inside contentToExport is re-hosted", `"contentToExport":{"imageUrl":"data:image/png;base64,` + b64 + `"}`, true},
		{"an uploaded file is downloaded at once and re-hosted", `"image":{"download_url":"` + files.URL + `/tmp/a?sig=1","file_id":"f1","mime_type":"image/png","file_name":"a.png"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q,%s}`, hook, in(time.Hour), tc.image)).Want(t, http.StatusOK)
			url, _ := scheduleOf(t, res)["contentToExport"].(map[string]any)["imageUrl"].(string)
			if tc.rehosted != strings.HasPrefix(url, "http://blobs.test/v1/blobs/") || url == "" {
				t.Fatalf("imageUrl %q, re-hosted want %v", url, tc.rehosted)
			}
			if strings.Contains(res.Raw, b64[:40]) {
				t.Fatal("the response carries the image bytes")
			}
			var content string
			storetest.QueryRow(context.Background(), b.Store, `SELECT content FROM schedules WHERE id = $1`, scheduleOf(t, res)["id"]).Scan(&content)
			if strings.Contains(content, b64[:40]) || strings.Contains(content, "data:") {
				t.Fatalf("the stored schedule carries image bytes: %s", content)
			}
		})
	}
}

func TestSchedulerAuthFollowsPlansAndSessions(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	proSession, _ := auth.SignSession(jwtSecret, b.ProID, b.ProUserID, time.Hour)
	badSession, _ := auth.SignSession("another-secret", b.ProID, b.ProUserID, time.Hour)
	for _, tc := range []struct {
		name, authz string
		want        int
	}{
		{"no credentials get 401", "", http.StatusUnauthorized},
		{"an invalid API key gets 401", "hk_doesnotexist", http.StatusUnauthorized},
		{"a forged session gets 401", "Bearer " + badSession, http.StatusUnauthorized},
		{"a business API key is allowed", b.Acme, http.StatusOK},
		{"a pro API key gets 403", b.Pro, http.StatusForbidden},
		{"a pro session is allowed", "Bearer " + proSession, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, path := range []string{"/v1/scheduler", "/v1/webhooks", "/v1/destinations"} {
				if session, ok := strings.CutPrefix(tc.authz, "Bearer "); ok {
					// apitest sends API keys; a session goes in Authorization.
					req, _ := http.NewRequest("GET", b.URL+path, nil)
					req.Header.Set("Authorization", "Bearer "+session)
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					res.Body.Close()
					if res.StatusCode != tc.want {
						t.Fatalf("GET %s with a session: status %d, want %d", path, res.StatusCode, tc.want)
					}
					continue
				}
				res := b.Do(t, "GET", path, tc.authz, "").Want(t, tc.want)
				if tc.want == http.StatusForbidden && !strings.Contains(res.Body["message"].(string), "business plan or higher") {
					t.Fatalf("403 message: %s", res.Raw)
				}
			}
		})
	}
}

func TestListPagesByTwentyWithTotal(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	for i := range 45 {
		b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"wordpress","status":"draft","title":"post %d","content":"c"}`, i)).Want(t, http.StatusOK)
	}
	b.Do(t, "POST", "/v1/scheduler/create", b.Other, `{"exportTo":"wordpress","status":"draft","title":"theirs","content":"c"}`).Want(t, http.StatusOK)
	seen := map[string]bool{}
	for _, tc := range []struct{ skip, want int }{{0, 20}, {20, 20}, {40, 5}, {45, 0}} {
		res := b.Do(t, "GET", fmt.Sprintf("/v1/scheduler?skip=%d", tc.skip), b.Acme, "").Want(t, http.StatusOK)
		list := res.Body["schedulers"].([]any)
		if len(list) != tc.want || res.Body["total"] != float64(45) || !nonEmptyString(res.Body["message"]) {
			t.Fatalf("skip %d: %d items, total %v", tc.skip, len(list), res.Body["total"])
		}
		for _, it := range list {
			seen[it.(map[string]any)["id"].(string)] = true
		}
	}
	if len(seen) != 45 {
		t.Fatalf("pages overlap or miss: %d distinct", len(seen))
	}
	first := b.Do(t, "GET", "/v1/scheduler", b.Acme, "").Body["schedulers"].([]any)[0].(map[string]any)
	if first["contentToExport"].(map[string]any)["title"] != "post 44" {
		t.Fatalf("newest first: %v", first)
	}
	b.Do(t, "GET", "/v1/scheduler?skip=-1", b.Acme, "").Want(t, http.StatusBadRequest)
	b.Do(t, "GET", "/v1/scheduler?skip=abc", b.Acme, "").Want(t, http.StatusBadRequest)
}

func TestDeleteFollowsTheStatusTable(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
	create := func(extra string) string {
		res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"t","whenToExport":%q%s}`, hook, in(time.Hour), extra)).Want(t, http.StatusOK)
		return scheduleOf(t, res)["id"].(string)
	}
	pending, draft := create(""), create(`,"status":"draft"`)

	res := b.Do(t, "DELETE", "/v1/scheduler/"+pending, b.Other, "").Want(t, http.StatusNotFound)
	b.Do(t, "GET", "/v1/scheduler/"+pending, b.Other, "").Want(t, http.StatusNotFound)
	res = b.Do(t, "DELETE", "/v1/scheduler/"+pending, b.Acme, "").Want(t, http.StatusOK)
	if res.Body["status"] != "cancelled" || res.Body["id"] != pending || res.Body["message"] != "Schedule cancelled" {
		t.Fatalf("cancel: %s", res.Raw)
	}
	if got := scheduleOf(t, b.Do(t, "GET", "/v1/scheduler/"+pending, b.Acme, "")); got["status"] != "cancelled" {
		t.Fatalf("after cancel: %v", got)
	}
	res = b.Do(t, "DELETE", "/v1/scheduler/"+draft, b.Acme, "").Want(t, http.StatusOK)
	if res.Body["status"] != "removed" {
		t.Fatalf("draft delete: %s", res.Raw)
	}
	b.Do(t, "GET", "/v1/scheduler/"+draft, b.Acme, "").Want(t, http.StatusNotFound)
	b.Do(t, "DELETE", "/v1/scheduler/"+draft, b.Acme, "").Want(t, http.StatusNotFound)

	publishing := create("")
	if _, ok, err := b.Store.ClaimSchedule(context.Background(), b.AcmeID, publishing); !ok || err != nil {
		t.Fatal(ok, err)
	}
	res = b.Do(t, "DELETE", "/v1/scheduler/"+publishing, b.Acme, "").Want(t, http.StatusConflict)
	if !strings.Contains(res.Body["message"].(string), "being published") {
		t.Fatalf("409 message: %s", res.Raw)
	}
}

func TestParseTimeAcceptsAnyOffsetAndReturnsUTC(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"2030-01-02T15:04:05Z", "2030-01-02T15:04:05Z"},
		{"2030-01-02T17:04:05+02:00", "2030-01-02T15:04:05Z"},
		{"2030-01-02T10:04:05.250-0500", "2030-01-02T15:04:05.25Z"},
		{"2030-01-02T15:04", "2030-01-02T15:04:00Z"},
		{"2030-01-02T15:04:05", "2030-01-02T15:04:05Z"},
	} {
		got, err := schedule.ParseTime(tc.in)
		if err != nil || got.Format(time.RFC3339Nano) != tc.want {
			t.Errorf("ParseTime(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "tomorrow", "2030-13-02T15:04:05Z", "1700000000"} {
		if _, err := schedule.ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) accepted", bad)
		}
	}
}

// nonEmptyString reports whether a decoded JSON field is present, a
// string, and not empty (a missing field is nil, which "" would not catch).
func nonEmptyString(v any) bool {
	s, ok := v.(string)
	return ok && s != ""
}
