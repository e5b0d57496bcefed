package site_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/heraldhq/herald/host/internal/site"
)

// Tests written for mutants that no test reached (make mutation,
// docs/TESTING.md).

func TestFetchFileKeepsTheTypeAndRefusesWhatFetchRefuses(t *testing.T) {
	t.Parallel()
	ts := newTestSite(t, map[string]http.HandlerFunc{
		"/voice.md": text("text/markdown; charset=utf-8", "# We write plainly\n"),
		"/bare": func(w http.ResponseWriter, _ *http.Request) {
			w.Header()["Content-Type"] = nil // no type at all
			w.Write([]byte{0x00, 0x01})
		},
		"/odd":  text("not a media type;;", "x"),
		"/gone": func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) },
	})
	f := ts.fetcher(true)
	ctx := context.Background()
	got, err := f.FetchFile(ctx, "https://example.com/voice.md")
	if err != nil || got.MediaType != "text/markdown" || string(got.Body) != "# We write plainly\n" || got.URL != "https://example.com/voice.md" {
		t.Fatalf("markdown file: %+v %v", got, err)
	}
	for _, path := range []string{"/bare", "/odd"} {
		if got, err := f.FetchFile(ctx, "https://example.com"+path); err != nil || got.MediaType != "" || len(got.Body) == 0 {
			t.Errorf("%s: %+v %v, want the body with no media type", path, got, err)
		}
	}
	_, err = f.FetchFile(ctx, "https://example.com/gone")
	var se *site.Error
	if !errors.As(err, &se) || se.Reason != site.ReasonStatus || se.Status != http.StatusGone {
		t.Errorf("a 410: %v", err)
	}
	if _, err := f.FetchFile(ctx, "http://example.com/voice.md"); !errors.Is(err, site.ErrNotHTTPS) {
		t.Errorf("http: %v", err)
	}
	if _, err := ts.fetcher(false).FetchFile(ctx, "https://example.com/voice.md"); !errors.Is(err, site.ErrPrivate) {
		t.Errorf("a private address: %v", err)
	}
}

func TestPageMetaFallbacksAndBase(t *testing.T) {
	t.Parallel()
	ts := newTestSite(t, map[string]http.HandlerFunc{
		"/": html(`<html><head><base href="https://example.com/docs/">
<meta property="og:description" content="From Open Graph.">
<meta name="description" content="First description.">
<meta name="description" content="Second description.">
<meta property="og:site_name" content="Acme Site"></head>
<body><main><a href="guide">Guide</a></main></body></html>`),
		"/og": html(`<html><head><meta property="og:description" content="Only Open Graph."></head><body><p>x</p></body></html>`),
	})
	f := ts.fetcher(true)
	p, err := f.Fetch(context.Background(), "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	if p.Description != "First description." || p.SiteName != "Acme Site" {
		t.Errorf("meta: description %q, site name %q", p.Description, p.SiteName)
	}
	found := false
	for _, l := range p.Links {
		found = found || l == "https://example.com/docs/guide"
	}
	if !found {
		t.Errorf("links %+v: a relative link must resolve against <base href>", p.Links)
	}
	og, err := f.Fetch(context.Background(), "https://example.com/og")
	if err != nil || og.Description != "Only Open Graph." {
		t.Errorf("og:description as the fallback: %q %v", og.Description, err)
	}
}
