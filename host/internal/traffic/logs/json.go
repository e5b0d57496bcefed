package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// jsonLine holds the keys of every JSON format; ParseJSON tells them
// apart by which are present.
type jsonLine struct {
	// Caddy's access log.
	Logger  string          `json:"logger"`
	TS      json.RawMessage `json:"ts"`
	Request *caddyRequest   `json:"request"`
	// Caddy's and Herald's.
	Status *int `json:"status"`

	// Cloudflare Logpush, HTTP requests dataset.
	EdgeStartTimestamp     json.RawMessage `json:"EdgeStartTimestamp"`
	ClientRequestMethod    string          `json:"ClientRequestMethod"`
	ClientRequestHost      string          `json:"ClientRequestHost"`
	ClientRequestURI       *string         `json:"ClientRequestURI"`
	EdgeResponseStatus     *int            `json:"EdgeResponseStatus"`
	ClientRequestUserAgent string          `json:"ClientRequestUserAgent"`
	ClientIP               string          `json:"ClientIP"`
	ClientRequestReferer   string          `json:"ClientRequestReferer"`

	// Herald's line object.
	Time      json.RawMessage `json:"time"`
	Method    string          `json:"method"`
	Host      string          `json:"host"`
	Path      *string         `json:"path"`
	UserAgent string          `json:"userAgent"`
	IP        string          `json:"ip"`
	Referrer  string          `json:"referrer"`
}

type caddyRequest struct {
	RemoteIP string              `json:"remote_ip"`
	ClientIP string              `json:"client_ip"`
	Method   string              `json:"method"`
	Host     string              `json:"host"`
	URI      string              `json:"uri"`
	Headers  map[string][]string `json:"headers"`
}

// ParseJSON reads one JSON log line: a Caddy access log entry (it has
// "request"), a Cloudflare Logpush HTTP request (it has
// "ClientRequestURI"), or a Herald line object (it has "path").
func ParseJSON(b []byte) (Line, Format, error) {
	var j jsonLine
	if err := json.Unmarshal(b, &j); err != nil {
		return Line{}, "", fmt.Errorf("not a JSON object: %s", jsonError(err))
	}
	switch {
	case j.Request != nil:
		l, err := j.caddy()
		return l, Caddy, err
	case j.ClientRequestURI != nil:
		l, err := j.cloudflare()
		return l, Cloudflare, err
	case j.Path != nil:
		l, err := j.herald()
		return l, Herald, err
	}
	return Line{}, "", errors.New("not a Caddy access log, Cloudflare Logpush or Herald line object (no request, ClientRequestURI or path)")
}

func (j *jsonLine) caddy() (Line, error) {
	if !strings.HasPrefix(j.Logger, "http.log.access") {
		return Line{}, fmt.Errorf("logger %q is not a Caddy access logger (http.log.access…)", cut(j.Logger, 40))
	}
	r := j.Request
	l := Line{Method: r.Method, IP: r.ClientIP}
	if l.IP == "" {
		l.IP = r.RemoteIP
	}
	var err error
	if l.Time, err = jsonTime(j.TS, time.Second); err != nil {
		return Line{}, fmt.Errorf("ts: %v", err)
	}
	if j.Status == nil {
		return Line{}, errors.New("no status")
	}
	l.Status = *j.Status
	if l.Path, _, err = cleanPath(r.URI); err != nil {
		return Line{}, fmt.Errorf("uri: %v", err)
	}
	l.Host = hostOnly(r.Host)
	l.UserAgent = header(r.Headers, "User-Agent")
	l.Referrer = header(r.Headers, "Referer")
	return l.withDefaults(), nil
}

// header returns the first value of a header, its name matched without
// regard to case (Caddy logs canonical names).
func header(h map[string][]string, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

func (j *jsonLine) cloudflare() (Line, error) {
	l := Line{Method: j.ClientRequestMethod, IP: j.ClientIP, UserAgent: j.ClientRequestUserAgent,
		Referrer: j.ClientRequestReferer, Host: hostOnly(j.ClientRequestHost)}
	var err error
	if l.Time, err = jsonTime(j.EdgeStartTimestamp, 0); err != nil {
		return Line{}, fmt.Errorf("EdgeStartTimestamp: %v", err)
	}
	if j.EdgeResponseStatus == nil {
		return Line{}, errors.New("no EdgeResponseStatus")
	}
	l.Status = *j.EdgeResponseStatus
	var host string
	if l.Path, host, err = cleanPath(*j.ClientRequestURI); err != nil {
		return Line{}, fmt.Errorf("ClientRequestURI: %v", err)
	}
	if l.Host == "" {
		l.Host = host
	}
	return l.withDefaults(), nil
}

func (j *jsonLine) herald() (Line, error) {
	l := Line{Method: j.Method, IP: j.IP, UserAgent: j.UserAgent, Referrer: j.Referrer, Host: hostOnly(j.Host)}
	var err error
	if l.Time, err = jsonTime(j.Time, time.Millisecond); err != nil {
		return Line{}, fmt.Errorf("time: %v", err)
	}
	if j.Status != nil {
		l.Status = *j.Status
	} else {
		l.Status = 200
	}
	var host string
	if l.Path, host, err = cleanPath(*j.Path); err != nil {
		return Line{}, fmt.Errorf("path: %v", err)
	}
	if l.Host == "" {
		l.Host = host
	}
	return l.withDefaults(), nil
}

func (l Line) withDefaults() Line {
	if l.Method == "" {
		l.Method = "GET"
	}
	return l
}

// jsonTime reads a time as an RFC 3339 string or a number. unit is the
// unit of a number; 0 guesses it from its size (Cloudflare's
// timestamp_format: unix seconds, unixnano).
func jsonTime(raw json.RawMessage, unit time.Duration) (time.Time, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, errors.New("missing")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return time.Time{}, err
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", cut(s, 40))
		}
		return t.UTC(), nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return time.Time{}, fmt.Errorf("%s is not a time", cut(string(raw), 40))
	}
	if unit == 0 {
		switch {
		case f > 1e17:
			unit = time.Nanosecond
		case f > 1e14:
			unit = time.Microsecond
		case f > 1e11:
			unit = time.Millisecond
		default:
			unit = time.Second
		}
	}
	ns := f * float64(unit)
	if ns > math.MaxInt64 {
		return time.Time{}, fmt.Errorf("%s is out of range", cut(string(raw), 40))
	}
	return time.Unix(0, int64(ns)).UTC(), nil
}

// eachArray reads a JSON array of line objects element by element.
func eachArray(body []byte, fn func(n int, l Line, f Format, err error)) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return ErrNotArray
	}
	for n := 1; dec.More(); n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%w: element %d: %s", ErrNotArray, n, jsonError(err))
		}
		l, f, err := ParseJSON(raw)
		if err == nil && f != Herald {
			err = errors.New("an array element must be a line object {time, method, host, path, status, userAgent, ip, referrer}")
		}
		if err != nil {
			fn(n, Line{}, f, &LineError{N: n, Reason: err.Error()})
			continue
		}
		fn(n, l, f, nil)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%w: %s", ErrNotArray, jsonError(err))
	}
	return nil
}

// countArray counts an array's elements by their depth-one commas, at
// most max+1.
func countArray(body []byte, max int) int {
	depth, n, inStr, esc, any := 0, 0, false, false, false
	for _, c := range body {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 1 {
				n++
				if n > max {
					return n
				}
			}
		}
		if depth >= 1 && c != '[' && c != ' ' && c != '\n' && c != '\t' && c != '\r' {
			any = true
		}
	}
	if any {
		n++
	}
	return n
}

// jsonError shortens encoding/json's messages to what a shipper can act on.
func jsonError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s must be %s, not %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}
