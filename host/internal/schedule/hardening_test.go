package schedule_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// nested is a JSON object n levels deep: {"a":{"a":...{}}}.
func nested(n int) string {
	return strings.Repeat(`{"a":`, n-1) + `{}` + strings.Repeat(`}`, n-1)
}

func TestDeepOrHugeFreeFormObjectsAre400OnBothFaces(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	hook := b.saveWebhook(t, b.acme, newReceiver(t))
	prefix := fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"whenToExport":%q,"contentToExport":`, hook, in(time.Hour))
	for _, tc := range []struct {
		name, content, want string
	}{
		{"4000 levels", nested(4000), "field contentToExport is nested deeper than 32 levels"},
		{"33 levels", nested(33), "field contentToExport is nested deeper than 32 levels"},
		{"an array 40 levels deep", `{"title":"t","x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, "nested deeper than 32 levels"},
		{"300 KB of fields", `{"title":"t","content":"` + strings.Repeat("x", 300<<10) + `"}`, "field contentToExport is larger than 262144 bytes"},
	} {
		res := b.do(t, "POST", "/v1/scheduler/create", b.acme, prefix+tc.content+`}`)
		if res.status != http.StatusBadRequest || !strings.Contains(res.body["message"].(string), tc.want) {
			t.Errorf("REST, %s: %d %.200s, want 400 %q", tc.name, res.status, res.raw, tc.want)
		}
	}
	// 32 levels are fine.
	b.do(t, "POST", "/v1/scheduler/create", b.acme, prefix+`{"title":"t","x":`+nested(31)+`}}`).want(t, http.StatusOK)

	// Connect (protobuf): the same checks after decoding.
	c := apiv1connect.NewSchedulerServiceClient(http.DefaultClient, b.url)
	deep := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	inner := deep
	for range 40 {
		next := &structpb.Struct{Fields: map[string]*structpb.Value{}}
		inner.Fields["a"] = structpb.NewStructValue(next)
		inner = next
	}
	deep.Fields["title"] = structpb.NewStringValue("t")
	req := connect.NewRequest(&apiv1.CreateScheduleRequest{ExportTo: "webhook", WebhookId: &hook, WhenToExport: in(time.Hour), ContentToExport: deep})
	req.Header().Set("api-key", b.acme)
	_, err := c.CreateSchedule(context.Background(), req)
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "contentToExport is nested deeper than 32 levels") {
		t.Errorf("Connect: %v, want invalid_argument naming contentToExport", err)
	}
	if list := b.do(t, "GET", "/v1/scheduler", b.acme, "").want(t, http.StatusOK); list.body["total"] != float64(1) {
		t.Errorf("refused requests stored schedules: %s", list.raw)
	}
}

func TestNULBytesInSchedulerRoutesAre400(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		hook := b.saveWebhook(t, b.acme, newReceiver(t))
		for _, tc := range []struct{ path, body, field string }{
			{"/v1/webhooks", `{"name":"a\u0000b","url":"https://hooks.test/x"}`, "name"},
			{"/v1/scheduler/create", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"whenToExport":%q,"title":"t\u0000"}`, hook, in(time.Hour)), "title"},
			{"/v1/scheduler/create", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"whenToExport":%q,"contentToExport":{"body":{"x":"a\u0000"}}}`, hook, in(time.Hour)), "contentToExport.body.x"},
		} {
			res := b.do(t, "POST", tc.path, b.acme, tc.body).want(t, http.StatusBadRequest)
			if msg := res.body["message"]; msg != "field "+tc.field+" must not contain NUL (\\u0000) characters" {
				t.Errorf("%s: message %q", tc.path, msg)
			}
		}
	})
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

func TestWorkspaceCountsAndNameLengthsAreCapped(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{secretKey: secretKey, limits: config.Limits{MaxWebhooks: 2, MaxSchedules: 1, MaxNameLength: 10}})
	res := b.do(t, "POST", "/v1/webhooks", b.acme, `{"name":"`+strings.Repeat("n", 11)+`","url":"https://hooks.test/a"}`).want(t, http.StatusBadRequest)
	if res.body["message"] != "name is longer than 10 characters" {
		t.Errorf("long name: %s", res.raw)
	}
	var hook string
	for range 2 {
		w := b.do(t, "POST", "/v1/webhooks", b.acme, `{"name":"ok","url":"https://hooks.test/a"}`).want(t, http.StatusCreated)
		hook = w.body["webhook"].(map[string]any)["id"].(string)
	}
	res = b.do(t, "POST", "/v1/webhooks", b.acme, `{"name":"ok","url":"https://hooks.test/a"}`).want(t, http.StatusTooManyRequests)
	if !strings.Contains(res.raw, "limit of 2 webhooks") {
		t.Errorf("third webhook: %s", res.raw)
	}
	// The cap is per workspace.
	b.do(t, "POST", "/v1/webhooks", b.other, `{"name":"ok","url":"https://hooks.test/a"}`).want(t, http.StatusCreated)

	b.do(t, "POST", "/v1/scheduler/create", b.acme, `{"exportTo":"webhook","webhookId":"`+hook+`","status":"draft","title":"one"}`).want(t, http.StatusOK)
	res = b.do(t, "POST", "/v1/scheduler/create", b.acme, `{"exportTo":"webhook","webhookId":"`+hook+`","status":"draft","title":"two"}`).want(t, http.StatusTooManyRequests)
	if !strings.Contains(res.raw, "limit of 1 schedules") {
		t.Errorf("second schedule: %s", res.raw)
	}
}

func (b *testBundle) blobCount(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir(b.blobDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

func TestImagesNoScheduleNeedsAreDeleted(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		hook := b.saveWebhook(t, b.acme, newReceiver(t))
		img := base64.StdEncoding.EncodeToString(pngBytes)
		// A create refused after the image was stored (the destination's
		// validation) leaves no image behind.
		b.do(t, "POST", "/v1/scheduler/create", b.acme, `{"exportTo":"wordpress","text":"body only","whenToExport":"`+in(time.Hour)+`","imageBase64":"`+img+`"}`).want(t, http.StatusBadRequest)
		if n := b.blobCount(t); n != 0 {
			t.Fatalf("a refused create left %d images", n)
		}
		// A removed draft takes its image along.
		draft := b.do(t, "POST", "/v1/scheduler/create", b.acme, `{"exportTo":"webhook","webhookId":"`+hook+`","status":"draft","title":"d","imageBase64":"`+img+`"}`).want(t, http.StatusOK).schedule(t)
		if n := b.blobCount(t); n != 1 {
			t.Fatalf("%d images after a draft with one", n)
		}
		b.do(t, "DELETE", "/v1/scheduler/"+draft["id"].(string), b.acme, "").want(t, http.StatusOK)
		if n := b.blobCount(t); n != 0 {
			t.Fatalf("a removed draft left %d images", n)
		}
		// A cancelled post's image is swept after the grace; a live one stays.
		post := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"whenToExport":%q,"title":"p","imageBase64":%q}`, hook, in(time.Hour), img)).want(t, http.StatusOK).schedule(t)
		b.do(t, "POST", "/v1/scheduler/create", b.acme, `{"exportTo":"webhook","webhookId":"`+hook+`","status":"draft","title":"keep","imageBase64":"`+img+`"}`).want(t, http.StatusOK)
		b.do(t, "DELETE", "/v1/scheduler/"+post["id"].(string), b.acme, "").want(t, http.StatusOK)
		if n, err := b.svc.SweepImages(context.Background(), time.Hour); err != nil || n != 0 {
			t.Fatalf("swept %d (%v) inside the grace period", n, err)
		}
		if n, err := b.svc.SweepImages(context.Background(), -time.Second); err != nil || n != 1 {
			t.Fatalf("swept %d (%v), want the cancelled post's image", n, err)
		}
		if n := b.blobCount(t); n != 1 {
			t.Fatalf("%d images left, want the live draft's", n)
		}
	})
}
