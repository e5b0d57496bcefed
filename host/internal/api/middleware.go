package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/apierr"
)

// requestID is the id the middleware gave the request ctx belongs to. It is
// the one apierr carries for the areas: a single context value serves both.
func requestID(ctx context.Context) string { return apierr.RequestID(ctx) }

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type httpMetrics struct {
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	bodyTimeouts prometheus.Counter
	// children caches the series of each label set, as client_golang
	// advises on hot paths: WithLabelValues checks and hashes the labels
	// and locks the vector on every request. The label sets are a closed
	// set (routeLabel, methodLabel and the statuses handlers write).
	children sync.Map // seriesKey → *series
}

type seriesKey struct {
	route, method string
	status        int
}

// series are the metrics of one route, method and status.
type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

func (m *httpMetrics) series(route, method string, status int) *series {
	k := seriesKey{route, method, status}
	if s, ok := m.children.Load(k); ok {
		return s.(*series)
	}
	s, _ := m.children.LoadOrStore(k, &series{
		requests: m.requests.WithLabelValues(route, method, strconv.Itoa(status)),
		latency:  m.latency.WithLabelValues(route, method),
	})
	return s.(*series)
}

func newHTTPMetrics(reg *prometheus.Registry) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "herald_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
	}
	m.bodyTimeouts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "herald_http_body_read_timeouts_total", Help: "Requests whose body did not arrive within the route's read timeout.",
	})
	reg.MustRegister(m.requests, m.latency, m.bodyTimeouts)
	return m
}

// middleware adds a request id, recovers panics, records metrics by route
// pattern and logs each request.
func (s *server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 64 {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		r = r.WithContext(apierr.WithRequestID(r.Context(), id))
		rec := &statusRecorder{ResponseWriter: w}
		s.withBodyDeadline(rec, r)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "request_id", id, "panic", p)
				if rec.status == 0 {
					writeMessage(rec, http.StatusInternalServerError, "internal error", map[string]string{"requestId": id})
				}
			}
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			route := s.routeLabel(r)
			method := methodLabel(r.Method)
			elapsed := time.Since(start)
			m := s.metrics.series(route, method, status)
			m.requests.Inc()
			m.latency.Observe(elapsed.Seconds())
			// A 5xx is an error an operator alerts on; the rest are debug
			// detail. The line is built only when it is logged: on the hot
			// routes it is ten boxed values per request for nothing.
			if status >= 500 {
				s.log.Error("request", requestLine(method, route, status, elapsed, id)...)
			} else if s.log.IsDebug() {
				s.log.Info("request", requestLine(method, route, status, elapsed, id)...)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// requestLine is the key-value pairs of a request's log line.
func requestLine(method, route string, status int, elapsed time.Duration, id string) []any {
	return []any{"method", method, "route", route, "status", status, "duration_ms", float64(elapsed.Microseconds()) / 1000, "request_id", id}
}

// routeLabel is the matched pattern (REST) or a procedure the server
// really serves (Connect), else "unmatched": labels come from a closed set
// whatever paths clients send, so /metrics cannot be grown by a client.
func (s *server) routeLabel(r *http.Request) string {
	if r.Pattern == "" {
		return "unmatched"
	}
	if strings.HasSuffix(r.Pattern, "/") && strings.HasPrefix(r.Pattern, "/herald.") {
		if _, ok := s.procedures[r.URL.Path]; ok {
			return r.URL.Path
		}
		return "unmatched"
	}
	return r.Pattern
}

// standardMethods are the methods of RFC 9110 and PATCH; any other method
// is counted as "other".
var standardMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodConnect: true,
	http.MethodOptions: true, http.MethodTrace: true,
}

// methodLabel bounds the method label to the standard set.
func methodLabel(m string) string {
	if standardMethods[m] {
		return m
	}
	return "other"
}

// statusRecorder remembers the status for metrics and logs.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush lets streaming responses (Connect server streams) flush through.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap exposes the writer to http.ResponseController.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
