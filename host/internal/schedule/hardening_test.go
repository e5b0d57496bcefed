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
	hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
	prefix := fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"whenToExport":%q,"contentToExport":`, hook, in(time.Hour))
	for _, tc := range []struct {
		name, content, want string
	}{
		{"4000 levels", nested(4000), "field contentToExport is nested deeper than 32 levels"},
		{"33 levels", nested(33), "field contentToExport is nested deeper than 32 levels"},
		{"an array 40 levels deep", `{"title":"t","x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, "nested deeper than 32 levels"},
		{"300 KB of fields", `{"title":"t","content":"` + strings.Repeat("x", 300<<10) + `"}`, "field contentToExport is larger than 262144 bytes"},
	} {
		res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, prefix+tc.content+`}`)
		if res.Status != http.StatusBadRequest || !strings.Contains(res.Body["message"].(string), tc.want) {
			t.Errorf("REST, %s: %d %.200s, want 400 %q", tc.name, res.Status, res.Raw, tc.want)
		}
	}
	// 32 levels are fine.
	b.Do(t, "POST", "/v1/scheduler/create", b.Acme, prefix+`{"title":"t","x":`+nested(31)+`}}`).Want(t, http.StatusOK)

	// Connect (protobuf): the same checks after decoding.
	c := apiv1connect.NewSchedulerServiceClient(http.DefaultClient, b.URL)
	deep := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	inner := deep
	for range 40 {
		next := &structpb.Struct{Fields: map[string]*structpb.Value{}}
		inner.Fields["a"] = structpb.NewStructValue(next)
		inner = next
	}
	deep.Fields["title"] = structpb.NewStringValue("t")
	req := connect.NewRequest(&apiv1.CreateScheduleRequest{ExportTo: "webhook", WebhookId: &hook, WhenToExport: in(time.Hour), ContentToExport: deep})
	req.Header().Set("api-key", b.Acme)
	_, err := c.CreateSchedule(context.Background(), req)
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "contentToExport is nested deeper than 32 levels") {
		t.Errorf("Connect: %v, want invalid_argument naming contentToExport", err)
	}
	if list := b.Do(t, "GET", "/v1/scheduler", b.Acme, "").Want(t, http.StatusOK); list.Body["total"] != float64(1) {
		t.Errorf("refused requests stored schedules: %s", list.Raw)
	}
}

func TestNULBytesInSchedulerRoutesAre400(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
		for _, tc := range []struct{ path, body, field string }{
			{"/v1/webhooks", `{"name":"a\u0000b","url":"https://hooks.test/x"}`, "name"},
			{"/v1/scheduler/create", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"whenToExport":%q,"title":"t\u0000"}`, hook, in(time.Hour)), "title"},
			{"/v1/scheduler/create", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"whenToExport":%q,"contentToExport":{"body":{"x":"a\u0000"}}}`, hook, in(time.Hour)), "contentToExport.body.x"},
		} {
			res := b.Do(t, "POST", tc.path, b.Acme, tc.body).Want(t, http.StatusBadRequest)
			if msg := res.Body["message"]; msg != "field "+tc.field+" must not contain NUL (\\u0000) characters" {
				t.Errorf("%s: message %q", tc.path, msg)
			}
		}
	})
}

func TestWorkspaceCountsAndNameLengthsAreCapped(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{SecretKey: secretKey, Limits: config.Limits{MaxWebhooks: 2, MaxSchedules: 1, MaxNameLength: 10}})
	res := b.Do(t, "POST", "/v1/webhooks", b.Acme, `{"name":"`+strings.Repeat("n", 11)+`","url":"https://hooks.test/a"}`).Want(t, http.StatusBadRequest)
	if res.Body["message"] != "name is longer than 10 characters" {
		t.Errorf("long name: %s", res.Raw)
	}
	var hook string
	for range 2 {
		w := b.Do(t, "POST", "/v1/webhooks", b.Acme, `{"name":"ok","url":"https://hooks.test/a"}`).Want(t, http.StatusCreated)
		hook = w.Body["webhook"].(map[string]any)["id"].(string)
	}
	res = b.Do(t, "POST", "/v1/webhooks", b.Acme, `{"name":"ok","url":"https://hooks.test/a"}`).Want(t, http.StatusTooManyRequests)
	if !strings.Contains(res.Raw, "limit of 2 webhooks") {
		t.Errorf("third webhook: %s", res.Raw)
	}
	// The cap is per workspace.
	b.Do(t, "POST", "/v1/webhooks", b.Other, `{"name":"ok","url":"https://hooks.test/a"}`).Want(t, http.StatusCreated)

	b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"webhook","webhookId":"`+hook+`","status":"draft","title":"one"}`).Want(t, http.StatusOK)
	res = b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"webhook","webhookId":"`+hook+`","status":"draft","title":"two"}`).Want(t, http.StatusTooManyRequests)
	if !strings.Contains(res.Raw, "limit of 1 schedules") {
		t.Errorf("second schedule: %s", res.Raw)
	}
}

func blobCount(t *testing.T, b *testBundle) int {
	t.Helper()
	entries, err := os.ReadDir(b.BlobDir)
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
		hook := b.SaveWebhook(t, b.Acme, newReceiver(t))
		img := base64.StdEncoding.EncodeToString(pngBytes)
		// A create refused after the image was stored (the destination's
		// validation) leaves no image behind.
		b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"wordpress","text":"body only","whenToExport":"`+in(time.Hour)+`","imageBase64":"`+img+`"}`).Want(t, http.StatusBadRequest)
		if n := blobCount(t, b); n != 0 {
			t.Fatalf("a refused create left %d images", n)
		}
		// A removed draft takes its image along.
		draft := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"webhook","webhookId":"`+hook+`","status":"draft","title":"d","imageBase64":"`+img+`"}`).Want(t, http.StatusOK))
		if n := blobCount(t, b); n != 1 {
			t.Fatalf("%d images after a draft with one", n)
		}
		b.Do(t, "DELETE", "/v1/scheduler/"+draft["id"].(string), b.Acme, "").Want(t, http.StatusOK)
		if n := blobCount(t, b); n != 0 {
			t.Fatalf("a removed draft left %d images", n)
		}
		// A cancelled post's image is swept after the grace; a live one stays.
		post := scheduleOf(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"whenToExport":%q,"title":"p","imageBase64":%q}`, hook, in(time.Hour), img)).Want(t, http.StatusOK))
		b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"webhook","webhookId":"`+hook+`","status":"draft","title":"keep","imageBase64":"`+img+`"}`).Want(t, http.StatusOK)
		b.Do(t, "DELETE", "/v1/scheduler/"+post["id"].(string), b.Acme, "").Want(t, http.StatusOK)
		if n, err := b.Svc.SweepImages(context.Background(), time.Hour); err != nil || n != 0 {
			t.Fatalf("swept %d (%v) inside the grace period", n, err)
		}
		if n, err := b.Svc.SweepImages(context.Background(), -time.Second); err != nil || n != 1 {
			t.Fatalf("swept %d (%v), want the cancelled post's image", n, err)
		}
		if n := blobCount(t, b); n != 1 {
			t.Fatalf("%d images left, want the live draft's", n)
		}
	})
}
