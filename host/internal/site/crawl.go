package site

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/heraldhq/herald/host/internal/weburl"
)

// Site is what Crawl learned about a website.
type Site struct {
	// Home is the page at the URL given (after redirects).
	Home Page
	// About is the about page linked from the home page, when fetched.
	About *Page
	// Posts are up to three recent blog posts linked from the home page
	// (or from its blog index).
	Posts []Page
	Facts Facts
	// Robots is the site's robots.txt (empty when it has none), for
	// callers that crawl further.
	Robots *Robots
}

// Pages returns the home page, the about page and the posts.
func (s Site) Pages() []Page {
	out := []Page{s.Home}
	if s.About != nil {
		out = append(out, *s.About)
	}
	return append(out, s.Posts...)
}

// Facts are the site's machine-readable facts: what an answer engine can
// learn about the brand from the site itself.
type Facts struct {
	// URL is the home page URL after redirects; HTTPS says it was reached
	// over https (always, since only https is fetched).
	URL   string
	HTTPS bool
	// Domain is the registrable domain without "www." (acme.com).
	Domain      string
	Title       string
	Description string
	H1s         []string
	SiteName    string
	// Organization is the first schema.org Organization (or subtype) or
	// LocalBusiness entity of the home or about page.
	Organization *Entity
	// LocalBusiness says Organization is a LocalBusiness (or subtype).
	LocalBusiness bool
	Products      []Entity
	// AboutURL is the about page linked from the home page; AboutText its
	// main text when it could be fetched.
	AboutURL  string
	AboutText string
	// BlogURLs are the blog posts found.
	BlogURLs []string
	// Sitemap says a sitemap (robots.txt Sitemap line or /sitemap.xml)
	// answered with XML.
	Sitemap    bool
	SitemapURL string
	// RobotsFound says /robots.txt exists; BlockedCrawlers lists the
	// AICrawlers it keeps away from the home page.
	RobotsFound     bool
	BlockedCrawlers []string
	// LLMsTxt says /llms.txt answered with text.
	LLMsTxt bool
}

// BrandName is the brand's name per docs/METRICS.md: schema.org Organization
// name, else og:site_name, else the title before its first separator, else
// the registrable domain's first label.
func (f Facts) BrandName() string {
	if f.Organization != nil && f.Organization.Name != "" {
		return f.Organization.Name
	}
	if f.SiteName != "" {
		return f.SiteName
	}
	if t := titleHead(f.Title); t != "" {
		return t
	}
	if l := FirstLabel(f.Domain); l != "" {
		return l
	}
	return f.Domain // an IP address
}

var titleSeparators = regexp.MustCompile(`\s+[|\-–—:·•]\s+|\s*[|–—·•]\s*`)

// titleHead is the title before its first separator ("Acme | Widgets" →
// "Acme"); a hyphen counts only with spaces around it (Coca-Cola).
func titleHead(title string) string {
	if loc := titleSeparators.FindStringIndex(title); loc != nil {
		title = title[:loc[0]]
	}
	return strings.TrimSpace(title)
}

// RegistrableDomain returns host's registrable domain (eTLD+1), lowercased
// without "www."; an IP address or a host without a public suffix is
// returned as is.
func RegistrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if net.ParseIP(host) != nil {
		return host
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return strings.TrimPrefix(host, "www.")
}

// FirstLabel is the domain's first label ("acme.co.uk" → "acme").
func FirstLabel(domain string) string {
	if net.ParseIP(domain) != nil {
		return ""
	}
	head, _, _ := strings.Cut(domain, ".")
	return head
}

var (
	aboutPath = regexp.MustCompile(`(?i)^/(about|about-us|company|who-we-are|our-story|a-propos|uber-uns|ueber-uns)/?$`)
	blogIndex = regexp.MustCompile(`(?i)^/(blog|news|posts|articles|insights|journal|stories)/?$`)
	blogPost  = regexp.MustCompile(`(?i)^/(blog|news|posts|articles|insights|journal|stories)/[^/]+.*[^/]$|^/(blog|news|posts|articles|insights|journal|stories)/[^/]+/$`)
)

// Crawl fetches the home page at raw (https only; its errors are Crawl's),
// then robots.txt, the sitemap and /llms.txt, then, where robots.txt
// allows HeraldBot, the about page and up to three blog posts, within the
// page cap. Failures past the home page only leave facts unset.
func (f *Fetcher) Crawl(ctx context.Context, raw string) (Site, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return Site{}, err
	}
	// One deadline for the whole crawl; every request below gets what is
	// left of it (and at most the per-request timeout).
	ctx, cancel := context.WithTimeout(ctx, f.deadline)
	defer cancel()
	home, err := f.fetchPage(ctx, u)
	if err != nil {
		return Site{}, err
	}
	final, _ := url.Parse(home.URL)
	root := &url.URL{Scheme: "https", Host: final.Host, Path: "/"}
	s := Site{Home: home}
	facts := &s.Facts
	facts.URL, facts.HTTPS = home.URL, weburl.HTTPS(final)
	facts.Domain = RegistrableDomain(final.Hostname())
	facts.Title, facts.Description, facts.H1s, facts.SiteName = home.Title, home.Description, home.H1s, home.SiteName

	robots := f.robots(ctx, root, facts)
	s.Robots = robots
	f.sitemap(ctx, root, robots, facts)
	facts.LLMsTxt = f.textFile(ctx, root.ResolveReference(&url.URL{Path: "/llms.txt"}))

	budget := f.maxPages - 1
	fetch := func(link string) (*Page, bool) {
		l, err := url.Parse(link)
		if budget <= 0 || err != nil || ctx.Err() != nil || !robots.Allowed(robotsToken, l.EscapedPath()) {
			return nil, false
		}
		budget--
		p, err := f.fetchPage(ctx, l)
		if err != nil {
			return nil, false
		}
		return &p, true
	}
	if about := findLink(home.Links, aboutPath); about != "" {
		facts.AboutURL = about
		if p, ok := fetch(about); ok {
			s.About, facts.AboutText = p, p.Text
		}
	}
	posts := findLinks(home.Links, blogPost, 3)
	if len(posts) == 0 {
		if idx := findLink(home.Links, blogIndex); idx != "" {
			if p, ok := fetch(idx); ok {
				posts = findLinks(p.Links, blogPost, 3)
			}
		}
	}
	for _, link := range posts {
		if p, ok := fetch(link); ok {
			s.Posts = append(s.Posts, *p)
			facts.BlogURLs = append(facts.BlogURLs, p.URL)
		}
	}
	for _, p := range s.Pages() {
		for _, e := range p.Entities {
			switch {
			case (e.IsOrganization() || e.IsLocalBusiness()) && facts.Organization == nil:
				e := e
				facts.Organization, facts.LocalBusiness = &e, e.IsLocalBusiness()
			case e.IsProduct() && e.Name != "" && !hasEntity(facts.Products, e.Name):
				facts.Products = append(facts.Products, e)
			}
		}
	}
	return s, nil
}

func hasEntity(es []Entity, name string) bool {
	for _, e := range es {
		if strings.EqualFold(e.Name, name) {
			return true
		}
	}
	return false
}

func findLink(links []string, re *regexp.Regexp) string {
	if l := findLinks(links, re, 1); len(l) > 0 {
		return l[0]
	}
	return ""
}

func findLinks(links []string, re *regexp.Regexp, n int) []string {
	var out []string
	for _, l := range links {
		u, err := url.Parse(l)
		if err == nil && re.MatchString(u.Path) {
			out = append(out, l)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// robots fetches /robots.txt; a missing or unreadable file allows all.
func (f *Fetcher) robots(ctx context.Context, root *url.URL, facts *Facts) *Robots {
	res, err := f.get(ctx, root.ResolveReference(&url.URL{Path: "/robots.txt"}), "text/plain", maxTextFileBytes)
	if err != nil || res.status/100 != 2 || looksLikeHTML(res.body) {
		return &Robots{}
	}
	facts.RobotsFound = true
	r := ParseRobots(res.body)
	for _, bot := range AICrawlers {
		if r.Blocks(bot) {
			facts.BlockedCrawlers = append(facts.BlockedCrawlers, bot)
		}
	}
	sort.Strings(facts.BlockedCrawlers)
	return r
}

// sitemap checks the robots.txt Sitemap lines on the same site, then
// /sitemap.xml. A soft 404 (an HTML page answering 200) does not count.
func (f *Fetcher) sitemap(ctx context.Context, root *url.URL, robots *Robots, facts *Facts) {
	candidates := []*url.URL{}
	for _, s := range robots.Sitemaps {
		if u, err := url.Parse(s); err == nil && weburl.HTTPS(u) && sameSite(u.Hostname(), root.Hostname()) {
			candidates = append(candidates, u)
		}
	}
	candidates = append(candidates, root.ResolveReference(&url.URL{Path: "/sitemap.xml"}))
	for _, u := range candidates[:min(len(candidates), 3)] {
		res, err := f.get(ctx, u, "application/xml,text/xml;q=0.9,*/*;q=0.1", f.maxBytes)
		if err != nil || res.status/100 != 2 {
			continue
		}
		b := bytes.ToLower(res.body[:min(len(res.body), 4096)])
		if bytes.Contains(b, []byte("<urlset")) || bytes.Contains(b, []byte("<sitemapindex")) {
			facts.Sitemap, facts.SitemapURL = true, res.url.String()
			return
		}
	}
}

// textFile reports whether u answers 200 with non-empty text that is not
// an HTML page.
func (f *Fetcher) textFile(ctx context.Context, u *url.URL) bool {
	res, err := f.get(ctx, u, "text/plain,text/markdown;q=0.9,*/*;q=0.1", maxTextFileBytes)
	return err == nil && res.status/100 == 2 && len(bytes.TrimSpace(res.body)) > 0 && !looksLikeHTML(res.body)
}

func looksLikeHTML(body []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}
