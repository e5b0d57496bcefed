package destination_test

import (
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
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

func TestSavingAConnectionChecksItWithTheRemote(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	wp := newFakeWordPress(t)
	const path = "/v1/destinations/wordpress/connection"

	// Refused credentials: 400 naming the field and quoting WordPress;
	// nothing stored.
	res := b.do(t, "PUT", path, b.acme, wp.credentials("wrong")).want(t, http.StatusBadRequest)
	msg := res.body["message"].(string)
	if !strings.Contains(msg, "application_password") || !strings.Contains(msg, "The provided password is an invalid application password.") || strings.Contains(msg, "wrong") {
		t.Fatalf("refused message = %q, want it to name application_password and quote WordPress (and not echo the password)", msg)
	}
	if wpEntry := destinationEntry(t, b.do(t, "GET", "/v1/destinations", b.acme, "").want(t, http.StatusOK), "wordpress"); wpEntry["connected"] != false {
		t.Fatalf("refused credentials were stored: %v", wpEntry)
	}

	// An unreachable site: 503 with the reason.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	body := fmt.Sprintf(`{"credentials":{"site_url":%q,"username":"u","application_password":"p"}}`, closed)
	res = b.do(t, "PUT", path, b.acme, body).want(t, http.StatusServiceUnavailable)
	if msg := res.body["message"].(string); !strings.Contains(msg, "could not check") || !strings.Contains(msg, "verify=false") {
		t.Fatalf("unreachable message = %q", msg)
	}

	// ?verify=false skips the check and says so.
	res = b.do(t, "PUT", path+"?verify=false", b.acme, body).want(t, http.StatusOK)
	if check := res.body["destination"].(map[string]any)["lastCheck"].(map[string]any); check["result"] != "skipped" || check["checkedAt"] != nil {
		t.Fatalf("skipped check = %v", check)
	}

	// Good credentials: checked, and the list shows when and for whom.
	before := time.Now().Add(-time.Second)
	b.do(t, "PUT", path, b.acme, wp.credentials(wpPassword)).want(t, http.StatusOK)
	check := destinationEntry(t, b.do(t, "GET", "/v1/destinations", b.acme, "").want(t, http.StatusOK), "wordpress")["lastCheck"].(map[string]any)
	at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(check["checkedAt"]))
	if check["result"] != "ok" || check["account"] != "Ed Itor" || err != nil || at.Before(before) {
		t.Fatalf("last check = %v", check)
	}
}
