package wordpress

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

const (
	user     = "editor"
	password = "abcd efgh ijkl mnop qrst uvwx"
)

var png = []byte("\x89PNG\r\n\x1a\nnot-really-a-png")

// fakeWordPress checks requests as WordPress does and records the calls.
// postStatus forces the answer to POST /posts (with Retry-After when set).
type fakeWordPress struct {
	t          *testing.T
	postStatus int
	retryAfter string

	mu    sync.Mutex
	calls []string
	post  map[string]any
}

func (f *fakeWordPress) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	if r.URL.Path == "/uploads/cover.png" {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if u, p, ok := r.BasicAuth(); !ok || u != user || p != password {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"code":"rest_not_logged_in","message":"You are not currently logged in.","data":{"status":401}}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	switch r.Method + " " + r.URL.Path {
	case "GET /wp-json/wp/v2/users/me":
		_, _ = io.WriteString(w, `{"id":3,"name":"Ed Itor","slug":"editor"}`)
	case "POST /wp-json/wp/v2/media":
		f.checkMedia(r, body)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"id":77,"source_url":"https://blog.example/wp-content/uploads/cover.png"}`)
	case "POST /wp-json/wp/v2/posts":
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			f.t.Errorf("post Content-Type = %q", ct)
		}
		var post map[string]any
		if err := json.Unmarshal(body, &post); err != nil {
			f.t.Errorf("post body: %v", err)
		}
		f.mu.Lock()
		f.post = post
		f.mu.Unlock()
		if f.postStatus != 0 {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			w.WriteHeader(f.postStatus)
			_, _ = io.WriteString(w, `{"code":"rest_error","message":"Something went wrong.","data":{"status":`+http.StatusText(f.postStatus)+`}}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"id":1234,"link":"https://blog.example/launch/","status":"publish"}`)
	case "DELETE /wp-json/wp/v2/posts/1234":
		_, _ = io.WriteString(w, `{"id":1234,"status":"trash"}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"code":"rest_no_route","message":"No route was found matching the URL and request method.","data":{"status":404}}`)
	}
}

// checkMedia checks a media upload as WordPress reads it: a multipart form
// whose "file" part carries the bytes, file name and type, with the title
// and alt_text fields.
func (f *fakeWordPress) checkMedia(r *http.Request, body []byte) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		f.t.Errorf("media Content-Type = %q, want multipart/form-data", r.Header.Get("Content-Type"))
		return
	}
	form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		f.t.Errorf("media form: %v", err)
		return
	}
	files := form.File["file"]
	if len(files) != 1 {
		f.t.Errorf("media form has %d file parts, want 1", len(files))
		return
	}
	fh := files[0]
	if fh.Filename != "launch-day.png" || fh.Header.Get("Content-Type") != "image/png" {
		f.t.Errorf("media file = %q (%s), want launch-day.png (image/png)", fh.Filename, fh.Header.Get("Content-Type"))
	}
	fr, _ := fh.Open()
	data, _ := io.ReadAll(fr)
	if !bytes.Equal(data, png) {
		f.t.Errorf("media bytes = %q, want the image", data)
	}
	if got := form.Value["title"]; len(got) != 1 || got[0] != "launch-day" {
		f.t.Errorf("media title = %q, want launch-day", got)
	}
	if got := form.Value["alt_text"]; len(got) != 1 || got[0] != "The team on launch day" {
		f.t.Errorf("media alt_text = %q, want the alt text", got)
	}
}

func setup(t *testing.T, f *fakeWordPress) (string, *fakeWordPress) {
	t.Helper()
	if f == nil {
		f = &fakeWordPress{}
	}
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL, f
}

func exportReq(site, pass string, withImage bool) sdk.ExportRequest {
	req := sdk.ExportRequest{
		ScheduleID: "sch-1", IdempotencyKey: "idem-1",
		Content:     sdk.Content{"title": "Launch", "content": "<p>We shipped.</p>", "slug": "launch"},
		Credentials: map[string]string{"site_url": site + "/", "username": user, "application_password": pass},
	}
	if withImage {
		// What the host sends: the bytes, with a URL the plugin must not
		// fetch (a private address its guarded client refuses).
		req.ImageURL = "http://10.255.255.1:8080/v1/blobs/k1"
		req.ImageData, req.ImageMIMEType = png, "image/png"
		req.ImageFileName, req.ImageAlt = "launch-day.png", "The team on launch day"
	}
	return req
}

func TestExport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fake       *fakeWordPress
		password   string
		withImage  bool
		wantCalls  []string
		wantPost   map[string]any
		wantResult sdk.ExportResult
		wantErr    *sdk.Error
	}{
		{
			name: "a post with an image uploads the media and features it", password: password, withImage: true,
			wantCalls:  []string{"POST /wp-json/wp/v2/media", "POST /wp-json/wp/v2/posts"},
			wantPost:   map[string]any{"title": "Launch", "content": "<p>We shipped.</p>", "slug": "launch", "status": "publish", "featured_media": 77.0},
			wantResult: sdk.ExportResult{ExternalID: "1234", ExternalURL: "https://blog.example/launch/"},
		},
		{
			name: "a post without an image is created alone", password: password,
			wantCalls:  []string{"POST /wp-json/wp/v2/posts"},
			wantPost:   map[string]any{"title": "Launch", "content": "<p>We shipped.</p>", "slug": "launch", "status": "publish"},
			wantResult: sdk.ExportResult{ExternalID: "1234", ExternalURL: "https://blog.example/launch/"},
		},
		{
			name: "a wrong application password is an authentication failure, not retried", password: "wrong", withImage: true,
			wantCalls: []string{"POST /wp-json/wp/v2/media"},
			wantErr:   &sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401, Message: "WordPress refused the username or application_password: wordpress answered 401: rest_not_logged_in: You are not currently logged in."},
		},
		{
			name: "a 429 is retryable after the site's delay", password: password, fake: &fakeWordPress{postStatus: 429, retryAfter: "120"},
			wantCalls: []string{"POST /wp-json/wp/v2/posts"},
			wantErr:   &sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 2 * time.Minute},
		},
		{
			name: "a 502 is retryable", password: password, fake: &fakeWordPress{postStatus: 502},
			wantCalls: []string{"POST /wp-json/wp/v2/posts"},
			wantErr:   &sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 502},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			site, f := setup(t, tt.fake)
			client := plugintest.InProcessDestination(t, newDestination(loopback))
			res, err := client.Export(t.Context(), exportReq(site, tt.password, tt.withImage))
			if !reflect.DeepEqual(f.calls, tt.wantCalls) {
				t.Errorf("calls = %v, want %v", f.calls, tt.wantCalls)
			}
			if tt.wantErr != nil {
				e := sdk.AsError(err)
				if e.Code != tt.wantErr.Code || e.Retryable != tt.wantErr.Retryable || e.StatusCode != tt.wantErr.StatusCode || e.RetryAfter != tt.wantErr.RetryAfter ||
					(tt.wantErr.Message != "" && e.Message != tt.wantErr.Message) {
					t.Errorf("error = %+v, want %+v", e, tt.wantErr)
				}
				if strings.Contains(e.Message, tt.password) {
					t.Error("error message contains the password")
				}
				return
			}
			if err != nil {
				t.Fatalf("Export: %v", err)
			}
			if res != tt.wantResult {
				t.Errorf("result = %+v, want %+v", res, tt.wantResult)
			}
			if !reflect.DeepEqual(f.post, tt.wantPost) {
				t.Errorf("post body = %v, want %v", f.post, tt.wantPost)
			}
		})
	}
}

func TestCheckConnectionAsksWhoTheCredentialsBelongTo(t *testing.T) {
	t.Parallel()
	site, f := setup(t, &fakeWordPress{})
	client := plugintest.InProcessDestination(t, newDestination(loopback))
	res, err := client.CheckConnection(t.Context(), sdk.CheckConnectionRequest{Credentials: exportReq(site, password, false).Credentials})
	if err != nil || res.Account != "Ed Itor" {
		t.Fatalf("CheckConnection = %+v, %v; want the user's name", res, err)
	}
	if want := []string{"GET /wp-json/wp/v2/users/me"}; !reflect.DeepEqual(f.calls, want) {
		t.Errorf("calls = %v, want %v", f.calls, want)
	}
	_, err = client.CheckConnection(t.Context(), sdk.CheckConnectionRequest{Credentials: exportReq(site, "wrong", false).Credentials})
	if e := sdk.AsError(err); e.Code != sdk.CodeUnauthenticated || !strings.Contains(e.Message, "application_password") || !strings.Contains(e.Message, "You are not currently logged in.") {
		t.Errorf("refused check = %v, want unauthenticated naming application_password and quoting WordPress", err)
	}
}

func TestDeleteTrashesThePost(t *testing.T) {
	t.Parallel()
	site, f := setup(t, &fakeWordPress{})
	client := plugintest.InProcessDestination(t, newDestination(loopback))
	err := client.Delete(t.Context(), sdk.DeleteRequest{ExternalID: "1234", Credentials: exportReq(site, password, false).Credentials})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"DELETE /wp-json/wp/v2/posts/1234"}; !reflect.DeepEqual(f.calls, want) {
		t.Errorf("calls = %v, want %v", f.calls, want)
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	site, _ := setup(t, &fakeWordPress{})
	exp := exportReq(site, password, true)
	plugintest.TestDestination(t, newDestination(loopback), plugintest.DestinationChecks{
		Valid:             sdk.ValidateRequest{Content: exp.Content, Credentials: exp.Credentials},
		Export:            &exp,
		Connection:        &sdk.CheckConnectionRequest{Credentials: exp.Credentials},
		RefusedConnection: &sdk.CheckConnectionRequest{Credentials: exportReq(site, "wrong", false).Credentials},
		Failures: []plugintest.ExportFailure{{
			Name:    "an unknown status is refused before calling the site",
			Request: sdk.ExportRequest{Content: sdk.Content{"title": "t", "content": "c", "status": "live"}, Credentials: exp.Credentials},
			Want:    sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}

// loopback lets the plugin reach the httptest fakes, as
// HERALD_ALLOWED_PRIVATE_CIDRS=127.0.0.0/8 would.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
