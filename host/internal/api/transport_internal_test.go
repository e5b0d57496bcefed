package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Transport rules of this package checked here: the error
// body, Retry-After, the procedures' auth policies, the body deadline, the
// request id, panics and the request log.

func TestErrorBodiesPutTheMessageFirstAndNeverReplaceIt(t *testing.T) {
	t.Parallel()
	values := &structpb.Struct{Fields: map[string]*structpb.Value{
		"message": structpb.NewStringValue("not me"),
		"a":       structpb.NewStringValue("values lose to fields"),
		"pending": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("s1")}}),
	}}
	for _, tc := range []struct {
		name   string
		fields map[string]string
		values *structpb.Struct
		want   string
	}{
		{"message only", nil, nil, `{"message":"m"}`},
		{"fields sorted, message kept", map[string]string{"message": "x", "b": "2", "a": "1"}, nil, `{"message":"m","a":"1","b":"2"}`},
		{"values after fields", map[string]string{"a": "1"}, values, `{"message":"m","a":"1","pending":["s1"]}`},
	} {
		got := string(messageJSON("m", tc.fields, tc.values))
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: not JSON: %s", tc.name, got)
		}
	}
}

func TestRetryAfterIsWholeSecondsRoundedUpAtLeastOne(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "1", -time.Second: "1", time.Nanosecond: "1", 999 * time.Millisecond: "1",
		time.Second: "1", time.Second + time.Nanosecond: "2", 2 * time.Second: "2", 90 * time.Second: "90",
	} {
		if got := retryAfterSeconds(d); got != want {
			t.Errorf("%v: %s, want %s", d, got, want)
		}
	}
}

// routedServer is docServer with its routes registered on a recorder, as
// Routes builds it.
func routedServer() *server {
	s := docServer()
	var rec recorder
	s.routes(&rec)
	return s
}

func TestConnectProceduresTakeTheirServicesPolicy(t *testing.T) {
	t.Parallel()
	i := &authInterceptor{s: routedServer()}
	for proc, want := range map[string]auth.Policy{
		"/herald.api.v1.SchedulerService/CreateSchedule":     auth.APIKeyOrSession,
		"/herald.api.v1.DestinationService/ListDestinations": auth.APIKeyOrSession,
		"/herald.api.v1.WebhookService/CreateWebhook":        auth.APIKeyOrSession,
		"/herald.api.v1.AITrafficService/Collect":            auth.Public,
		"/herald.api.v1.AITrafficService/ListSites":          auth.APIKey,
		"/herald.api.v1.BrandVoiceService/ListBrandVoices":   auth.APIKey,
		"/no.such.Service/Method":                            auth.APIKey,
		"herald.api.v1.SchedulerService":                     auth.APIKey,
		"":                                                   auth.APIKey,
	} {
		if got := i.policy(proc); got != want {
			t.Errorf("%q: policy %v, want %v", proc, got, want)
		}
	}
}

// deadlineWriter records the read deadlines a ResponseController sets.
type deadlineWriter struct {
	httptest.ResponseRecorder
	deadlines []time.Time
}

func (w *deadlineWriter) SetReadDeadline(d time.Time) error {
	w.deadlines = append(w.deadlines, d)
	return nil
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestTheBodyDeadlineIsLiftedOnlyAtTheBodysEnd(t *testing.T) {
	t.Parallel()
	body := func(r io.Reader) (*deadlineBody, *deadlineWriter, prometheus.Counter) {
		w := &deadlineWriter{}
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: "t"})
		return &deadlineBody{ReadCloser: io.NopCloser(r), rc: *http.NewResponseController(w), timeouts: c}, w, c
	}
	// Read to the end: the deadline is lifted once.
	b, w, _ := body(strings.NewReader(`{"a":1}`))
	if got, err := io.ReadAll(b); err != nil || string(got) != `{"a":1}` {
		t.Fatalf("read %q, %v", got, err)
	}
	b.Read(make([]byte, 1))
	if len(w.deadlines) != 1 || !w.deadlines[0].IsZero() {
		t.Errorf("after the end: deadlines set %v, want one zero deadline", w.deadlines)
	}
	// On HTTP/1 net/http clears it itself at the end: not a second time.
	b, w, _ = body(strings.NewReader(`{"a":1}`))
	b.serverLifts = true
	if _, err := io.ReadAll(b); err != nil || len(w.deadlines) != 0 {
		t.Errorf("HTTP/1: %v, deadlines set %v, want none", err, w.deadlines)
	}
	// Another error ends nothing: the deadline stays.
	reset := errors.New("connection reset")
	b, w, _ = body(failingReader{reset})
	if _, err := b.Read(make([]byte, 8)); err != reset {
		t.Errorf("error %v, want it passed on", err)
	}
	if len(w.deadlines) != 0 {
		t.Errorf("a failed read lifted the deadline: %v", w.deadlines)
	}
	// The deadline passing is errBodyTimeout, counted once per body.
	b, w, c := body(failingReader{fmt.Errorf("read tcp: %w", os.ErrDeadlineExceeded)})
	for range 2 {
		if _, err := b.Read(make([]byte, 8)); err != errBodyTimeout {
			t.Errorf("error %v, want errBodyTimeout", err)
		}
	}
	if n := testutil.ToFloat64(c); n != 1 || len(w.deadlines) != 0 {
		t.Errorf("timeouts counted %v, deadlines %v: want 1 and none", n, w.deadlines)
	}
}

// jsonLog is a logger writing JSON lines to a buffer.
func jsonLog() (hclog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Info, JSONFormat: true}), &buf
}

func TestOnly5xxErrorsAreLogged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err    error
		status int
		logged bool
	}{
		{apierr.Invalid("bad"), 400, false},
		{apierr.NotFound("gone"), 404, false},
		{connect.NewError(connect.CodeUnimplemented, errors.New("later")), 501, true},
		{apierr.Internal("internal error"), 500, true},
		{apierr.Unavailable("down"), 503, true},
		{errors.New("secret detail"), 500, true},
	} {
		log, buf := jsonLog()
		s := &server{log: log}
		w := httptest.NewRecorder()
		s.writeError(w, httptest.NewRequest(http.MethodGet, "/v1/x", nil), tc.err)
		if w.Code != tc.status {
			t.Errorf("%v: status %d, want %d", tc.err, w.Code, tc.status)
		}
		if got := strings.Contains(buf.String(), `"request failed"`); got != tc.logged {
			t.Errorf("%v (%d): logged %v, want %v:\n%s", tc.err, tc.status, got, tc.logged, buf)
		}
		if strings.Contains(w.Body.String(), "secret") {
			t.Errorf("internal detail answered: %s", w.Body)
		}
	}
}

// serve runs h on r and returns the answer and what h panicked with
// through the middleware.
func serve(h http.Handler, r *http.Request) (w *httptest.ResponseRecorder, panicked any) {
	w = httptest.NewRecorder()
	defer func() { panicked = recover() }()
	h.ServeHTTP(w, r)
	return w, nil
}

func middlewareServer(log hclog.Logger) *server {
	return &server{log: log, metrics: newHTTPMetrics(prometheus.NewRegistry()), procedures: map[string]struct{}{}}
}

func TestAClientsRequestIDIsKeptUpTo64Bytes(t *testing.T) {
	t.Parallel()
	s := middlewareServer(hclog.NewNullLogger())
	var seen string
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = requestID(r.Context()) }))
	for _, tc := range []struct {
		sent string
		kept bool
	}{
		{"abc-123", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		if tc.sent != "" {
			r.Header.Set("X-Request-Id", tc.sent)
		}
		w, _ := serve(h, r)
		got := w.Header().Get("X-Request-Id")
		if got != seen {
			t.Errorf("%q: header %q, handler saw %q", tc.sent, got, seen)
		}
		if tc.kept && got != tc.sent {
			t.Errorf("%q: replaced by %q", tc.sent, got)
		}
		if !tc.kept && (got == tc.sent || len(got) != 24) {
			t.Errorf("%q: id %q, want a new 24-hex-digit id", tc.sent, got)
		}
	}
}

func TestAPanicIsA500WithTheRequestIDUnlessTheAnswerStarted(t *testing.T) {
	t.Parallel()
	log, buf := jsonLog()
	s := middlewareServer(log)
	req := func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/v1/x", nil)
		r.Header.Set("X-Request-Id", "req-1")
		return r
	}
	w, p := serve(s.middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })), req())
	if p != nil || w.Code != 500 || w.Body.String() != `{"message":"internal error","requestId":"req-1"}` {
		t.Errorf("panic: %v, %d %s", p, w.Code, w.Body)
	}
	if !strings.Contains(buf.String(), `"panic serving request"`) {
		t.Errorf("the panic was not logged:\n%s", buf)
	}
	w, p = serve(s.middleware(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, "partial")
		panic("boom")
	})), req())
	if p != nil || w.Code != 201 || w.Body.String() != "partial" {
		t.Errorf("panic after the answer started: %v, %d %s", p, w.Code, w.Body)
	}
	// http.ErrAbortHandler is net/http's own way to abort: passed on.
	_, p = serve(s.middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })), req())
	if p != http.ErrAbortHandler {
		t.Errorf("ErrAbortHandler: recovered %v, want it re-panicked", p)
	}
}

func TestTheRequestLogGivesTheDurationInMilliseconds(t *testing.T) {
	t.Parallel()
	log, buf := jsonLog()
	s := middlewareServer(log)
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// At least 2µs pass in the handler, so the duration is not 0.
		for start := time.Now(); time.Since(start) < 2*time.Microsecond; {
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	start := time.Now()
	serve(h, httptest.NewRequest(http.MethodGet, "/v1/x", nil))
	waited := float64(time.Since(start).Microseconds()+1) / 1000
	var line struct {
		Message  string  `json:"@message"`
		Duration float64 `json:"duration_ms"`
		Status   int     `json:"status"`
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line.Message != "request" || line.Status != 503 {
		t.Fatalf("log %s: %v", buf, err)
	}
	if line.Duration < 0.002 || line.Duration > waited {
		t.Errorf("duration_ms %v, want between 0.002 and the %vms the request took", line.Duration, waited)
	}
}

func TestConnectBodiesOverTheCapAreRefusedBeforeTheHandler(t *testing.T) {
	t.Parallel()
	const limit = 10
	var got []byte
	h := capBody(limit, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		if got, err = io.ReadAll(r.Body); err != nil {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
		}
	}))
	post := func(body string, connectProtocol bool) *httptest.ResponseRecorder {
		got = nil
		r := httptest.NewRequest(http.MethodPost, "/herald.api.v1.AITrafficService/Collect", strings.NewReader(body))
		r.Header.Set("Content-Type", "text/plain") // no Connect content type
		if connectProtocol {
			r.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := post(strings.Repeat("x", limit), false); w.Code != 200 || len(got) != limit {
		t.Errorf("%d bytes: %d, handler read %d", limit, w.Code, len(got))
	}
	w := post(strings.Repeat("x", limit+1), false)
	if w.Code != 413 || got != nil || w.Header().Get("Connection") != "close" ||
		!strings.Contains(w.Body.String(), "request body is larger than the limit of 10 bytes") {
		t.Errorf("%d bytes: %d %s (handler read %q)", limit+1, w.Code, w.Body, got)
	}
	w = post(strings.Repeat("x", limit+1), true)
	if w.Code != 429 || got != nil || !strings.Contains(w.Body.String(), `"resource_exhausted"`) {
		t.Errorf("%d bytes over Connect: %d %s", limit+1, w.Code, w.Body)
	}
}

// slowCollect answers a beacon after wait, unless its context ends first.
type slowCollect struct {
	apiv1connect.UnimplementedAITrafficServiceHandler
	wait time.Duration
}

func (c slowCollect) Collect(ctx context.Context, req *connect.Request[apiv1.CollectRequest]) (*connect.Response[apiv1.CollectResponse], error) {
	select {
	case <-time.After(c.wait):
		return connect.NewResponse(&apiv1.CollectResponse{Message: "accepted", Kind: "human"}), nil
	case <-ctx.Done():
		return nil, apierr.Unavailable("request context ended: %v", context.Cause(ctx))
	}
}

// The body deadline must be gone once the body is read: a handler that
// runs longer than the deadline keeps its context and its connection, on
// HTTP/1 where net/http clears the deadline at the body's end itself.
func TestALongHandlerOutlivesTheBodyDeadline(t *testing.T) {
	t.Parallel()
	h := NewServer(Deps{Logger: hclog.NewNullLogger(), Auth: auth.NewAuthenticator(nil, "secret"), Registry: prometheus.NewRegistry(),
		CollectReadTimeout: 100 * time.Millisecond, Traffic: slowCollect{wait: 400 * time.Millisecond}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	for i := range 2 { // the second on the same kept-alive connection
		res, err := srv.Client().Post(srv.URL+"/v1/ai-traffic/collect", "text/plain", strings.NewReader(`{"siteKey":"ks_k","path":"/"}`))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusAccepted || res.ProtoMajor != 1 {
			t.Fatalf("request %d: %s %d %s, want HTTP/1 202", i, res.Proto, res.StatusCode, body)
		}
	}
}

// Each request is counted under its own route, method and status, and
// timed under its route and method, whichever label sets came before it.
func TestRequestMetricsGoToTheirLabelSets(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	h := NewServer(Deps{Logger: hclog.NewNullLogger(), Auth: auth.NewAuthenticator(nil, "secret"), Registry: reg, Traffic: slowCollect{}})
	for _, rq := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/v1/ai-traffic/collect", `{"siteKey":"ks_k"}`, 202},
		{"POST", "/v1/ai-traffic/collect", `[1]`, 400},
		{"POST", "/v1/ai-traffic/collect", `{"siteKey":"ks_k"}`, 202},
		{"OPTIONS", "/v1/ai-traffic/collect", ``, 204},
		{"GET", "/healthz", ``, 200},
		{"GET", "/nowhere", ``, 404},
		{"POST", "/nowhere", ``, 404},
		{"GET", "/metrics", ``, 200},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(rq.method, rq.path, strings.NewReader(rq.body)))
		if w.Code != rq.status {
			t.Fatalf("%s %s: %d, want %d", rq.method, rq.path, w.Code, rq.status)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			key := f.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.GetCounter() != nil:
				got[key] = uint64(m.GetCounter().GetValue())
			case m.GetHistogram() != nil:
				got[key] = m.GetHistogram().GetSampleCount()
			}
		}
	}
	want := map[string]uint64{
		"herald_http_requests_total{method=POST,route=POST /v1/ai-traffic/collect,status=202}":       2,
		"herald_http_requests_total{method=POST,route=POST /v1/ai-traffic/collect,status=400}":       1,
		"herald_http_requests_total{method=OPTIONS,route=OPTIONS /v1/ai-traffic/collect,status=204}": 1,
		"herald_http_requests_total{method=GET,route=GET /healthz,status=200}":                       1,
		"herald_http_requests_total{method=GET,route=unmatched,status=404}":                          1,
		"herald_http_requests_total{method=POST,route=unmatched,status=404}":                         1,
		"herald_http_requests_total{method=GET,route=GET /metrics,status=200}":                       1,
		"herald_http_request_duration_seconds{method=POST,route=unmatched}":                          1,
		"herald_http_request_duration_seconds{method=GET,route=GET /metrics}":                        1,
		"herald_http_request_duration_seconds{method=POST,route=POST /v1/ai-traffic/collect}":        3,
		"herald_http_request_duration_seconds{method=OPTIONS,route=OPTIONS /v1/ai-traffic/collect}":  1,
		"herald_http_request_duration_seconds{method=GET,route=GET /healthz}":                        1,
		"herald_http_request_duration_seconds{method=GET,route=unmatched}":                           1,
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s = %d, want %d", k, got[k], n)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && (strings.HasPrefix(k, "herald_http_requests_total") || strings.HasPrefix(k, "herald_http_request_duration_seconds")) {
			t.Errorf("unexpected series %s = %d", k, got[k])
		}
	}
}
