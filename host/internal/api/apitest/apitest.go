// Package apitest runs the real API server in a test and calls it the way
// a client does: Start serves api.NewServer over HTTP/1.1 and cleartext
// HTTP/2 on a local port; Do sends one JSON request with an api-key and
// reads the answer. Every package's API tests use it instead of building
// the server and a request helper of their own.
package apitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
)

// JWTSecret signs the session tokens of the server Start builds when d has
// no Authenticator.
const JWTSecret = "test-jwt-secret"

// Server is a running API server.
type Server struct {
	// URL is the base URL, without a trailing slash.
	URL string
	// Deps is what the server was built from, defaults filled in.
	Deps api.Deps

	srv     *httptest.Server
	serving bool
}

// Start builds api.NewServer(d) and serves it until the test ends. Unset
// Logger, Auth (over d.Store, signing with JWTSecret) and Registry get
// test defaults; d.Store is required.
func Start(t testing.TB, d api.Deps) *Server {
	t.Helper()
	s := Reserve(t)
	s.Serve(t, d)
	return s
}

// Reserve listens on a local port and knows its URL before serving, for a
// test whose Deps need the URL (blob and traffic base URLs); Serve starts
// it. A reserved server never served is closed when the test ends.
func Reserve(t testing.TB) *Server {
	t.Helper()
	s := &Server{srv: httptest.NewUnstartedServer(nil)}
	s.URL = "http://" + s.srv.Listener.Addr().String()
	t.Cleanup(func() {
		if !s.serving {
			s.srv.Close()
		}
	})
	return s
}

// Serve builds api.NewServer(d) and serves it on the reserved port until
// the test ends (the server closes in the test's cleanups, in the order of
// t.Cleanup from the time Serve was called).
func (s *Server) Serve(t testing.TB, d api.Deps) {
	t.Helper()
	if d.Store == nil {
		t.Fatal("apitest.Start: Deps.Store is required")
	}
	if d.Logger == nil {
		d.Logger = hclog.NewNullLogger()
	}
	if d.Auth == nil {
		d.Auth = auth.NewAuthenticator(d.Store, JWTSecret)
	}
	if d.Registry == nil {
		d.Registry = prometheus.NewRegistry()
	}
	srv := s.srv
	srv.Config.Handler = api.NewServer(d)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	s.serving, s.Deps = true, d
	t.Cleanup(srv.Close)
}

// Do sends method path (relative to the server) with the api-key header
// when key is set and body as JSON when it is not empty.
func (s *Server) Do(t testing.TB, method, path, key, body string) Response {
	t.Helper()
	return Do(t, method, s.URL+path, key, body)
}

// Response is one answer: its status, headers, raw body and, when the
// body is JSON, the decoded value (an object in Body).
type Response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// Do sends method url with the api-key header when key is set and body as
// JSON when it is not empty, and reads the whole answer. A non-empty JSON
// answer that is not an object fails the test.
func Do(t testing.TB, method, url, key, body string) Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("api-key", key)
	}
	return Send(t, req)
}

// Send sends a request built by the test (other headers, another body
// type, a raw method) and reads the whole answer as Do does.
func Send(t testing.TB, req *http.Request) Response {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", req.Method, req.URL, err)
	}
	out := Response{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.Body); err != nil {
			t.Fatalf("%s %s: %d body is not a JSON object: %s", req.Method, req.URL, res.StatusCode, raw)
		}
	}
	return out
}

// Want fails the test unless the status is status.
func (r Response) Want(t testing.TB, status int) Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	return r
}

// WantMessage is Want for answers that carry SPEC's "message" (every /v1
// JSON answer): it also fails the test unless the body is a JSON object
// with a string message.
func (r Response) WantMessage(t testing.TB, status int) Response {
	t.Helper()
	r.Want(t, status)
	if _, ok := r.Body["message"].(string); !ok {
		t.Fatalf("body has no string message: %s", r.Raw)
	}
	return r
}

// WantError fails the test unless the status is status and the JSON
// message contains each of parts.
func (r Response) WantError(t testing.TB, status int, parts ...string) Response {
	t.Helper()
	r.Want(t, status)
	msg, ok := r.Body["message"].(string)
	if !ok {
		t.Fatalf("no string message: %s", r.Raw)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Fatalf("message %q does not contain %q", msg, p)
		}
	}
	return r
}

// Data is the answer's "data" object; the test fails when there is none.
func (r Response) Data(t testing.TB) map[string]any {
	t.Helper()
	d, ok := r.Body["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object: %s", r.Raw)
	}
	return d
}

// Numbers is the body decoded again with numbers as json.Number, for a
// test that tells integers (epoch milliseconds, counts) from floats. A
// body that is not a JSON object fails the test.
func (r Response) Numbers(t testing.TB) map[string]any {
	t.Helper()
	var out map[string]any
	dec := json.NewDecoder(strings.NewReader(r.Raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("body %s: %v", r.Raw, err)
	}
	return out
}

// Message is the answer's "message" string ("" when there is none).
func (r Response) Message() string {
	m, _ := r.Body["message"].(string)
	return m
}
