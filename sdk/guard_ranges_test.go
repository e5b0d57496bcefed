package sdk

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBlockedRangesAreRefusedEdgeToEdge pins the extent of the blocks that
// matter most, by literal addresses rather than by the table itself: the
// first and last address of each block and a few inside are refused, the
// neighbours just outside are allowed. Narrowing carrier-grade NAT
// 100.64.0.0/10 to /16 (or widening it to /9) turns this red.
func TestBlockedRangesAreRefusedEdgeToEdge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		block   string
		refused []string
		allowed []string
	}{
		{"carrier-grade NAT 100.64.0.0/10",
			[]string{"100.64.0.0", "100.64.0.1", "100.64.255.255", "100.65.0.1", "100.100.100.100", "100.120.7.9", "100.127.0.1", "100.127.255.255", "::ffff:100.127.255.255", "64:ff9b::6440:1", "2002:647f:ffff::1"},
			[]string{"100.63.255.255", "100.128.0.0", "100.128.0.1", "64:ff9b::643f:ffff", "2002:6480::1"}},
		{"private 10.0.0.0/8",
			[]string{"10.0.0.0", "10.255.255.255"},
			[]string{"9.255.255.255", "11.0.0.0"}},
		{"private 172.16.0.0/12",
			[]string{"172.16.0.0", "172.31.255.255"},
			[]string{"172.15.255.255", "172.32.0.0"}},
		{"private 192.168.0.0/16",
			[]string{"192.168.0.0", "192.168.255.255"},
			[]string{"192.167.255.255", "192.169.0.0"}},
		{"link-local 169.254.0.0/16",
			[]string{"169.254.0.0", "169.254.255.255"},
			[]string{"169.253.255.255", "169.255.0.0"}},
		{"loopback 127.0.0.0/8",
			[]string{"127.0.0.0", "127.255.255.255"},
			[]string{"126.255.255.255", "128.0.0.0"}},
		{"benchmarking 198.18.0.0/15",
			[]string{"198.18.0.0", "198.19.255.255"},
			[]string{"198.17.255.255", "198.20.0.0"}},
		{"reserved 240.0.0.0/4 and multicast 224.0.0.0/4",
			[]string{"224.0.0.0", "239.255.255.255", "240.0.0.0", "255.255.255.254"},
			[]string{"223.255.255.255"}},
		{"IPv6 documentation 2001:db8::/32",
			[]string{"2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"},
			[]string{"2001:db9::1"}},
	}
	for _, tt := range tests {
		t.Run(tt.block, func(t *testing.T) {
			t.Parallel()
			for _, a := range tt.refused {
				if addressAllowed(netip.MustParseAddr(a), nil) {
					t.Errorf("%s is allowed, want refused (%s)", a, tt.block)
				}
			}
			for _, a := range tt.allowed {
				if !addressAllowed(netip.MustParseAddr(a), nil) {
					t.Errorf("%s is refused, want allowed (just outside %s)", a, tt.block)
				}
			}
		})
	}
}

func TestAllowedPrivateCIDRsFromTheEnvironment(t *testing.T) {
	t.Setenv(AllowedPrivateCIDRsEnv, " 10.1.2.3/16, ,not-a-cidr,fd00::1/64 ")
	got := AllowedPrivateCIDRs()
	want := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("fd00::/64")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("AllowedPrivateCIDRs() = %v, want %v (masked, blanks and invalid entries skipped)", got, want)
	}
	t.Setenv(AllowedPrivateCIDRsEnv, "")
	if got := AllowedPrivateCIDRs(); len(got) != 0 {
		t.Fatalf("unset: %v", got)
	}
}

// TestAGuardedClientFollowsAtMostFourRedirects: the fifth redirect is
// refused ("stopped after 5 redirects", as net/http counts).
func TestAGuardedClientFollowsAtMostFourRedirects(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r"))
		if n == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Redirect(w, r, "/r"+strconv.Itoa(n-1), http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	c := GuardedHTTPClient(5*time.Second, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")})
	res, err := c.Get(srv.URL + "/r4")
	if err != nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("four redirects: %v %v", res, err)
	}
	res.Body.Close()
	if _, err := c.Get(srv.URL + "/r5"); err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Fatalf("five redirects: %v", err)
	}
}
