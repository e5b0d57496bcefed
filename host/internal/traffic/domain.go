package traffic

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// ErrInvalidDomain is wrapped by NormalizeDomain's errors.
var ErrInvalidDomain = errors.New("invalid domain")

// NormalizeDomain turns what a user types for a website ("https://WWW.Bücher.de:443/shop?x")
// into the host name a site is stored under ("xn--bcher-kva.de"): lowercase,
// punycode, without scheme, credentials, port, path, trailing dot or
// leading "www.". IP addresses and single-label names are refused.
func NormalizeDomain(in string) (string, error) {
	s := strings.TrimSpace(in)
	if s == "" {
		return "", fmt.Errorf("%w: domain is empty", ErrInvalidDomain)
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%w: %q is not a domain or URL", ErrInvalidDomain, in)
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if host == "" {
		return "", fmt.Errorf("%w: %q has no host name", ErrInvalidDomain, in)
	}
	if net.ParseIP(host) != nil {
		return "", fmt.Errorf("%w: %q is an IP address, not a domain", ErrInvalidDomain, in)
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrInvalidDomain, in, err)
	}
	ascii = strings.TrimPrefix(strings.ToLower(ascii), "www.")
	if len(ascii) > 253 {
		return "", fmt.Errorf("%w: %q is longer than 253 characters", ErrInvalidDomain, in)
	}
	labels := strings.Split(ascii, ".")
	if len(labels) < 2 {
		return "", fmt.Errorf("%w: %q needs a top-level domain, such as example.com", ErrInvalidDomain, in)
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", fmt.Errorf("%w: %q has an invalid label %q", ErrInvalidDomain, in, l)
		}
		for _, c := range []byte(l) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", fmt.Errorf("%w: %q contains %q", ErrInvalidDomain, in, string(c))
			}
		}
	}
	if tld := labels[len(labels)-1]; strings.Trim(tld, "0123456789") == "" {
		return "", fmt.Errorf("%w: %q has a numeric top-level domain", ErrInvalidDomain, in)
	}
	return ascii, nil
}
