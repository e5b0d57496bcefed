package site_test

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/site"
)

// defaultFetcher reaches the test site as example.com with the default
// caps (no MaxPageBytes, no MaxPages).
func (ts *testSite) defaultFetcher() *site.Fetcher {
	pool := x509.NewCertPool()
	pool.AddCert(ts.srv.Certificate())
	return site.New(site.Deps{
		UserAgent: testUA,
		RootCAs:   pool,
		Hosts:     map[string]string{"example.com:443": ts.srv.Listener.Addr().String()},
		// The test server listens on loopback.
		AllowedPrivateCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
}

// pageOf returns an HTML page of exactly n bytes.
func pageOf(n int) string {
	const head, tail = "<html><body><p>", "</p></body></html>"
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// TestPagesAreCappedAtTwoMiBByDefault: a page of exactly 2 MiB is read, one
// byte more is refused, whether the server announces its length or streams.
func TestPagesAreCappedAtTwoMiBByDefault(t *testing.T) {
	t.Parallel()
	if site.DefaultMaxPageBytes != 2<<20 {
		t.Fatalf("DefaultMaxPageBytes = %d, want 2 MiB", site.DefaultMaxPageBytes)
	}
	serve := func(n int, stream bool) http.HandlerFunc {
		body := pageOf(n)
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			if !stream {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			}
			for chunk := range chunks(body, 256<<10) {
				_, _ = w.Write([]byte(chunk))
				if stream {
					w.(http.Flusher).Flush()
				}
			}
		}
	}
	const limit = 2 << 20
	ts := newTestSite(t, map[string]http.HandlerFunc{
		"/at":            serve(limit, false),
		"/over":          serve(limit+1, false),
		"/at-streamed":   serve(limit, true),
		"/over-streamed": serve(limit+1, true),
	})
	f := ts.defaultFetcher()
	for _, path := range []string{"/at", "/at-streamed"} {
		if _, err := f.Fetch(context.Background(), "https://example.com"+path); err != nil {
			t.Errorf("%s (exactly 2 MiB): %v", path, err)
		}
	}
	for _, path := range []string{"/over", "/over-streamed"} {
		_, err := f.Fetch(context.Background(), "https://example.com"+path)
		if !errors.Is(err, site.ErrTooLarge) || !strings.Contains(err.Error(), "2048 KiB") {
			t.Errorf("%s (2 MiB + 1 byte): %v, want too large over the 2048 KiB limit", path, err)
		}
	}
	// An announced length is refused before the body is read, and says so.
	if _, err := f.Fetch(context.Background(), "https://example.com/over"); err == nil || !strings.Contains(err.Error(), "(2097153 bytes)") {
		t.Errorf("an announced 2 MiB + 1 byte is not refused by its length: %v", err)
	}
}

func chunks(s string, n int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(s) > 0 {
			k := min(n, len(s))
			if !yield(s[:k]) {
				return
			}
			s = s[k:]
		}
	}
}

// TestRedirectsAreCapped: five redirects are followed, a sixth is refused
// without fetching its target.
func TestRedirectsAreCapped(t *testing.T) {
	t.Parallel()
	routes := map[string]http.HandlerFunc{"/r0": html(homeHTML)}
	for i := 1; i <= 6; i++ {
		to := "/r" + strconv.Itoa(i-1)
		routes["/r"+strconv.Itoa(i)] = func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, http.StatusFound)
		}
	}
	ts := newTestSite(t, routes)
	f := ts.defaultFetcher()
	p, err := f.Fetch(context.Background(), "https://example.com/r5")
	if err != nil || p.URL != "https://example.com/r0" {
		t.Fatalf("five redirects: %+v %v", p.URL, err)
	}
	if ts.hit("/r0") != 1 {
		t.Fatalf("the target of five redirects was fetched %d times", ts.hit("/r0"))
	}
	_, err = f.Fetch(context.Background(), "https://example.com/r6")
	if !errors.Is(err, site.ErrUnreachable) || !strings.Contains(err.Error(), "redirected more than 5 times") {
		t.Fatalf("six redirects: %v, want refused after five", err)
	}
	if ts.hit("/r0") != 1 {
		t.Fatalf("the sixth redirect was followed")
	}
}
