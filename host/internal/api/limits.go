package api

import (
	"crypto/subtle"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
)

// Default body read timeouts, used when Deps leaves them zero.
const (
	defaultBodyReadTimeout    = 10 * time.Second
	defaultCollectReadTimeout = 5 * time.Second
	defaultUploadReadTimeout  = 60 * time.Second
)

// bodyTimeout is how long a route may take to send its body: short for
// beacons, long for routes that may carry an image, the JSON default for
// the rest. Paths, not patterns, because routing happens after the
// deadline is set; both faces of each operation are listed.
func (s *server) bodyTimeout(path string) time.Duration {
	switch path {
	case "/v1/ai-traffic/collect", "/herald.api.v1.AITrafficService/Collect":
		return s.collectReadTimeout
	case "/v1/scheduler/create", "/herald.api.v1.SchedulerService/CreateSchedule", "/mcp": // MCP's schedule_content may carry an image
		return s.uploadReadTimeout
	}
	return s.bodyReadTimeout
}

// withBodyDeadline bounds the time a client may take to send the request
// body (ReadHeaderTimeout only covers headers), so clients that trickle a
// body a byte at a time cannot hold connections. The deadline is lifted
// once the body is read: the server's background read on an idle
// connection must not time out while a long handler runs. On HTTP/1
// net/http lifts it itself: reaching the body's end starts that background
// read, which clears the connection's read deadline first (net/http
// connReader.startBackgroundRead), so deadlineBody does not clear it a
// second time, a timer operation per request for nothing
// (TestALongHandlerOutlivesTheBodyDeadline holds net/http to it).
func (s *server) withBodyDeadline(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return
	}
	b := &deadlineBody{ReadCloser: r.Body, rc: *http.NewResponseController(w), timeouts: s.metrics.bodyTimeouts, serverLifts: r.ProtoMajor == 1}
	if err := b.rc.SetReadDeadline(time.Now().Add(s.bodyTimeout(r.URL.Path))); err != nil {
		return
	}
	r.Body = b
}

// deadlineBody lifts the read deadline at the end of the body and counts
// bodies that were cut off by it. Close keeps the deadline of a body not
// read to its end: the server drains what is left, and a trickling client
// must not hold it there.
type deadlineBody struct {
	io.ReadCloser
	rc            http.ResponseController // a value: one allocation per request, not two
	timeouts      prometheus.Counter
	once, counted sync.Once
	// serverLifts: the server clears the deadline at the body's end
	// itself (HTTP/1, see withBodyDeadline).
	serverLifts bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			b.counted.Do(b.timeouts.Inc)
			return n, errBodyTimeout
		}
		if err == io.EOF && !b.serverLifts {
			b.lift()
		}
	}
	return n, err
}

func (b *deadlineBody) lift() { b.once.Do(func() { b.rc.SetReadDeadline(time.Time{}) }) }

// errBodyTimeout is a body that did not arrive in time: 408 on the REST face.
var errBodyTimeout = errors.New("the request body was not received in time")

// LimitListener caps the connections ln serves at once at max. A
// connection over the cap gets a 503 and is closed at once, counted in
// herald_http_connections_rejected_total, rather than queued: waiting
// would let a crowd of slow clients delay everyone unseen.
func LimitListener(ln net.Listener, max int, reg prometheus.Registerer) net.Listener {
	l := &limitListener{Listener: ln, sem: make(chan struct{}, max),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herald_http_connections_rejected_total", Help: "Client connections closed at once because the connection cap was reached.",
		}),
		open: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "herald_http_connections_open", Help: "Client connections open now.",
		}),
	}
	reg.MustRegister(l.rejected, l.open)
	return l
}

type limitListener struct {
	net.Listener
	sem      chan struct{}
	rejected prometheus.Counter
	open     prometheus.Gauge
}

// tooBusy is the whole response to a connection over the cap.
const tooBusy = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 45\r\n\r\n{\"message\":\"too many connections, try later\"}"

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.sem <- struct{}{}:
			l.open.Inc()
			return &limitConn{Conn: c, l: l}, nil
		default:
			l.rejected.Inc()
			go func() {
				c.SetWriteDeadline(time.Now().Add(time.Second))
				io.WriteString(c, tooBusy)
				c.Close()
			}()
		}
	}
}

type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.open.Dec()
		<-c.l.sem
	})
	return err
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// operatorOnly guards what tells an outsider about the deployment
// (/metrics, gRPC reflection) with the operator's MetricsToken when one is
// configured; without one they stay public, as documented in docs/SECURITY.md.
func (s *server) operatorOnly(next http.Handler) http.Handler {
	if s.MetricsToken == "" {
		return next
	}
	want := []byte("Bearer " + s.MetricsToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		if len(got) > 7 && strings.EqualFold(got[:7], "Bearer ") {
			got = "Bearer " + got[7:]
		}
		if subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			writeMessage(w, http.StatusUnauthorized, "this endpoint requires the operator's metrics token (Authorization: Bearer)", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// capBody refuses bodies of a Connect procedure over limit bytes: at once,
// in the caller's protocol (resource_exhausted), when Content-Length says
// so, else when the reader passes the limit.
func capBody(limit int64, next http.Handler) http.Handler {
	ew := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			w.Header().Set("Connection", "close")
			err := connect.NewError(connect.CodeResourceExhausted, errTooLarge{limit: limit})
			if ew.IsSupported(r) {
				ew.Write(w, r, err)
			} else {
				writeMessage(w, http.StatusRequestEntityTooLarge, err.Message(), nil)
			}
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}
