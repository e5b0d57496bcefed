package destination

import (
	"context"
	"github.com/heraldhq/herald/host/internal/weburl"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/sdk"
)

// ParseWebhookURL is the form check of a URL Herald will POST to (saved
// webhooks, event subscriptions): an absolute http(s) URL with a host. The
// error is a 400 naming the field url.
func ParseWebhookURL(raw string) (*url.URL, error) {
	u, ok := weburl.Parse(raw)
	if !ok {
		return nil, apierr.Invalid("url must be an http(s) URL")
	}
	return u, nil
}

// CheckWebhookAddress refuses, with a 400, a URL whose host is or resolves
// to an address the guarded client would not dial (private, loopback,
// link-local, ... outside allowed): the same rule as every delivery, told
// at once. A name that does not resolve now passes; the guard still
// applies to the address dialled at each delivery.
func CheckWebhookAddress(ctx context.Context, u *url.URL, allowed []netip.Prefix) error {
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil
		}
		addrs = ips
	}
	for _, a := range addrs {
		if !sdk.AddressAllowed(a, allowed) {
			return apierr.Invalid("url must reach a public address (%s is private or reserved)", host)
		}
	}
	return nil
}

// MaskWebhookURL is how a saved webhook's URL is shown, and the only form
// of it stored in clear (display_url): scheme, host (and port), and the
// path masked but for its last four characters when it is long enough to
// keep them. Chat webhooks carry their token in the path
// (…/services/T0/B0/SECRET); the full URL lives only in the webhook's
// sealed credentials. (Store migration 10 masked older rows with this
// rule as it was then.)
func MaskWebhookURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(hidden)"
	}
	out := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	switch {
	case path == "":
		return out
	case strings.HasPrefix(path, "/****"):
		return out + path // already masked
	case len(path) >= 16:
		return out + "/****" + path[len(path)-4:]
	default:
		return out + "/****"
	}
}
