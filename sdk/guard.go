package sdk

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"time"
)

// AllowedPrivateCIDRsEnv names the environment variable listing, comma
// separated, the CIDRs that [GuardedHTTPClient] may reach although they are
// private or loopback (tests, on-premise destinations). Herald passes its
// own setting of the same name to plugins.
const AllowedPrivateCIDRsEnv = "HERALD_ALLOWED_PRIVATE_CIDRS"

// ErrForbiddenAddress is returned (wrapped) when a guarded client refuses to
// dial a non-public address. [RequestError] turns it into a non-retryable
// CodeInvalidArgument error.
var ErrForbiddenAddress = errors.New("address is not public")

// maxRedirects bounds the redirects a guarded client follows.
const maxRedirects = 5

// AllowedPrivateCIDRs parses [AllowedPrivateCIDRsEnv]. Entries that are not
// CIDRs are skipped and logged.
func AllowedPrivateCIDRs() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range strings.Split(os.Getenv(AllowedPrivateCIDRsEnv), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			Logger().Warn("ignoring invalid CIDR", "env", AllowedPrivateCIDRsEnv, "value", s)
			continue
		}
		out = append(out, p.Masked())
	}
	return out
}

// GuardedHTTPClient returns an HTTP client for URLs that users supply
// (webhook endpoints, self-hosted sites, image URLs). It dials only public
// addresses, checked on the address actually dialled so that DNS rebinding
// fails, except those inside allowed; it ignores proxy settings, follows at
// most 5 redirects under the same rule and gives up after timeout.
// Plugins pass [AllowedPrivateCIDRs]() as allowed.
func GuardedHTTPClient(timeout time.Duration, allowed []netip.Prefix) *http.Client {
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("dial %s: %w", address, ErrForbiddenAddress)
			}
			if !addressAllowed(ap.Addr().Unmap(), allowed) {
				return fmt.Errorf("dial %s: %w", ap.Addr(), ErrForbiddenAddress)
			}
			return nil
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return nil
		},
	}
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

func addressAllowed(a netip.Addr, allowed []netip.Prefix) bool {
	for _, p := range allowed {
		if p.Contains(a) {
			return true
		}
	}
	return a.IsGlobalUnicast() && !a.IsPrivate() && !cgnat.Contains(a)
}

// isForbidden reports whether err comes from a guarded client's refusal.
func isForbidden(err error) bool { return errors.Is(err, ErrForbiddenAddress) }
