// Package logs reads the access logs web servers and CDNs write: the
// Combined Log Format of nginx and Apache, Caddy's JSON access log,
// Cloudflare Logpush's HTTP requests records and Herald's own line object.
// The parsers are pure functions from bytes to a Line or an error; what a
// line means (crawler, bot, visit) is package traffic's business.
package logs

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"strings"
	"time"
)

// Line is one request read from a log, in the fields every format has.
type Line struct {
	// Time is when the request was made (UTC).
	Time time.Time
	// Method is the HTTP method, "GET" when the format has none.
	Method string
	// Host is the requested host without a port; "" when the format does
	// not say (Combined Log Format without a host field).
	Host string
	// Path is the request path without query or fragment.
	Path string
	// Status is the response status code.
	Status int
	// UserAgent and Referrer are the request's headers, "" when absent.
	UserAgent, Referrer string
	// IP is the client address as logged.
	IP string
}

// Format is a log format a line was read as.
type Format string

// The formats Parse reads.
const (
	Combined   Format = "combined"
	Caddy      Format = "caddy"
	Cloudflare Format = "cloudflare"
	Herald     Format = "herald"
)

// Body errors: the whole request is refused, no line is read.
var (
	ErrContentType = errors.New("Content-Type must be text/plain (log lines), application/x-ndjson (JSON lines) or application/json (an array of line objects)")
	ErrNotArray    = errors.New("an application/json body must be a JSON array of line objects (or JSON lines)")
)

// LineError is why one line was not read.
type LineError struct {
	// N is the line's number in the body, from 1 (the element's index + 1
	// for a JSON array).
	N      int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.N, e.Reason) }

// Kind is the body kind a Content-Type names.
type Kind int

// The body kinds.
const (
	Text Kind = iota + 1
	NDJSON
	JSONArray
)

// KindOf maps a Content-Type header to the body kind, or ErrContentType.
func KindOf(contentType string) (Kind, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, ErrContentType
	}
	switch mt {
	case "text/plain":
		return Text, nil
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/jsonlines":
		return NDJSON, nil
	case "application/json":
		return JSONArray, nil
	}
	return 0, ErrContentType
}

// Count returns how many lines (or array elements) Each would visit, at
// most max+1, so a caller can refuse an oversized body before reading it.
func Count(kind Kind, body []byte, max int) int {
	body = bytes.TrimSpace(body)
	if kind == JSONArray && len(body) > 0 && body[0] == '[' {
		return countArray(body, max)
	}
	n := 0
	for len(body) > 0 && n <= max {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			i = len(body)
		}
		if len(bytes.TrimSpace(body[:i])) > 0 {
			n++
		}
		body = body[min(i+1, len(body)):]
	}
	return n
}

// Each reads body as kind and calls fn for every non-empty line, with the
// line or its *LineError (fn's n is the line number). The error is a body
// error (ErrNotArray); lines that do not parse are passed to fn, never
// returned.
func Each(kind Kind, body []byte, fn func(n int, l Line, f Format, err error)) error {
	trimmed := bytes.TrimSpace(body)
	if kind == JSONArray && len(trimmed) > 0 {
		if trimmed[0] == '[' {
			return eachArray(trimmed, fn)
		}
		if trimmed[0] != '{' {
			return ErrNotArray
		}
		kind = NDJSON // JSON lines labelled application/json
	}
	// One conversion of the body; every field is a substring of it.
	text := string(body)
	n := 0
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		line := text
		if i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		n++
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		var (
			l   Line
			f   Format
			err error
		)
		if line[0] == '{' || kind == NDJSON {
			l, f, err = ParseJSON([]byte(line))
		} else {
			l, err = ParseCombined(line)
			f = Combined
		}
		if err != nil {
			fn(n, Line{}, f, &LineError{N: n, Reason: err.Error()})
			continue
		}
		fn(n, l, f, nil)
	}
	return nil
}

// cleanPath reduces a request target (a path or an absolute URL) to its
// path: query and fragment dropped.
func cleanPath(target string) (path, host string, err error) {
	if target == "" {
		return "", "", errors.New("no path")
	}
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		rest := target[strings.Index(target, "://")+3:]
		i := strings.IndexAny(rest, "/?#")
		if i < 0 {
			host, target = rest, "/"
		} else {
			host, target = rest[:i], rest[i:]
		}
	}
	if i := strings.IndexAny(target, "?#"); i >= 0 {
		target = target[:i]
	}
	if target == "" {
		target = "/"
	}
	if target[0] != '/' && target != "*" {
		return "", "", fmt.Errorf("path %q does not start with /", cut(target, 60))
	}
	if len(target) > 2048 {
		return "", "", errors.New("path is longer than 2048 characters")
	}
	return target, hostOnly(host), nil
}

// hostOnly lowercases a host and drops its port and a trailing dot.
func hostOnly(h string) string {
	if h == "" {
		return ""
	}
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			h = h[1:i]
		}
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
		h = h[:i]
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// cut shortens s for an error message.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
