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
// CodeInvalidArgument error that says only "address is not allowed": what a
// name resolved to stays in the plugin's log.
var ErrForbiddenAddress = errors.New("address is not allowed")

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
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           guardedDialer(allowed).DialContext,
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

// guardedDialer dials only addresses that addressAllowed accepts, checked
// on the address actually dialled, and gives up a connection after 10 s.
func guardedDialer(allowed []netip.Prefix) *net.Dialer {
	return &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("dial %s: %w", address, ErrForbiddenAddress)
			}
			if !addressAllowed(ap.Addr(), allowed) {
				return fmt.Errorf("dial %s: %w", ap.Addr(), ErrForbiddenAddress)
			}
			return nil
		},
	}
}

// blockedIPv4 are the IPv4 blocks of the IANA IPv4 Special-Purpose Address
// Registry (RFC 6890 and its updates) that are not globally reachable or
// that a server has no business calling, plus multicast and broadcast.
var blockedIPv4 = prefixes(
	"0.0.0.0/8",          // "this network" (RFC 791); 0.0.0.0 reaches localhost on Linux
	"10.0.0.0/8",         // private (RFC 1918)
	"100.64.0.0/10",      // carrier-grade NAT shared space (RFC 6598)
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local, cloud metadata
	"172.16.0.0/12",      // private (RFC 1918)
	"192.0.0.0/24",       // IETF protocol assignments (RFC 6890)
	"192.0.2.0/24",       // TEST-NET-1
	"192.88.99.0/24",     // deprecated 6to4 relay anycast (RFC 7526)
	"192.168.0.0/16",     // private (RFC 1918)
	"198.18.0.0/15",      // benchmarking (RFC 2544)
	"198.51.100.0/24",    // TEST-NET-2
	"203.0.113.0/24",     // TEST-NET-3
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved (RFC 1112), includes broadcast
	"255.255.255.255/32", // limited broadcast
)

// blockedIPv6 are the IPv6 blocks of the IANA IPv6 Special-Purpose Address
// Registry inside 2000::/3 (everything outside 2000::/3 is refused anyway)
// that are not globally reachable or carry another protocol.
var blockedIPv6 = prefixes(
	"2001::/23",     // IETF protocol assignments: Teredo, benchmarking, ORCHID (RFC 2928)
	"2001:db8::/32", // documentation (RFC 3849)
	"3fff::/20",     // documentation (RFC 9637)
)

var (
	// globalUnicast6 is the only IPv6 space allocated for global unicast
	// (RFC 4291); it excludes ::/8, 100::/64, 5f00::/16, fc00::/7,
	// fe80::/10, fec0::/10 and ff00::/8.
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	// nat64 is the well-known NAT64 prefix (RFC 6052): the last 32 bits are
	// the IPv4 address the translator reaches.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	// nat64Local is the local-use NAT64 prefix (RFC 8215), never global.
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	// sixToFour embeds an IPv4 address in bits 16-47 (RFC 3056).
	sixToFour = netip.MustParsePrefix("2002::/16")
	// ipv4Compatible is the deprecated ::a.b.c.d form (RFC 4291 2.5.5.1).
	ipv4Compatible = netip.MustParsePrefix("::/96")
)

func prefixes(cidrs ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(cidrs))
	for i, c := range cidrs {
		out[i] = netip.MustParsePrefix(c)
	}
	return out
}

// embeddedIPv4 returns the IPv4 address an IPv6 address carries (mapped,
// IPv4-compatible, NAT64 or 6to4), so the check applies to what the
// packet finally reaches.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if a.Is4In6() {
		return a.Unmap(), true
	}
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case nat64.Contains(a), ipv4Compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

func addressAllowed(a netip.Addr, allowed []netip.Prefix) bool {
	a = a.WithZone("")
	for _, p := range allowed {
		if p.Contains(a) || p.Contains(a.Unmap()) {
			return true
		}
	}
	if v4, ok := embeddedIPv4(a); ok {
		if a.Is4In6() {
			return addressAllowed(v4, allowed)
		}
		// An IPv4 address reached through a translator or tunnel gets the
		// IPv4 rules, and never the operator's allowed CIDRs.
		return addressAllowed(v4, nil)
	}
	if a.Is4() {
		for _, p := range blockedIPv4 {
			if p.Contains(a) {
				return false
			}
		}
		return true
	}
	if !globalUnicast6.Contains(a) || nat64Local.Contains(a) {
		return false
	}
	for _, p := range blockedIPv6 {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// isForbidden reports whether err comes from a guarded client's refusal.
func isForbidden(err error) bool { return errors.Is(err, ErrForbiddenAddress) }
