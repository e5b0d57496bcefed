package dashboard_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/dashboard"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestTheHostServesTheDashboardBesideTheAPI: / and /dashboard/ assets
// come from the embedded files with the strict CSP and the right types,
// and every API route, unknown path and method still answers as the API
// does (JSON), so the dashboard shadows nothing.
func TestTheHostServesTheDashboardBesideTheAPI(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	for _, tc := range []struct {
		name, method, path string
		status             int
		contentType        string
		dashboard          bool
	}{
		{"the page is at /", "GET", "/", 200, "text/html; charset=utf-8", true},
		{"HEAD works on the page", "HEAD", "/", 200, "text/html; charset=utf-8", true},
		{"scripts are JavaScript", "GET", "/dashboard/app.js", 200, "text/javascript; charset=utf-8", true},
		{"the stylesheet is CSS", "GET", "/dashboard/style.css", 200, "text/css; charset=utf-8", true},
		{"the chart library is vendored", "GET", "/dashboard/vendor/uPlot.iife.min.js", 200, "text/javascript; charset=utf-8", true},
		{"an unknown asset is 404", "GET", "/dashboard/nope.js", 404, "text/plain; charset=utf-8", true},
		{"directories are not listed", "GET", "/dashboard/vendor/", 404, "text/plain; charset=utf-8", true},
		{"an API route still needs its key", "GET", "/v1/ai-traffic/sites", 401, "application/json", false},
		{"an unknown path is the API's JSON 404", "GET", "/index.html", 404, "application/json", false},
		{"another method on / is the API's JSON 405", "POST", "/", 405, "application/json", false},
		{"health is untouched", "GET", "/healthz", 200, "application/json", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := b.Do(t, tc.method, tc.path, "", "")
			if res.Status != tc.status || !strings.HasPrefix(res.Header.Get("Content-Type"), tc.contentType) {
				t.Fatalf("%s %s: %d %q, want %d %q; body %.200s", tc.method, tc.path, res.Status, res.Header.Get("Content-Type"), tc.status, tc.contentType, res.Raw)
			}
			if got := res.Header.Get("Content-Security-Policy"); tc.dashboard != (got == dashboard.CSP) {
				t.Fatalf("CSP %q on %s (dashboard response: %v)", got, tc.path, tc.dashboard)
			}
			if tc.dashboard && res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatal("dashboard responses must not be sniffed")
			}
		})
	}
	page := b.Do(t, "GET", "/", "", "").Raw
	if !strings.Contains(page, `<script type="module" src="/dashboard/app.js">`) {
		t.Fatalf("the page does not load the app: %s", page)
	}
}

// TestCSPAllowsOnlyTheHost: scripts, styles and requests come from the
// host only; no inline code, no eval, no framing.
func TestCSPAllowsOnlyTheHost(t *testing.T) {
	t.Parallel()
	for _, directive := range []string{"default-src 'none'", "script-src 'self';", "style-src 'self';", "connect-src 'self';", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(dashboard.CSP, directive) {
			t.Errorf("CSP lacks %q: %s", directive, dashboard.CSP)
		}
	}
	if strings.Contains(dashboard.CSP, "unsafe") || strings.Contains(dashboard.CSP, "http") || strings.Contains(dashboard.CSP, "*") {
		t.Errorf("CSP allows more than the host: %s", dashboard.CSP)
	}
}

// TestStaticFilesNeedNoInlineCodeAndBuildNoHTMLFromData: the CSP forbids
// inline scripts, styles and handlers, so the markup has none; and the
// scripts never parse API data as HTML (text only), so a post title or a
// crawled page cannot inject markup.
func TestStaticFilesNeedNoInlineCodeAndBuildNoHTMLFromData(t *testing.T) {
	t.Parallel()
	inline := regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|<style|\sstyle=|\son[a-z]+=|javascript:`)
	unsafeDOM := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function`)
	err := fs.WalkDir(os.DirFS("static"), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, "vendor/") {
			return err
		}
		raw, err := os.ReadFile(filepath.Join("static", path))
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".html":
			if m := inline.FindString(string(raw)); m != "" {
				t.Errorf("%s has inline code the CSP blocks: %q", path, m)
			}
		case ".js":
			if m := unsafeDOM.FindString(string(raw)); m != "" {
				t.Errorf("%s builds HTML from strings: %q", path, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAssetsAreServedCompressedToClientsThatAcceptIt: gzip to a client
// that asks for it (the same bytes once decompressed), plain to one that
// does not, HEAD without a body, and Vary so caches keep both apart.
func TestAssetsAreServedCompressedToClientsThatAcceptIt(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	raw := func(method, path, encoding string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, b.URL+path, nil)
		if encoding != "" {
			req.Header.Set("Accept-Encoding", encoding)
		}
		// No transparent decompression: the test reads what was sent.
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, body
	}
	for _, path := range []string{"/", "/dashboard/app.js", "/dashboard/vendor/uPlot.iife.min.js", "/dashboard/style.css"} {
		plain, want := raw("GET", path, "")
		zres, zbody := raw("GET", path, "br, gzip;q=0.8")
		if plain.Header.Get("Content-Encoding") != "" || zres.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: encodings %q and %q", path, plain.Header.Get("Content-Encoding"), zres.Header.Get("Content-Encoding"))
		}
		if !strings.Contains(zres.Header.Get("Vary"), "Accept-Encoding") || zres.Header.Get("Content-Type") != plain.Header.Get("Content-Type") || zres.Header.Get("Content-Security-Policy") != dashboard.CSP {
			t.Fatalf("%s: headers %v", path, zres.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader(zbody))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(zr)
		if !bytes.Equal(got, want) || len(zbody) >= len(want) {
			t.Fatalf("%s: gzip body of %d bytes decodes to %d bytes, want the %d plain ones", path, len(zbody), len(got), len(want))
		}
		if res, body := raw("HEAD", path, "gzip"); len(body) != 0 || res.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("HEAD %s: %d body bytes, %v", path, len(body), res.Header)
		}
		if res, _ := raw("GET", path, "gzip;q=0"); res.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s: gzip sent to a client that refuses it", path)
		}
	}
}
