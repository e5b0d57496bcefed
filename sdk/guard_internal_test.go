package sdk

import (
	"net/netip"
	"testing"
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
