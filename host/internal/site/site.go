package site

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/weburl"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/heraldhq/herald/sdk"
)

// Default caps. A brand's home page is rarely over 1 MiB of HTML; a page
// larger than MaxPageBytes is refused rather than truncated, since the
// facts (JSON-LD at the end of body) may be in the part we would drop.
const (
	DefaultMaxPageBytes = 2 << 20
	DefaultTimeout      = 15 * time.Second
	// DefaultCrawlDeadline bounds a whole Crawl (home page, robots.txt,
	// sitemaps, llms.txt, about page and posts) and a FetchFile, for brand
	// voices and visibility reports alike: each request gets what is left
	// of it, at most Timeout.
	DefaultCrawlDeadline = 45 * time.Second
	DefaultMaxPages      = 5
	maxTextFileBytes     = 512 << 10
	maxRedirects         = 5
)

// Reason classifies why a page could not be fetched or used.
type Reason string

// The reasons of Error.
const (
	ReasonInvalidURL  Reason = "invalid_url"
	ReasonNotHTTPS    Reason = "not_https"
	ReasonPrivate     Reason = "private_address"
	ReasonNotHTML     Reason = "not_html"
	ReasonTooLarge    Reason = "too_large"
	ReasonStatus      Reason = "http_status"
	ReasonUnreachable Reason = "unreachable"
)

// Error says why a URL could not be used. Its message names the host but
// not the path or query (they may carry tokens) and is meant for users.
type Error struct {
	Reason Reason
	// Status is the HTTP status for ReasonStatus.
	Status int
	msg    string
	err    error
}

func (e *Error) Error() string { return e.msg }

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.err }

// Is makes errors.Is(err, &Error{Reason: r}) match on the reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason && t.msg == ""
}

// Sentinels for errors.Is.
var (
	ErrInvalidURL  = &Error{Reason: ReasonInvalidURL}
	ErrNotHTTPS    = &Error{Reason: ReasonNotHTTPS}
	ErrPrivate     = &Error{Reason: ReasonPrivate}
	ErrNotHTML     = &Error{Reason: ReasonNotHTML}
	ErrTooLarge    = &Error{Reason: ReasonTooLarge}
	ErrStatus      = &Error{Reason: ReasonStatus}
	ErrUnreachable = &Error{Reason: ReasonUnreachable}
)

func fail(r Reason, err error, format string, args ...any) *Error {
	return &Error{Reason: r, msg: fmt.Sprintf(format, args...), err: err}
}

// Deps configures a Fetcher.
type Deps struct {
	// UserAgent is sent with every request; see UserAgent.
	UserAgent string
	// AllowedPrivateCIDRs are private ranges that may be reached anyway
	// (tests, on-premise sites); empty refuses every non-public address.
	AllowedPrivateCIDRs []netip.Prefix
	// Timeout bounds each request (default DefaultTimeout).
	Timeout time.Duration
	// CrawlDeadline bounds a whole Crawl or FetchFile (default
	// DefaultCrawlDeadline): when it passes, the pages past the home page
	// that are not fetched yet are left out; the home page's own failure
	// is Crawl's error.
	CrawlDeadline time.Duration
	// MaxPageBytes bounds an HTML page (default DefaultMaxPageBytes).
	MaxPageBytes int64
	// MaxPages bounds the pages Crawl fetches, the home page included
	// (default DefaultMaxPages).
	MaxPages int
	// RootCAs replaces the system roots (tests with httptest TLS servers).
	RootCAs *x509.CertPool
	// Hosts maps "host:port" to the "ip:port" to dial instead, like
	// /etc/hosts (tests naming a local server example.com). The guard
	// still checks the address dialled.
	Hosts map[string]string
}

// UserAgent returns Herald's crawler User-Agent, "HeraldBot/<version>
// (+<publicURL>)", so that site owners can identify and address it in
// robots.txt.
func UserAgent(version, publicURL string) string {
	if version == "" {
		version = "dev"
	}
	return fmt.Sprintf("HeraldBot/%s (+%s)", version, strings.TrimRight(publicURL, "/"))
}

// robotsToken is the product token HeraldBot honours in robots.txt.
const robotsToken = "HeraldBot"

// Fetcher fetches pages and crawls sites. It is safe for concurrent use.
type Fetcher struct {
	client   *http.Client
	ua       string
	maxBytes int64
	maxPages int
	deadline time.Duration
}

// New returns a Fetcher.
func New(d Deps) *Fetcher {
	if d.Timeout <= 0 {
		d.Timeout = DefaultTimeout
	}
	if d.CrawlDeadline <= 0 {
		d.CrawlDeadline = DefaultCrawlDeadline
	}
	if d.MaxPageBytes <= 0 {
		d.MaxPageBytes = DefaultMaxPageBytes
	}
	if d.MaxPages <= 0 {
		d.MaxPages = DefaultMaxPages
	}
	if d.UserAgent == "" {
		d.UserAgent = UserAgent("dev", "https://github.com/heraldhq/herald")
	}
	client := sdk.GuardedHTTPClient(d.Timeout, d.AllowedPrivateCIDRs)
	if tr, ok := client.Transport.(*http.Transport); ok {
		if d.RootCAs != nil {
			tr.TLSClientConfig = &tls.Config{RootCAs: d.RootCAs, MinVersion: tls.VersionTLS12}
		}
		if len(d.Hosts) > 0 {
			dial, hosts := tr.DialContext, d.Hosts
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				if to, ok := hosts[addr]; ok {
					addr = to
				}
				return dial(ctx, network, addr)
			}
		}
	}
	// The guard re-checks the address of every redirect; we also refuse a
	// redirect off https, which the guard allows for other uses.
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fail(ReasonUnreachable, nil, "%s redirected more than %d times", via[0].URL.Host, maxRedirects)
		}
		if req.URL.Scheme != "https" {
			return fail(ReasonNotHTTPS, nil, "%s redirected to a non-https URL (%s://%s)", via[0].URL.Host, req.URL.Scheme, req.URL.Host)
		}
		return nil
	}
	return &Fetcher{client: client, ua: d.UserAgent, maxBytes: d.MaxPageBytes, maxPages: d.MaxPages, deadline: d.CrawlDeadline}
}

// ParseURL checks that raw is an absolute https URL with a host and returns
// it normalised (no fragment; "/" for an empty path). A bare domain
// ("acme.com") is read as https://acme.com/.
func ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fail(ReasonInvalidURL, nil, "the URL is empty")
	}
	if !strings.Contains(raw, "://") && !strings.HasPrefix(raw, "//") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return nil, fail(ReasonInvalidURL, err, "%q is not a valid URL", raw)
	}
	if !weburl.HTTPS(u) {
		return nil, fail(ReasonNotHTTPS, nil, "%s://%s refused: only https:// URLs are fetched", u.Scheme, u.Host)
	}
	u.Scheme, u.Host, u.Fragment, u.User = "https", strings.ToLower(u.Host), "", nil
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// response is a fetched resource.
type response struct {
	url         *url.URL // after redirects
	status      int
	contentType string
	body        []byte
}

// get fetches u with the caps; a non-2xx status is returned, not an error,
// so that callers decide (a missing robots.txt is not a failure).
func (f *Fetcher) get(ctx context.Context, u *url.URL, accept string, limit int64) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fail(ReasonInvalidURL, err, "%s is not a valid URL", u.Host)
	}
	req.Header.Set("User-Agent", f.ua)
	req.Header.Set("Accept", accept)
	res, err := f.client.Do(req)
	if err != nil {
		return nil, classify(u, err)
	}
	defer res.Body.Close()
	out := &response{url: res.Request.URL, status: res.StatusCode, contentType: res.Header.Get("Content-Type")}
	if res.StatusCode/100 != 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		return out, nil
	}
	if res.ContentLength > limit {
		return nil, fail(ReasonTooLarge, nil, "%s is larger than the %d KiB limit (%d bytes)", u.Host, limit>>10, res.ContentLength)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, classify(u, err)
	}
	if int64(len(body)) > limit {
		return nil, fail(ReasonTooLarge, nil, "%s is larger than the %d KiB limit", u.Host, limit>>10)
	}
	out.body = body
	return out, nil
}

// classify turns a transport error into an Error that says why.
func classify(u *url.URL, err error) *Error {
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	if errors.Is(err, sdk.ErrForbiddenAddress) {
		return fail(ReasonPrivate, err, "%s refused: it resolves to a private or local address", u.Host)
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return fail(ReasonUnreachable, err, "%s did not answer in time", u.Host)
	}
	if errors.Is(err, context.Canceled) {
		return fail(ReasonUnreachable, err, "fetching %s was cancelled", u.Host)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fail(ReasonUnreachable, err, "%s could not be resolved", u.Host)
	}
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		return fail(ReasonUnreachable, err, "%s has an invalid TLS certificate", u.Host)
	}
	return fail(ReasonUnreachable, err, "%s is unreachable", u.Host)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Fetch fetches one HTML page at raw (https only) and extracts its text
// and facts. It does not consult robots.txt: the user asked for this page.
func (f *Fetcher) Fetch(ctx context.Context, raw string) (Page, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return Page{}, err
	}
	return f.fetchPage(ctx, u)
}

func (f *Fetcher) fetchPage(ctx context.Context, u *url.URL) (Page, error) {
	res, err := f.get(ctx, u, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1", f.maxBytes)
	if err != nil {
		return Page{}, err
	}
	if res.status/100 != 2 {
		return Page{}, &Error{Reason: ReasonStatus, Status: res.status, msg: fmt.Sprintf("%s answered HTTP %d", u.Host, res.status)}
	}
	if !isHTML(res.contentType, res.body) {
		ct := res.contentType
		if ct == "" {
			ct = "no content type"
		}
		return Page{}, fail(ReasonNotHTML, nil, "%s is not an HTML page (%s)", u.Host, ct)
	}
	return parsePage(res.url, res.body)
}

// isHTML accepts text/html and XHTML, and a missing type when the body
// sniffs as HTML.
func isHTML(contentType string, body []byte) bool {
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}
