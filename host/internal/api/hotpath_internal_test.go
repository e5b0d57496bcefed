package api

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"google.golang.org/protobuf/proto"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// The hot path's shortcuts (shared header values, pooled buffers, plans per
// message type) checked here: each must leave every response and request
// as it was without them.

func TestSharedHeaderValuesStayIntact(t *testing.T) {
	t.Parallel()
	for name, v := range map[string][]string{"jsonContentType": jsonContentType, "corsAnyOrigin": corsAnyOrigin, "corsExposeHeaders": corsExposeHeaders} {
		// len == cap: an Add on a header holding one must copy it.
		if len(v) != 1 || cap(v) != 1 {
			t.Errorf("%s has len %d, cap %d: want 1 and 1", name, len(v), cap(v))
		}
	}
	w := httptest.NewRecorder()
	writeJSON(w, http.StatusOK, []byte(`{}`))
	w.Header().Add("Content-Type", "text/plain")
	w.Header().Set("Content-Length", "7")
	if got := jsonContentType; len(got) != 1 || got[0] != "application/json; charset=utf-8" {
		t.Fatalf("a later Add changed the shared value: %q", got)
	}
	w = httptest.NewRecorder()
	writeJSON(w, http.StatusAccepted, []byte(`{"message":"ok"}`))
	if got := w.Header().Values("Content-Type"); len(got) != 1 || got[0] != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := w.Header().Get("Content-Length"); got != "16" {
		t.Errorf("Content-Length %q", got)
	}
	// The beacon route's CORS headers, the same way.
	h := publicCORS(1<<10, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Access-Control-Expose-Headers", "Retry-After")
		w.WriteHeader(http.StatusAccepted)
	}))
	for range 2 {
		w = httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/ai-traffic/collect", strings.NewReader(`{}`)))
		if got := w.Header().Values("Access-Control-Expose-Headers"); strings.Join(got, "|") != "X-Request-Id|Retry-After" {
			t.Errorf("Access-Control-Expose-Headers %q", got)
		}
		if got := w.Header().Values("Access-Control-Allow-Origin"); len(got) != 1 || got[0] != "*" {
			t.Errorf("Access-Control-Allow-Origin %q", got)
		}
	}
}

// decode reads bodies into pooled buffers: what it decoded must not change
// when the buffer is reused for the next request.
func TestDecodeKeepsNothingOfThePooledBody(t *testing.T) {
	beacon := &apiv1.CollectRequest{}
	if err := restDecode(t, `{"siteKey":"site-one","path":"/first","title":"First"}`, beacon); err != nil {
		t.Fatal(err)
	}
	text := &apiv1.GenerateTextRequest{} // protojson's path
	if err := restDecode(t, `{"text":"hello \u00e9 world","model":"m1"}`, text); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := restDecode(t, `{"siteKey":"XXXXXXXXXXX","path":"/YYYYYY","title":"ZZZZZ","text":"WWWWWWWWWWWWWWWWWWWWWWWWWWWW"}`, &apiv1.CollectRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if want := (&apiv1.CollectRequest{SiteKey: "site-one", Path: "/first", Title: "First"}); !proto.Equal(beacon, want) {
		t.Errorf("beacon changed after later requests: %v", beacon)
	}
	if text.GetText() != "hello é world" || text.GetModel() != "m1" {
		t.Errorf("request changed after later requests: %v", text)
	}
}

func TestReadBodyReadsWhatReadAllReads(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 1023, 1024, 1025, 5000, maxPooledBody + 1} {
		want := bytes.Repeat([]byte("abcdefghij"), n/10+1)[:n]
		for _, r := range []io.Reader{bytes.NewReader(want), iotest.OneByteReader(bytes.NewReader(want)), iotest.DataErrReader(bytes.NewReader(want))} {
			got, err := readBody(r, make([]byte, 0, 1024))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%d bytes: got %d bytes, %v", n, len(got), err)
			}
		}
	}
	boom := errors.New("boom")
	got, err := readBody(io.MultiReader(strings.NewReader("part"), iotest.ErrReader(boom)), nil)
	if string(got) != "part" || err != boom {
		t.Errorf("got %q, %v; want the bytes before the error and the error", got, err)
	}
}

func TestPlansListTheFieldsTheWalksUsed(t *testing.T) {
	t.Parallel()
	p := planOf((&apiv1.CollectRequest{}).ProtoReflect().Descriptor())
	if p.nested {
		t.Error("CollectRequest has no message field")
	}
	var names []string
	for _, f := range p.pathFields {
		names = append(names, f.name)
	}
	if got, want := strings.Join(names, ","), "siteKey,path,referrer,title,sessionId,userAgent,utmSource,utmMedium,utmCampaign"; got != want {
		t.Errorf("path fields %s, want %s", got, want)
	}
	if planOf((&apiv1.Job{}).ProtoReflect().Descriptor()) != planOf((&apiv1.Job{}).ProtoReflect().Descriptor()) {
		t.Error("a plan is worked out again")
	}
	if !planOf((&apiv1.Job{}).ProtoReflect().Descriptor()).nested {
		t.Error("Job has a Struct field: nested")
	}
}
