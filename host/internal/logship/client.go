package logship

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxLines is the most lines Herald takes in one request.
const MaxLines = 10000

// MaxBytes is the most bytes (after decompression) Herald takes in one request.
const MaxBytes = 8 << 20

// Result is Herald's answer to a batch.
type Result struct {
	Accepted int      `json:"accepted"`
	Rejected int      `json:"rejected"`
	Reasons  []string `json:"reasons"`
}

// Client posts batches to one site's log route.
type Client struct {
	// Endpoint is the full URL of POST /v1/ai-traffic/logs with its query.
	Endpoint string
	// Secret is the site's ingest secret (Authorization: Bearer); APIKey a
	// workspace api key (api-key header). One of them is set.
	Secret, APIKey string
	HTTP           *http.Client
}

// NewClient returns the client of base's log route for siteKey.
func NewClient(base, siteKey, secret, apiKey string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("url %q: want http(s)://host of the Herald API", base)
	}
	if secret == "" && apiKey == "" {
		return nil, errors.New("no credential: give the site's ingest secret or a workspace api key")
	}
	if apiKey != "" && siteKey == "" {
		return nil, errors.New("an api key needs the site key (--site-key)")
	}
	u.Path += "/v1/ai-traffic/logs"
	if siteKey != "" {
		u.RawQuery = url.Values{"siteKey": {siteKey}}.Encode()
	}
	return &Client{Endpoint: u.String(), Secret: secret, APIKey: apiKey, HTTP: &http.Client{Timeout: 60 * time.Second}}, nil
}

// Content types of the route, by what the lines are.
const (
	TypeText   = "text/plain; charset=utf-8"
	TypeNDJSON = "application/x-ndjson"
)

// ContentType is how a batch is posted for a format: "text" (Combined Log
// Format lines), "ndjson" (JSON lines), or "auto": JSON lines when the
// first line is a JSON object (Caddy), else text.
func ContentType(format string, lines []string) string {
	switch format {
	case "ndjson":
		return TypeNDJSON
	case "text":
		return TypeText
	}
	if len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[0]), "{") {
		return TypeNDJSON
	}
	return TypeText
}

// StatusError is an answer other than 200.
type StatusError struct {
	Status int
	// RetryAfter is the wait the answer asked for (429, 503), zero if none.
	RetryAfter time.Duration
	Body       string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("herald answered %d: %s", e.Status, e.Body)
}

// Temporary reports whether sending the same batch again later can work:
// over the daily cap (429), a server error, or a timeout (408).
func (e *StatusError) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout || e.Status >= 500
}

// Post sends one batch, gzip-compressed (access logs shrink about tenfold). A transport error is returned as is (temporary);
// an answer other than 200 is a *StatusError.
func (c *Client) Post(ctx context.Context, contentType string, lines []string) (Result, error) {
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	for _, l := range lines {
		io.WriteString(zw, l)
		zw.Write([]byte{'\n'})
	}
	if err := zw.Close(); err != nil {
		return Result{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint, &body)
	if err != nil {
		return Result{}, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("User-Agent", "herald-logs-ship")
	if c.Secret != "" {
		req.Header.Set("Authorization", "Bearer "+c.Secret)
	} else {
		req.Header.Set("api-key", c.APIKey)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return Result{}, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK {
		return Result{}, &StatusError{Status: res.StatusCode, RetryAfter: retryAfter(res.Header.Get("Retry-After"), time.Now()),
			Body: strings.TrimSpace(string(b))}
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return Result{}, fmt.Errorf("herald's answer is not {accepted, rejected, reasons}: %v", err)
	}
	return r, nil
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 10.2.3); zero when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
