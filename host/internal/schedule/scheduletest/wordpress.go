package scheduletest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/api/apitest"
)

// The credentials the fake accepts.
const (
	WPUser     = "editor"
	WPPassword = "abcd efgh ijkl mnop"
)

// FakeWordPress answers the REST API calls of the real wordpress plugin
// (run by the plugin manager) as WordPress does, and records media uploads.
type FakeWordPress struct {
	Srv *httptest.Server

	mu      sync.Mutex
	refuse  bool // answer 401 to every call
	link    string
	uploads []Upload
	posts   []string // the titles of the posts created
}

// Upload is one media upload the fake received.
type Upload struct {
	FileName, MIMEType, Title, Alt string
	Data                           []byte
}

// NewFakeWordPress starts the fake.
func NewFakeWordPress(t testing.TB) *FakeWordPress {
	f := &FakeWordPress{link: "https://blog.example/launch/"}
	f.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		f.mu.Lock()
		refuse := f.refuse
		f.mu.Unlock()
		if u, p, ok := r.BasicAuth(); refuse || !ok || u != WPUser || p != WPPassword {
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
			var body struct {
				Title string `json:"title"`
			}
			_ = json.NewDecoder(r.Body).Decode(&body)
			f.mu.Lock()
			f.posts = append(f.posts, body.Title)
			link := f.link
			f.mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			_, _ = fmt.Fprintf(w, `{"id":1234,"link":%q}`, link)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"code":"rest_no_route","message":"No route was found matching the URL and request method."}`)
		}
	}))
	t.Cleanup(f.Srv.Close)
	return f
}

func readUpload(r *http.Request) (Upload, error) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return Upload{}, err
	}
	form, err := multipart.NewReader(r.Body, params["boundary"]).ReadForm(32 << 20)
	if err != nil {
		return Upload{}, err
	}
	files := form.File["file"]
	if len(files) != 1 {
		return Upload{}, fmt.Errorf("%d file parts", len(files))
	}
	fr, _ := files[0].Open()
	data, _ := io.ReadAll(fr)
	first := func(k string) string {
		if v := form.Value[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	return Upload{FileName: files[0].Filename, MIMEType: files[0].Header.Get("Content-Type"), Title: first("title"), Alt: first("alt_text"), Data: data}, nil
}

// Credentials is a connection body for the fake with password.
func (f *FakeWordPress) Credentials(password string) string {
	return fmt.Sprintf(`{"credentials":{"site_url":%q,"username":%q,"application_password":%q}}`, f.Srv.URL, WPUser, password)
}

// DestinationEntry is the named entry of a GET /v1/destinations answer.
func DestinationEntry(t testing.TB, list apitest.Response, name string) map[string]any {
	t.Helper()
	for _, it := range list.Body["destinations"].([]any) {
		if m := it.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no destination %s in %s", name, list.Raw)
	return nil
}

// Uploads returns a copy of the media uploads received, in order.
func (f *FakeWordPress) Uploads() []Upload {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Upload(nil), f.uploads...)
}

// Posts returns the titles of the posts created, in order.
func (f *FakeWordPress) Posts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.posts...)
}

// Refuse makes every later call answer 401.
func (f *FakeWordPress) Refuse() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse = true
}

// Link sets the "link" the fake answers for a created post.
func (f *FakeWordPress) Link(link string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.link = link
}
