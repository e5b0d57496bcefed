package site_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
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

// A robots.txt that reaches the corners of the matching rules: a comment
// line inside a User-agent run, length ties, wildcards inside a pattern,
// a final $ after a wildcard that matches more than once, and a lone $.
func TestRobotsMatchingCorners(t *testing.T) {
	t.Parallel()
	r := site.ParseRobots([]byte(`User-agent: FirstBot
# note: a comment line does not end the run
User-agent: SecondBot
Disallow: /

User-agent: TieBot
Disallow: /t
Allow: /t
Allow: /u
Disallow: /u
Disallow: /private/x
Allow: /p

User-agent: WildBot
Disallow: /*secret
Disallow: /*.pdf$
Disallow: /*a*b

User-agent: DollarBot
Disallow: $
`))
	for _, tc := range []struct {
		agent, path string
		want        bool
	}{
		{"FirstBot", "/", false},
		{"SecondBot", "/", false},
		{"TieBot", "/t", true},          // allow wins a tie after a disallow
		{"TieBot", "/u", true},          // and before one
		{"TieBot", "/private/x", false}, // a shorter allow loses
		{"TieBot", "/q", true},
		{"WildBot", "/secret", false},
		{"WildBot", "/x/secret/y", false},
		{"WildBot", "/public", true},
		{"WildBot", "/x.pdf/y.pdf", false}, // $ checks the end, not the first .pdf
		{"WildBot", "/x.pdf/c", true},
		{"WildBot", "/xaxb", false},
		{"WildBot", "/xbxa", true},
		{"DollarBot", "/", true}, // a lone $ matches only an empty path
	} {
		if got := r.Allowed(tc.agent, tc.path); got != tc.want {
			t.Errorf("Allowed(%s, %s) = %v, want %v", tc.agent, tc.path, got, tc.want)
		}
	}
}

// The crawl's page budget: MaxPages counts the home page, so 3 leaves the
// about page and one post.
func TestACrawlFetchesAtMostMaxPages(t *testing.T) {
	t.Parallel()
	ts := newTestSite(t, fullSite(""))
	s, err := ts.fetcher(true, func(d *site.Deps) { d.MaxPages = 3 }).Crawl(context.Background(), "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	if s.About == nil || len(s.Posts) != 1 || ts.hit("/blog/second-post") != 0 {
		t.Errorf("about %v, posts %d, second post fetched %d times", s.About != nil, len(s.Posts), ts.hit("/blog/second-post"))
	}
}

// A home page that links no post but a blog index: the posts come from the
// index. An empty llms.txt does not count.
func TestCrawlFindsPostsThroughTheBlogIndex(t *testing.T) {
	t.Parallel()
	ts := newTestSite(t, map[string]http.HandlerFunc{
		"/":            html(`<html><body><main><p>Home.</p><a href="/news/">News</a></main></body></html>`),
		"/news/":       html(`<html><body><a href="/news/one">One</a><a href="/news/two">Two</a></body></html>`),
		"/news/one":    html(`<html><body><p>One.</p></body></html>`),
		"/news/two":    html(`<html><body><p>Two.</p></body></html>`),
		"/llms.txt":    text("text/plain", " \n"),
		"/sitemap.xml": text("application/xml", ""),
	})
	s, err := ts.fetcher(true).Crawl(context.Background(), "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://example.com/news/one", "https://example.com/news/two"}
	if !slices.Equal(s.Facts.BlogURLs, want) || s.About != nil || s.Facts.AboutURL != "" {
		t.Errorf("posts %q, about %q", s.Facts.BlogURLs, s.Facts.AboutURL)
	}
	if s.Facts.LLMsTxt {
		t.Error("an empty llms.txt counted")
	}
}

// The main text is the article's, else main's, else the body's; a
// Content-Type of text/html is trusted whatever the body sniffs as.
func TestMainTextPicksArticleThenMain(t *testing.T) {
	t.Parallel()
	ts := newTestSite(t, map[string]http.HandlerFunc{
		"/article": html(`<html><body><main><p>Intro.</p><article><p>Body.</p></article></main></body></html>`),
		"/main":    html(`<html><body><p>Outside.</p><main><p>Inside.</p></main></body></html>`),
		"/plain":   html(`Just words, no tags.`),
	})
	f := ts.fetcher(true)
	for path, want := range map[string]string{"/article": "Body.", "/main": "Inside.", "/plain": "Just words, no tags."} {
		p, err := f.Fetch(context.Background(), "https://example.com"+path)
		if err != nil || p.Text != want {
			t.Errorf("%s: text %q, %v; want %q", path, p.Text, err, want)
		}
	}
}

// JSON-LD nested four levels deep counts, five does not (arrays and @graph
// alike); names, sameAs and addresses may come as arrays, empty ones too.
func TestJSONLDDepthAndArrayFields(t *testing.T) {
	t.Parallel()
	ld := func(blocks ...string) http.HandlerFunc {
		var b strings.Builder
		for _, s := range blocks {
			b.WriteString(`<script type="application/ld+json">` + s + `</script>`)
		}
		return html(`<html><head>` + b.String() + `</head><body><p>x</p></body></html>`)
	}
	ts := newTestSite(t, map[string]http.HandlerFunc{
		"/": ld(
			`[[[[{"@type":"Organization","name":["Four"],"sameAs":["https://a.example","", "https://b.example"],"address":[{"addressLocality":"Lyon"}]}]]]]`,
			`[[[[[{"@type":"Organization","name":"Five"}]]]]]`,
			`{"@graph":{"@graph":{"@graph":{"@graph":{"@type":"Thing","name":"GraphFour"}}}}}`,
			`{"@graph":{"@graph":{"@graph":{"@graph":{"@graph":{"@type":"Thing","name":"GraphFive"}}}}}}`,
			`{"@type":"Thing","name":[],"address":[]}`,
		),
	})
	p, err := ts.fetcher(true).Fetch(context.Background(), "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range p.Entities {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, []string{"Four", "GraphFour", ""}) {
		t.Fatalf("entities %q, want Four, GraphFour and one with no name", names)
	}
	e := p.Entities[0]
	if !slices.Equal(e.SameAs, []string{"https://a.example", "https://b.example"}) || e.Address != "Lyon" || p.Entities[2].Address != "" {
		t.Errorf("sameAs %q, address %q", e.SameAs, e.Address)
	}
}
