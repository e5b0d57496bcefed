package sdk

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestAddressAllowed(t *testing.T) {
	t.Parallel()
	allowed := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}
	tests := []struct {
		name string
		addr string
		want bool
	}{
		{"a public IPv4 address is allowed", "93.184.216.34", true},
		{"a public IPv6 address is allowed", "2001:4860:4860::8888", true},
		{"loopback is refused", "127.0.0.1", false},
		{"IPv6 loopback is refused", "::1", false},
		{"a private network is refused", "192.168.1.10", false},
		{"the cloud metadata address is refused", "169.254.169.254", false},
		{"carrier-grade NAT space is refused", "100.64.1.1", false},
		{"IPv6 link-local is refused", "fe80::1", false},
		{"the unspecified address is refused", "0.0.0.0", false},
		{"a private address inside an allowed CIDR is allowed", "10.1.2.3", true},
		{"a private address outside the allowed CIDR is refused", "10.2.0.1", false},

		// IANA special-purpose blocks that Go's IsGlobalUnicast lets through.
		{"this-network 0.0.0.0/8 is refused", "0.1.2.3", false},
		{"reserved 240.0.0.0/4 is refused", "240.0.0.1", false},
		{"the broadcast address is refused", "255.255.255.255", false},
		{"benchmarking 198.18.0.0/15 is refused", "198.19.0.1", false},
		{"IETF protocol assignments 192.0.0.0/24 are refused", "192.0.0.8", false},
		{"documentation TEST-NET-3 is refused", "203.0.113.7", false},
		{"the 6to4 relay anycast is refused", "192.88.99.1", false},
		{"multicast is refused", "239.1.1.1", false},
		{"site-local fec0::/10 is refused", "fec0::1", false},
		{"unique-local fc00::/7 is refused", "fd00::1", false},
		{"IPv6 documentation is refused", "2001:db8::1", false},
		{"Teredo is refused", "2001:0:4136:e378:8000:63bf:3fff:fdd2", false},
		{"the discard-only block is refused", "100::1", false},
		{"SRv6 SIDs are refused", "5f00::1", false},
		{"IPv6 multicast is refused", "ff02::1", false},

		// Embedded IPv4 is checked as IPv4.
		{"NAT64 of a private address is refused", "64:ff9b::a00:1", false},
		{"NAT64 of loopback is refused", "64:ff9b::7f00:1", false},
		{"NAT64 of a public address is allowed", "64:ff9b::5db8:d822", true},
		{"local-use NAT64 is refused", "64:ff9b:1::a00:1", false},
		{"6to4 of a private address is refused", "2002:a00:1::1", false},
		{"6to4 of the metadata address is refused", "2002:a9fe:a9fe::1", false},
		{"6to4 of a public address is allowed", "2002:5db8:d822::1", true},
		{"IPv4-compatible private address is refused", "::10.0.0.1", false},
		{"IPv4-compatible loopback is refused", "::127.0.0.1", false},
		{"IPv4-mapped loopback is refused", "::ffff:127.0.0.1", false},
		{"IPv4-mapped 0.0.0.0/8 is refused", "::ffff:0.0.0.1", false},
		{"IPv4-mapped allowed CIDR is allowed", "::ffff:10.1.0.1", true},
		{"NAT64 does not open the allowed CIDRs", "64:ff9b::a01:1", false},
		{"a zoned link-local address is refused", "fe80::1%eth0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := addressAllowed(netip.MustParseAddr(tt.addr), allowed); got != tt.want {
				t.Errorf("addressAllowed(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

// TestARefusalNamesNoAddress checks that a caller learns only that the
// address is not allowed, not what the name resolved to.
func TestARefusalNamesNoAddress(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// localhost resolves to a loopback address through the system resolver.
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/secret/path"
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	_, err := GuardedHTTPClient(5*time.Second, nil).Do(req)
	if err == nil {
		t.Fatal("a loopback address was dialled")
	}
	e := RequestError("webhook", err)
	if e.Code != CodeInvalidArgument {
		t.Errorf("code %v, want invalid argument", e.Code)
	}
	if e.Message != "webhook: address is not allowed" {
		t.Errorf("message %q, want %q", e.Message, "webhook: address is not allowed")
	}
}

// The timeouts every guarded client carries, whatever the caller's overall
// timeout: a connection gives up after 10 s, a TLS handshake after 10 s, an
// idle connection is closed after 90 s.
func TestAGuardedClientsTimeouts(t *testing.T) {
	t.Parallel()
	c := GuardedHTTPClient(42*time.Second, nil)
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport %T", c.Transport)
	}
	if c.Timeout != 42*time.Second || tr.TLSHandshakeTimeout != 10*time.Second || tr.IdleConnTimeout != 90*time.Second || tr.ExpectContinueTimeout != time.Second {
		t.Errorf("client %v, TLS handshake %v, idle %v, expect-continue %v", c.Timeout, tr.TLSHandshakeTimeout, tr.IdleConnTimeout, tr.ExpectContinueTimeout)
	}
	if d := guardedDialer(nil); d.Timeout != 10*time.Second {
		t.Errorf("dial timeout %v", d.Timeout)
	}
}
