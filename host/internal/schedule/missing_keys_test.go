package schedule_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// The keys a destination misses are a list on both faces: a JSON array of
// strings in the REST body and a StringList in the Connect error detail, so
// that clients need not split a string (a key may contain a comma).
func TestMissingKeysAreAListOnBothFaces(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	want := []string{"title", "content"}

	res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, `{"exportTo":"wordpress","text":"body only","whenToExport":"`+in(time.Hour)+`"}`).Want(t, http.StatusBadRequest)
	list, ok := res.Body["missingKeys"].([]any)
	if !ok {
		t.Fatalf("REST missingKeys is %T, want a JSON array: %s", res.Body["missingKeys"], res.Raw)
	}
	var got []string
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("REST missingKeys holds a %T, want strings: %s", v, res.Raw)
		}
		got = append(got, s)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("REST missingKeys %q, want %q", got, want)
	}

	c := apiv1connect.NewSchedulerServiceClient(http.DefaultClient, b.URL)
	text := "body only"
	req := connect.NewRequest(&apiv1.CreateScheduleRequest{ExportTo: "wordpress", Text: &text, WhenToExport: in(time.Hour)})
	req.Header().Set("api-key", b.Acme)
	_, err := c.CreateSchedule(context.Background(), req)
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
		t.Fatalf("Connect: %v, want invalid_argument", err)
	}
	got = nil
	for _, v := range apierr.Values(ce).GetFields()["missingKeys"].GetListValue().GetValues() {
		got = append(got, v.GetStringValue())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Connect missingKeys %q, want %q (details %v)", got, want, ce.Details())
	}
	if _, dup := apierr.Fields(ce)["missingKeys"]; dup {
		t.Fatal("Connect carries missingKeys as a string field as well")
	}
}
