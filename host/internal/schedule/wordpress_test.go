package schedule_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

const (
	wpUser     = "editor"
	wpPassword = "abcd efgh ijkl mnop"
)

// fakeWordPress answers the REST API calls of the real wordpress plugin
// (run by the plugin manager) as WordPress does, and records media uploads.
type fakeWordPress struct {
	srv *httptest.Server

	mu      sync.Mutex
	refuse  bool // answer 401 to every call
	uploads []upload
}

type upload struct {
	fileName, mimeType, title, alt string
	data                           []byte
}

func newFakeWordPress(t *testing.T) *fakeWordPress {
	f := &fakeWordPress{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		f.mu.Lock()
		refuse := f.refuse
		f.mu.Unlock()
		if u, p, ok := r.BasicAuth(); refuse || !ok || u != wpUser || p != wpPassword {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"code":"incorrect_password","message":"The provided password is an invalid application password.","data":{"status":401}}`)
			return
		}
		switch r.Method + " " + r.URL.Path {
		case "GET /wp-json/wp/v2/users/me":
			_, _ = io.WriteString(w, `{"id":3,"name":"Ed Itor","slug":"editor"}`)
		case "POST /wp-json/wp/v2/media":
			up, err := readUpload(r)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = fmt.Fprintf(w, `{"code":"rest_upload_no_data","message":%q}`, err.Error())
				return
			}
			f.mu.Lock()
			f.uploads = append(f.uploads, up)
			f.mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"id":77}`)
		case "POST /wp-json/wp/v2/posts":
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"id":1234,"link":"https://blog.example/launch/"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"code":"rest_no_route","message":"No route was found matching the URL and request method."}`)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func readUpload(r *http.Request) (upload, error) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return upload{}, err
	}
	form, err := multipart.NewReader(r.Body, params["boundary"]).ReadForm(32 << 20)
	if err != nil {
		return upload{}, err
	}
	files := form.File["file"]
	if len(files) != 1 {
		return upload{}, fmt.Errorf("%d file parts", len(files))
	}
	fr, _ := files[0].Open()
	data, _ := io.ReadAll(fr)
	first := func(k string) string {
		if v := form.Value[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	return upload{fileName: files[0].Filename, mimeType: files[0].Header.Get("Content-Type"), title: first("title"), alt: first("alt_text"), data: data}, nil
}

func (f *fakeWordPress) credentials(password string) string {
	return fmt.Sprintf(`{"credentials":{"site_url":%q,"username":%q,"application_password":%q}}`, f.srv.URL, wpUser, password)
}

func destinationEntry(t *testing.T, list response, name string) map[string]any {
	t.Helper()
	for _, it := range list.body["destinations"].([]any) {
		if m := it.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no destination %s in %s", name, list.raw)
	return nil
}

func TestAPostWithAnImageReachesADestinationThatCannotReachHerald(t *testing.T) {
	t.Parallel()
	// The blob store's public URL (http://blobs.test) resolves nowhere, as
	// Herald's own URL is unreachable from a remote site: the plugin must
	// upload the bytes the host passes, not download the URL.
	b := setup(t, storetest.SQLite(t))
	wp := newFakeWordPress(t)
	b.do(t, "PUT", "/v1/destinations/wordpress/connection", b.acme, wp.credentials(wpPassword)).want(t, http.StatusOK)

	img := base64.StdEncoding.EncodeToString(pngBytes)
	named := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"wordpress","title":"Launch Day!","content":"<p>Hi</p>","whenToExport":%q,"imageBase64":%q,"imageFileName":"cover shot.png","imageAlt":"The team on launch day"}`, in(0), img)).want(t, http.StatusOK).schedule(t)
	if c := named["contentToExport"].(map[string]any); c["imageFileName"] != "cover shot.png" || c["imageAlt"] != "The team on launch day" || !strings.HasPrefix(fmt.Sprint(c["imageUrl"]), "http://blobs.test/") {
		t.Fatalf("contentToExport = %v", c)
	}
	b.waitStatus(t, b.acme, named["id"].(string), "published", 15*time.Second)
	plain := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"wordpress","title":"Launch Day!","content":"<p>Hi</p>","whenToExport":%q,"imageBase64":%q}`, in(0), img)).want(t, http.StatusOK).schedule(t)
	b.waitStatus(t, b.acme, plain["id"].(string), "published", 15*time.Second)

	wp.mu.Lock()
	defer wp.mu.Unlock()
	want := []upload{
		{fileName: "cover shot.png", mimeType: "image/png", title: "cover shot", alt: "The team on launch day", data: pngBytes},
		// Without imageFileName and imageAlt: a slug of the title, and the title.
		{fileName: "launch-day.png", mimeType: "image/png", title: "launch-day", alt: "Launch Day!", data: pngBytes},
	}
	if len(wp.uploads) != len(want) {
		t.Fatalf("%d uploads, want %d", len(wp.uploads), len(want))
	}
	for i, w := range want {
		got := wp.uploads[i]
		if got.fileName != w.fileName || got.mimeType != w.mimeType || got.title != w.title || got.alt != w.alt || !bytes.Equal(got.data, w.data) {
			t.Errorf("upload %d = {%q %q %q %q %d bytes}, want {%q %q %q %q the image}", i, got.fileName, got.mimeType, got.title, got.alt, len(got.data), w.fileName, w.mimeType, w.title, w.alt)
		}
	}
}

func TestARefusedExportNamesTheCredentialsToCheck(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	wp := newFakeWordPress(t)
	b.do(t, "PUT", "/v1/destinations/wordpress/connection", b.acme, wp.credentials(wpPassword)).want(t, http.StatusOK)
	// The password is revoked after the connection was saved.
	wp.mu.Lock()
	wp.refuse = true
	wp.mu.Unlock()
	id := b.do(t, "POST", "/v1/scheduler/create", b.acme, fmt.Sprintf(`{"exportTo":"wordpress","title":"T","content":"C","whenToExport":%q}`, in(0))).want(t, http.StatusOK).schedule(t)["id"].(string)
	sc := b.waitStatus(t, b.acme, id, "failed", 15*time.Second)
	if got, _ := sc["lastError"].(string); !strings.Contains(got, "WordPress refused the username or application_password") || sc["attempts"] != float64(1) {
		t.Fatalf("lastError %q after %v attempts, want one attempt naming the credentials", got, sc["attempts"])
	}
	check := destinationEntry(t, b.do(t, "GET", "/v1/destinations", b.acme, "").want(t, http.StatusOK), "wordpress")["lastCheck"].(map[string]any)
	if check["result"] != "failed" || !strings.Contains(fmt.Sprint(check["message"]), "application_password") {
		t.Fatalf("last check after the refusal = %v", check)
	}
}
