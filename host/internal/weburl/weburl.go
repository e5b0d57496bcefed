// Package weburl is the one check of "is this a web URL": an absolute URL
// whose scheme is http or https and which names a host. Every area that
// takes a URL to fetch, post to or show as a link asks here.
package weburl

import (
	"net/url"
	"strings"
)

// Parse parses raw and reports whether it is a web URL: scheme http or
// https (url.Parse lowers the scheme) and a host.
func Parse(raw string) (*url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return u, false
	}
	return u, true
}

// HTTPS reports whether u is an https URL, for the callers that fetch only
// over TLS.
func HTTPS(u *url.URL) bool { return strings.EqualFold(u.Scheme, "https") }
