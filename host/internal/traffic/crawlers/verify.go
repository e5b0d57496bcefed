package crawlers

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Hosts are the host names operators document for reverse-then-forward
// DNS checks of their crawlers: the PTR name of the IP must be one of
// these or end in "." and one of these, and that name must resolve back
// to the IP.
var Hosts = map[string][]string{
	// Google: crawl-…googlebot.com, geo-crawl-…geo.googlebot.com,
	// rate-limited-proxy-…google.com for user-triggered fetchers.
	"Google":    {"googlebot.com", "google.com", "googleusercontent.com"},
	"Apple":     {"applebot.apple.com"},
	"Amazon":    {"crawl.amazonbot.amazon"},
	"Microsoft": {"search.msn.com"},
}

// Resolver is the DNS a Verifier asks; *net.Resolver is one.
type Resolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// How says how a hit was verified.
type How string

// The outcomes of Verify.
const (
	// ByRange: the IP is in the operator's published ranges.
	ByRange How = "range"
	// ByDNS: reverse-then-forward DNS led to the operator's host names.
	ByDNS How = "dns"
	// Claimed: neither; only the user agent says who it is.
	Claimed How = ""
)

// Verifier checks crawler hits against the ranges in force and DNS. DNS
// answers are cached per operator and IP (crawlers come back from the same
// addresses), for an hour.
type Verifier struct {
	ranges   atomic.Pointer[Ranges]
	resolver Resolver
	timeout  time.Duration
	now      func() time.Time

	mu    sync.Mutex
	cache map[string]dnsVerdict
}

type dnsVerdict struct {
	ok  bool
	exp time.Time
}

const (
	dnsCacheTTL  = time.Hour
	dnsCacheSize = 100000
)

// NewVerifier returns a Verifier over r; resolver nil is net.DefaultResolver.
func NewVerifier(r *Ranges, resolver Resolver) *Verifier {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	v := &Verifier{resolver: resolver, timeout: 2 * time.Second, now: time.Now, cache: map[string]dnsVerdict{}}
	v.ranges.Store(r)
	return v
}

// SetRanges replaces the ranges in force (a newer file was loaded).
func (v *Verifier) SetRanges(r *Ranges) { v.ranges.Store(r) }

// Ranges returns the ranges in force.
func (v *Verifier) Ranges() *Ranges { return v.ranges.Load() }

// Budget caps the DNS lookups of one batch of hits: an IP not in the
// cache costs one; with none left, a hit outside the ranges is claimed.
type Budget struct{ Left int }

// Verify says how a hit of operator's crawler from ip is verified:
// ByRange, ByDNS, or Claimed.
func (v *Verifier) Verify(ctx context.Context, operator, ip string, budget *Budget) How {
	addr, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return Claimed
	}
	addr = addr.Unmap()
	if v.ranges.Load().Contains(operator, addr) {
		return ByRange
	}
	hosts := Hosts[operator]
	if len(hosts) == 0 {
		return Claimed
	}
	key := operator + "|" + addr.String()
	now := v.now()
	v.mu.Lock()
	c, ok := v.cache[key]
	v.mu.Unlock()
	if !ok || now.After(c.exp) {
		if budget != nil {
			if budget.Left <= 0 {
				return Claimed
			}
			budget.Left--
		}
		c = dnsVerdict{ok: v.dns(ctx, addr, hosts), exp: now.Add(dnsCacheTTL)}
		v.mu.Lock()
		if len(v.cache) >= dnsCacheSize {
			clear(v.cache)
		}
		v.cache[key] = c
		v.mu.Unlock()
	}
	if c.ok {
		return ByDNS
	}
	return Claimed
}

// dns is the reverse-then-forward check: a PTR name under hosts that
// resolves back to addr.
func (v *Verifier) dns(ctx context.Context, addr netip.Addr, hosts []string) bool {
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	names, err := v.resolver.LookupAddr(ctx, addr.String())
	if err != nil {
		return false
	}
	for _, name := range names {
		name = strings.TrimSuffix(strings.ToLower(name), ".")
		if !underAny(name, hosts) {
			continue
		}
		ips, err := v.resolver.LookupHost(ctx, name)
		if err != nil {
			continue
		}
		for _, s := range ips {
			if a, err := netip.ParseAddr(s); err == nil && a.Unmap() == addr {
				return true
			}
		}
	}
	return false
}

// underAny reports whether name is one of hosts or a subdomain of one.
func underAny(name string, hosts []string) bool {
	for _, h := range hosts {
		if name == h || strings.HasSuffix(name, "."+h) {
			return true
		}
	}
	return false
}
