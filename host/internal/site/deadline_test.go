package site_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/site"
)

// stall answers nothing until the client gives up (or the test ends): a
// deliberately slow site, slower than any per-request timeout here.
var release = make(chan struct{})

func stall(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-release:
	}
}

// crawlOrHang runs fn and fails the test if it has not returned long after
// the crawl deadline: without one, the stalled pages would hold it for
// their per-request timeouts (an hour each here).
func crawlOrHang[T any](t *testing.T, fn func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(time.Minute):
		close(release) // let the stalled handlers end, so the servers close
		t.Fatal("the crawl ran past its deadline (a minute, against a deadline of 300 ms)")
		panic("unreachable")
	}
}

// One deadline bounds the whole crawl: the home page answers at once,
// every other page stalls; the crawl returns the home page's facts when
// the deadline passes instead of waiting out each page's own timeout.
func TestACrawlStopsAtItsDeadlineWhateverEachPageTakes(t *testing.T) {
	t.Parallel()
	routes := map[string]http.HandlerFunc{"/": html(homeHTML)}
	for _, p := range []string{"/robots.txt", "/sitemap.xml", "/llms.txt", "/about", "/blog/first-post", "/blog/second-post", "/blog/third-post"} {
		routes[p] = stall
	}
	ts := newTestSite(t, routes)
	f := ts.fetcher(true, func(d *site.Deps) { d.Timeout, d.CrawlDeadline = time.Hour, 300*time.Millisecond })
	s, err := crawlOrHang(t, func() (site.Site, error) { return f.Crawl(context.Background(), "https://example.com/") })
	if err != nil {
		t.Fatalf("the home page answered; the crawl failed: %v", err)
	}
	if !strings.Contains(s.Home.Text, "We build widgets") || s.Facts.Title == "" {
		t.Fatalf("home page facts missing: %+v", s.Facts)
	}
	if s.About != nil || len(s.Posts) != 0 || s.Facts.RobotsFound || s.Facts.Sitemap || s.Facts.LLMsTxt {
		t.Fatalf("pages past the deadline were used: about %v, %d posts, facts %+v", s.About, len(s.Posts), s.Facts)
	}
	// After the deadline nothing more is asked: the about page and posts
	// are not requested once the robots.txt request hit the deadline.
	if ts.hit("/about") != 0 || ts.hit("/blog/first-post") != 0 {
		t.Fatalf("the crawl went on after its deadline: about %d, first post %d", ts.hit("/about"), ts.hit("/blog/first-post"))
	}

	// A stalled home page is the crawl's error, at the deadline.
	slow := newTestSite(t, map[string]http.HandlerFunc{"/": stall, "/notes.txt": stall})
	f = slow.fetcher(true, func(d *site.Deps) { d.Timeout, d.CrawlDeadline = time.Hour, 300*time.Millisecond })
	if _, err := crawlOrHang(t, func() (site.Site, error) { return f.Crawl(context.Background(), "https://example.com/") }); err == nil || !strings.Contains(err.Error(), "did not answer in time") {
		t.Fatalf("stalled home page: %v", err)
	}
	if _, err := crawlOrHang(t, func() (site.File, error) { return f.FetchFile(context.Background(), "https://example.com/notes.txt") }); err == nil || !strings.Contains(err.Error(), "did not answer in time") {
		t.Fatalf("stalled file: %v", err)
	}
}
