package integration_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// logHit is one line as the log route reads it.
type logHit struct {
	Time                                       time.Time
	Method, Host, Path, UserAgent, IP, Referer string
	Status                                     int
	Format                                     string // combined, caddy, cloudflare, herald
}

// logReceiver stands in for POST /v1/ai-traffic/logs, checking each
// request the way the route's contract (docs/CRAWLERS.md) states it: the
// method and path, the bearer ingest secret (or api key) with the site key,
// the content type that names the format, gzip, at most 10,000 lines, and
// lines in the formats the route reads, for the site's domain. It answers
// {accepted, rejected, reasons}.
type logReceiver struct {
	t               testing.TB
	srv             *httptest.Server
	secret, siteKey string
	domain          string

	mu       sync.Mutex
	hits     []logHit
	rejected []string
	requests int
	// hold, when set, is called in the handler after the hits are recorded
	// and before the answer: the WordPress test blocks the answer there.
	hold func()
	// got is signalled (without blocking) after each request's hits are recorded.
	got chan struct{}
}

func newLogReceiver(t testing.TB, secret, siteKey, domain string) *logReceiver {
	rc := &logReceiver{t: t, secret: secret, siteKey: siteKey, domain: domain, got: make(chan struct{}, 100)}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *logReceiver) URL() string { return rc.srv.URL }

func (rc *logReceiver) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/ai-traffic/logs" {
		http.Error(w, "want POST /v1/ai-traffic/logs, got "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	if q := r.URL.Query().Get("siteKey"); q != "" && q != rc.siteKey {
		http.Error(w, `{"message":"siteKey of another site"}`, http.StatusUnauthorized)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+rc.secret {
		http.Error(w, `{"message":"bad ingest secret"}`, http.StatusUnauthorized)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "bad gzip", http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(io.LimitReader(body, 8<<20+1))
	if err != nil || len(b) > 8<<20 {
		http.Error(w, "body over 8 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var lines []string
	switch ct {
	case "text/plain", "application/x-ndjson":
		lines = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	case "application/json":
		var arr []json.RawMessage
		if err := json.Unmarshal(b, &arr); err != nil {
			http.Error(w, "not a JSON array: "+err.Error(), http.StatusBadRequest)
			return
		}
		for _, m := range arr {
			lines = append(lines, string(m))
		}
	default:
		http.Error(w, "unknown Content-Type "+ct, http.StatusBadRequest)
		return
	}
	if len(lines) > 10000 {
		http.Error(w, "over 10,000 lines", http.StatusRequestEntityTooLarge)
		return
	}
	accepted, rejected := 0, 0
	var reasons []string
	rc.mu.Lock()
	rc.requests++
	for i, l := range lines {
		h, err := parseLogLine(l, ct == "application/json")
		if err == nil && h.Host != "" && h.Host != rc.domain && !strings.HasSuffix(h.Host, "."+rc.domain) {
			err = fmt.Errorf("host %s is not %s", h.Host, rc.domain)
		}
		if err != nil {
			rejected++
			reasons = append(reasons, fmt.Sprintf("line %d: %v", i+1, err))
			rc.rejected = append(rc.rejected, l)
			continue
		}
		accepted++
		rc.hits = append(rc.hits, h)
	}
	hold := rc.hold
	rc.mu.Unlock()
	select {
	case rc.got <- struct{}{}:
	default:
	}
	if hold != nil {
		hold()
	}
	if len(reasons) > 10 {
		reasons = reasons[:10]
	}
	json.NewEncoder(w).Encode(map[string]any{"accepted": accepted, "rejected": rejected, "reasons": append([]string{}, reasons...)})
}

func (rc *logReceiver) Hits() []logHit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]logHit(nil), rc.hits...)
}

func (rc *logReceiver) Rejected() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.rejected...)
}

// combinedLine is nginx's and Apache's combined format, with an optional
// quoted host after it (the herald log format of docs/LOG-SHIPPING.md).
var combinedLine = regexp.MustCompile(`^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+)[^"]*" (\d{3}) \S+ "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"(?: "((?:[^"\\]|\\.)*)")?`)

func parseLogLine(l string, object bool) (logHit, error) {
	if !object && !strings.HasPrefix(l, "{") {
		m := combinedLine.FindStringSubmatch(l)
		if m == nil {
			return logHit{}, fmt.Errorf("not a Combined Log Format line")
		}
		ts, err := time.Parse("02/Jan/2006:15:04:05 -0700", m[2])
		if err != nil {
			return logHit{}, err
		}
		status, _ := strconv.Atoi(m[5])
		return logHit{Time: ts, IP: m[1], Method: m[3], Path: m[4], Status: status, Referer: dash(m[6]), UserAgent: m[7],
			Host: m[8], Format: "combined"}, nil
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(l), &j); err != nil {
		return logHit{}, err
	}
	switch {
	case j["request"] != nil:
		return caddyHit(j)
	case j["ClientRequestURI"] != nil:
		return cloudflareHit(j)
	case j["path"] != nil:
		ts, err := time.Parse(time.RFC3339, str(j["time"]))
		if err != nil {
			return logHit{}, fmt.Errorf("time: %v", err)
		}
		return logHit{Time: ts, Method: str(j["method"]), Host: str(j["host"]), Path: str(j["path"]), Status: int(num(j["status"])),
			UserAgent: str(j["userAgent"]), IP: str(j["ip"]), Referer: str(j["referrer"]), Format: "herald"}, nil
	}
	return logHit{}, fmt.Errorf("not a Caddy, Cloudflare or Herald line")
}

func caddyHit(j map[string]any) (logHit, error) {
	if !strings.HasPrefix(str(j["logger"]), "http.log.access") {
		return logHit{}, fmt.Errorf("logger %q is not an access log", j["logger"])
	}
	req, _ := j["request"].(map[string]any)
	headers, _ := req["headers"].(map[string]any)
	first := func(k string) string {
		if v, ok := headers[k].([]any); ok && len(v) > 0 {
			return str(v[0])
		}
		return ""
	}
	sec := num(j["ts"])
	ip := str(req["client_ip"])
	if ip == "" {
		ip = str(req["remote_ip"])
	}
	return logHit{Time: time.Unix(0, int64(sec*1e9)), Method: str(req["method"]), Host: hostOnly(str(req["host"])), Path: str(req["uri"]),
		Status: int(num(j["status"])), UserAgent: first("User-Agent"), Referer: first("Referer"), IP: ip, Format: "caddy"}, nil
}

func cloudflareHit(j map[string]any) (logHit, error) {
	ts, err := time.Parse(time.RFC3339, str(j["EdgeStartTimestamp"]))
	if err != nil {
		return logHit{}, fmt.Errorf("EdgeStartTimestamp: %v", err)
	}
	return logHit{Time: ts, Method: str(j["ClientRequestMethod"]), Host: str(j["ClientRequestHost"]), Path: str(j["ClientRequestURI"]),
		Status: int(num(j["EdgeResponseStatus"])), UserAgent: str(j["ClientRequestUserAgent"]), IP: str(j["ClientIP"]),
		Referer: str(j["ClientRequestReferer"]), Format: "cloudflare"}, nil
}

// cloudflareFieldsRead are the http_requests fields the route reads.
var cloudflareFieldsRead = []string{"ClientIP", "ClientRequestHost", "ClientRequestMethod", "ClientRequestReferer",
	"ClientRequestURI", "ClientRequestUserAgent", "EdgeResponseStatus", "EdgeStartTimestamp"}

func hostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return h
}

func dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

func str(v any) string { s, _ := v.(string); return s }

func num(v any) float64 { f, _ := v.(float64); return f }
