package site_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/site"
)

const testUA = "HeraldBot/test (+https://herald.example)"

// testSite is an https server answering as https://example.com (the name
// its certificate carries), with a hit counter per path.
type testSite struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newTestSite(t *testing.T, routes map[string]http.HandlerFunc) *testSite {
	t.Helper()
	ts := &testSite{hits: map[string]int{}}
	ts.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != testUA {
			http.Error(w, "wrong user agent "+r.Header.Get("User-Agent"), http.StatusTeapot)
			return
		}
		ts.mu.Lock()
		ts.hits[r.URL.Path]++
		ts.mu.Unlock()
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(ts.srv.Close)
	return ts
}

func (ts *testSite) hit(path string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.hits[path]
}

// fetcher reaches the test site as example.com; allowLoopback decides
// whether the guard lets it dial 127.0.0.1.
func (ts *testSite) fetcher(allowLoopback bool, change ...func(*site.Deps)) *site.Fetcher {
	pool := x509.NewCertPool()
	pool.AddCert(ts.srv.Certificate())
	d := site.Deps{
		UserAgent:    testUA,
		RootCAs:      pool,
		Hosts:        map[string]string{"example.com:443": ts.srv.Listener.Addr().String()},
		MaxPageBytes: 64 << 10,
	}
	if allowLoopback {
		d.AllowedPrivateCIDRs = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}
	for _, c := range change {
		c(&d)
	}
	return site.New(d)
}

func html(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

func text(ct, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ct)
		fmt.Fprint(w, body)
	}
}

const homeHTML = `<!doctype html><html lang="en"><head>
<title>Acme Widgets | Industrial widgets</title>
<meta name="description" content="Acme makes industrial widgets for factories.">
<meta property="og:site_name" content="Acme">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
 {"@type":"Organization","name":"Acme Inc","url":"https://example.com","address":{"addressLocality":"Lyon","addressCountry":"FR"}},
 {"@type":["Product"],"name":"WidgetPro","description":"A  sturdy widget"}]}</script>
<script type="application/ld+json">{broken</script>
</head><body><nav><a href="/about">About us</a> <a href="/pricing#top">Pricing</a></nav>
<main><h1>Widgets that last</h1><p>We build widgets.</p><ul><li>Steel</li><li>Brass</li></ul></main>
<a href="/blog/first-post">First</a><a href="/blog/second-post">Second</a><a href="/blog/third-post">Third</a>
<a href="/blog/fourth-post">Fourth</a><a href="https://other.example/x">Other</a><a href="http://example.com/insecure">Insecure</a>
<footer>© Acme</footer></body></html>`

func fullSite(robots string) map[string]http.HandlerFunc {
	routes := map[string]http.HandlerFunc{
		"/":                  html(homeHTML),
		"/about":             html(`<html><head><title>About Acme</title></head><body><article><p>Founded in Lyon in 1990.</p></article></body></html>`),
		"/blog/first-post":   html(`<html><body><article><h1>First</h1><p>Post one.</p></article></body></html>`),
		"/blog/second-post":  html(`<html><body><article><h1>Second</h1><p>Post two.</p></article></body></html>`),
		"/blog/third-post":   html(`<html><body><article><h1>Third</h1><p>Post three.</p></article></body></html>`),
		"/blog/fourth-post":  html(`<html><body><p>Post four.</p></body></html>`),
		"/sitemaps/main.xml": text("application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/</loc></url></urlset>`),
		"/llms.txt":          text("text/plain", "# Acme\n> Industrial widgets.\n"),
	}
	if robots != "" {
		routes["/robots.txt"] = text("text/plain", robots)
	}
	return routes
}

func TestCrawlExtractsTheSiteFacts(t *testing.T) {
	t.Parallel()
	ts := newTestSite(t, fullSite("User-agent: GPTBot\nDisallow: /\n\nUser-agent: ClaudeBot\nUser-agent: PerplexityBot\nDisallow: /private\n\nSitemap: https://example.com/sitemaps/main.xml\n"))
	s, err := ts.fetcher(true).Crawl(context.Background(), "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	f := s.Facts
	if f.URL != "https://example.com/" || !f.HTTPS || f.Domain != "example.com" {
		t.Errorf("url facts = %q %v %q", f.URL, f.HTTPS, f.Domain)
	}
	if f.Title != "Acme Widgets | Industrial widgets" || f.Description != "Acme makes industrial widgets for factories." || f.SiteName != "Acme" {
		t.Errorf("head facts = %q %q %q", f.Title, f.Description, f.SiteName)
	}
	if !slices.Equal(f.H1s, []string{"Widgets that last"}) {
		t.Errorf("H1s = %q", f.H1s)
	}
	if f.Organization == nil || f.Organization.Name != "Acme Inc" || f.Organization.Address != "Lyon, FR" || f.LocalBusiness {
		t.Errorf("organization = %+v", f.Organization)
	}
	if f.BrandName() != "Acme Inc" {
		t.Errorf("brand name = %q", f.BrandName())
	}
	if len(f.Products) != 1 || f.Products[0].Name != "WidgetPro" || f.Products[0].Description != "A sturdy widget" {
		t.Errorf("products = %+v", f.Products)
	}
	if f.AboutURL != "https://example.com/about" || f.AboutText != "Founded in Lyon in 1990." {
		t.Errorf("about = %q %q", f.AboutURL, f.AboutText)
	}
	wantPosts := []string{"https://example.com/blog/first-post", "https://example.com/blog/second-post", "https://example.com/blog/third-post"}
	if !slices.Equal(f.BlogURLs, wantPosts) || ts.hit("/blog/fourth-post") != 0 {
		t.Errorf("posts = %q (fourth fetched %d times)", f.BlogURLs, ts.hit("/blog/fourth-post"))
	}
	if !f.Sitemap || f.SitemapURL != "https://example.com/sitemaps/main.xml" {
		t.Errorf("sitemap = %v %q", f.Sitemap, f.SitemapURL)
	}
	if !f.RobotsFound || !slices.Equal(f.BlockedCrawlers, []string{"GPTBot"}) {
		t.Errorf("robots = %v %q", f.RobotsFound, f.BlockedCrawlers)
	}
	if !f.LLMsTxt {
		t.Error("llms.txt not detected")
	}
	if s.Robots.Allowed("GPTBot", "/") || !s.Robots.Allowed("ClaudeBot", "/") || s.Robots.Allowed("PerplexityBot", "/private/x") {
		t.Error("Site.Robots does not carry the site's rules")
	}
	if s.Home.Text != "Widgets that last\nWe build widgets.\nSteel\nBrass" {
		t.Errorf("home text = %q", s.Home.Text)
	}
	for _, l := range s.Home.Links {
		if strings.Contains(l, "other.example") || strings.HasPrefix(l, "http:") || strings.Contains(l, "#") {
			t.Errorf("link %q should have been dropped", l)
		}
	}
}

func TestCrawlWithoutRobotsSitemapOrLLMsTxt(t *testing.T) {
	t.Parallel()
	routes := fullSite("")
	delete(routes, "/llms.txt")
	delete(routes, "/sitemaps/main.xml")
	// A soft 404: an HTML page answering 200 is not a sitemap.
	routes["/sitemap.xml"] = html("<html><body>Not found</body></html>")
	ts := newTestSite(t, routes)
	s, err := ts.fetcher(true).Crawl(context.Background(), "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	f := s.Facts
	if f.RobotsFound || len(f.BlockedCrawlers) != 0 || f.Sitemap || f.LLMsTxt {
		t.Errorf("facts = robots %v %q sitemap %v llms %v", f.RobotsFound, f.BlockedCrawlers, f.Sitemap, f.LLMsTxt)
	}
	if f.AboutText == "" {
		t.Error("about page not fetched though nothing forbids it")
	}
}

func TestCrawlHonoursRobotsForHeraldBot(t *testing.T) {
	t.Parallel()
	ts := newTestSite(t, fullSite("User-agent: *\nDisallow: /about\nDisallow: /blog/\nAllow: /blog/second-post\n"))
	s, err := ts.fetcher(true).Crawl(context.Background(), "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	if ts.hit("/about") != 0 || s.About != nil {
		t.Error("the about page was fetched although robots.txt disallows it")
	}
	if s.Facts.AboutURL != "https://example.com/about" {
		t.Errorf("about link should still be known: %q", s.Facts.AboutURL)
	}
	if ts.hit("/blog/first-post") != 0 || !slices.Equal(s.Facts.BlogURLs, []string{"https://example.com/blog/second-post"}) {
		t.Errorf("posts = %q", s.Facts.BlogURLs)
	}
}

func TestFetchRefusals(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("<p>lorem ipsum</p>", 10000)
	ts := newTestSite(t, map[string]http.HandlerFunc{
		"/":     html(homeHTML),
		"/pdf":  text("application/pdf", "%PDF-1.4"),
		"/huge": html("<html><body>" + big + "</body></html>"),
		"/stream": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			for range 4000 {
				fmt.Fprint(w, "<p>streamed without a length</p>")
				w.(http.Flusher).Flush()
			}
		},
		"/to-http": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://example.com/", http.StatusFound)
		},
		"/to-private": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://10.1.2.3/admin", http.StatusFound)
		},
		"/gone": func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) },
	})
	f := ts.fetcher(true)
	for _, tc := range []struct {
		name, url string
		want      error
		inMsg     string
	}{
		{"http is refused", "http://example.com/", site.ErrNotHTTPS, "only https://"},
		{"another scheme is refused", "ftp://example.com/", site.ErrNotHTTPS, "only https://"},
		{"an empty URL is invalid", " ", site.ErrInvalidURL, "empty"},
		{"a PDF is not HTML", "https://example.com/pdf", site.ErrNotHTML, "application/pdf"},
		{"a page over the cap is too large", "https://example.com/huge", site.ErrTooLarge, "64 KiB"},
		{"a streamed page over the cap is too large", "https://example.com/stream", site.ErrTooLarge, "64 KiB"},
		{"a redirect to http is refused", "https://example.com/to-http", site.ErrNotHTTPS, "non-https"},
		{"a redirect to a private address is refused", "https://example.com/to-private", site.ErrPrivate, "private"},
		{"an error status says which", "https://example.com/gone", site.ErrStatus, "HTTP 410"},
		{"an unknown host is unreachable", "https://nonexistent.invalid/", site.ErrUnreachable, "nonexistent.invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), tc.url)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want reason %v", err, tc.want.(*site.Error).Reason)
			}
			if !strings.Contains(err.Error(), tc.inMsg) {
				t.Errorf("message %q does not say %q", err, tc.inMsg)
			}
		})
	}
}

func TestPrivateAddressesAreRefusedUnlessAllowed(t *testing.T) {
	t.Parallel()
	ts := newTestSite(t, map[string]http.HandlerFunc{"/": html(homeHTML)})
	_, err := ts.fetcher(false).Crawl(context.Background(), "https://example.com/")
	if !errors.Is(err, site.ErrPrivate) {
		t.Fatalf("err = %v, want a private address refusal", err)
	}
	if ts.hit("/") != 0 {
		t.Error("the loopback server was reached")
	}
	if _, err := ts.fetcher(true).Fetch(context.Background(), "https://example.com/"); err != nil {
		t.Fatalf("with 127.0.0.1 allowed: %v", err)
	}
}

func TestRobotsRules(t *testing.T) {
	t.Parallel()
	r := site.ParseRobots([]byte(`# comment
User-agent: GPTBot
User-agent: ClaudeBot
Disallow: /

User-agent: Google-Extended
Disallow: /private
Allow: /private/open$

User-agent: *
Disallow:
Disallow: /*.pdf$
Crawl-delay: 5
Sitemap: https://acme.com/sitemap.xml
`))
	for _, tc := range []struct {
		agent, path string
		want        bool
	}{
		{"GPTBot", "/", false},
		{"gptbot", "/x", false},
		{"ClaudeBot", "/", false},
		{"Google-Extended", "/", true},
		{"Google-Extended", "/private/x", false},
		{"Google-Extended", "/private/open", true},
		{"Google-Extended", "/private/open/more", false},
		{"PerplexityBot", "/", true},
		{"PerplexityBot", "/doc.pdf", false},
		{"PerplexityBot", "/doc.pdf?x", true},
	} {
		if got := r.Allowed(tc.agent, tc.path); got != tc.want {
			t.Errorf("Allowed(%s, %s) = %v, want %v", tc.agent, tc.path, got, tc.want)
		}
	}
	if !slices.Equal(r.Sitemaps, []string{"https://acme.com/sitemap.xml"}) {
		t.Errorf("sitemaps = %q", r.Sitemaps)
	}
}

func TestBrandNameFallbacks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		facts site.Facts
		want  string
	}{
		{"schema.org name first", site.Facts{Organization: &site.Entity{Name: "Acme Inc"}, SiteName: "Acme", Domain: "acme.com"}, "Acme Inc"},
		{"then og:site_name", site.Facts{SiteName: "Acme", Title: "Home | Acme", Domain: "acme.com"}, "Acme"},
		{"then the title before a bar", site.Facts{Title: "Acme Widgets | Home", Domain: "acme.com"}, "Acme Widgets"},
		{"a hyphen inside a word is no separator", site.Facts{Title: "Coca-Cola - Refreshing", Domain: "coca-cola.com"}, "Coca-Cola"},
		{"then the domain's first label", site.Facts{Domain: "acme.co.uk"}, "acme"},
	} {
		if got := tc.facts.BrandName(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if d := site.RegistrableDomain("www.Shop.Acme.co.uk"); d != "acme.co.uk" {
		t.Errorf("registrable domain = %q", d)
	}
}
