package site

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/heraldhq/herald/host/internal/weburl"
)

// maxTextRunes bounds Page.Text: enough for a voice sample or a judge's
// context, small enough to store.
const maxTextRunes = 20000

// Page is one fetched HTML page.
type Page struct {
	// URL is the page's URL after redirects.
	URL         string
	Title       string
	Description string
	H1s         []string
	// SiteName is og:site_name.
	SiteName string
	Lang     string
	// Text is the main text: the article or main element (else the body)
	// without navigation, headers, footers, scripts and forms, with
	// whitespace collapsed.
	Text string
	// Entities are the schema.org JSON-LD entities of the page.
	Entities []Entity
	// Links are the page's same-site links, absolute, in document order,
	// without fragments, de-duplicated.
	Links []string
}

// Entity is a schema.org entity from JSON-LD.
type Entity struct {
	// Type is the first @type (e.g. "Organization", "Restaurant").
	Type        string
	Name        string
	Description string
	URL         string
	// Address is the locality, region and country, comma separated.
	Address string
	// SameAs lists the entity's profiles elsewhere.
	SameAs []string
}

// Kinds of schema.org types that site facts group.
var (
	organizationTypes = set("Organization", "Corporation", "OnlineBusiness", "OnlineStore", "NGO",
		"EducationalOrganization", "NewsMediaOrganization", "SportsOrganization", "MedicalOrganization")
	localBusinessTypes = set("LocalBusiness", "Store", "Restaurant", "FoodEstablishment", "ProfessionalService",
		"LegalService", "FinancialService", "MedicalBusiness", "HomeAndConstructionBusiness", "AutomotiveBusiness",
		"HealthAndBeautyBusiness", "LodgingBusiness", "Hotel", "Dentist", "RealEstateAgent", "TravelAgency")
	productTypes = set("Product", "SoftwareApplication", "WebApplication", "MobileApplication", "Service", "Course")
)

func set(vs ...string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

// IsOrganization reports whether e is an Organization (or a subtype).
func (e Entity) IsOrganization() bool { return organizationTypes[e.Type] }

// IsLocalBusiness reports whether e is a LocalBusiness (or a subtype).
func (e Entity) IsLocalBusiness() bool { return localBusinessTypes[e.Type] }

// IsProduct reports whether e is a Product, Service or application.
func (e Entity) IsProduct() bool { return productTypes[e.Type] }

func parsePage(u *url.URL, body []byte) (Page, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return Page{}, fail(ReasonNotHTML, err, "%s is not parseable HTML", u.Host)
	}
	base := u
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if b, err := u.Parse(strings.TrimSpace(href)); err == nil {
			base = b
		}
	}
	p := Page{URL: u.String()}
	p.Title = clean(doc.Find("title").First().Text())
	p.Lang = strings.TrimSpace(doc.Find("html").AttrOr("lang", ""))
	ogDescription := ""
	doc.Find("meta").Each(func(_ int, s *goquery.Selection) {
		key := strings.ToLower(strings.TrimSpace(s.AttrOr("name", s.AttrOr("property", ""))))
		content := clean(s.AttrOr("content", ""))
		switch {
		case key == "description" && p.Description == "":
			p.Description = content
		case key == "og:description":
			ogDescription = content
		case key == "og:site_name":
			p.SiteName = content
		}
	})
	if p.Description == "" {
		p.Description = ogDescription
	}
	doc.Find("h1").Each(func(_ int, s *goquery.Selection) {
		if t := clean(s.Text()); t != "" {
			p.H1s = append(p.H1s, t)
		}
	})
	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		p.Entities = append(p.Entities, parseJSONLD([]byte(s.Text()))...)
	})
	seen := map[string]bool{}
	doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		l, err := base.Parse(strings.TrimSpace(s.AttrOr("href", "")))
		if err != nil || !weburl.HTTPS(l) || !sameSite(l.Hostname(), u.Hostname()) {
			return
		}
		l.Fragment = ""
		if l.Path == "" {
			l.Path = "/"
		}
		if k := l.String(); !seen[k] {
			seen[k] = true
			p.Links = append(p.Links, k)
		}
	})
	p.Text = mainText(doc)
	return p, nil
}

// mainText drops the page chrome and returns the main content's text.
func mainText(doc *goquery.Document) string {
	doc.Find("script,style,noscript,template,svg,nav,header,footer,aside,form,iframe,[role=navigation],[aria-hidden=true]").Remove()
	root := doc.Find("article").First()
	if root.Length() == 0 {
		root = doc.Find("main,[role=main]").First()
	}
	if root.Length() == 0 {
		root = doc.Find("body")
	}
	var b strings.Builder
	root.Find("h1,h2,h3,h4,p,li,blockquote,td,dt,dd,pre").Each(func(_ int, s *goquery.Selection) {
		if s.Find("p,li").Length() > 0 && !s.Is("li,td") {
			return // its children are visited on their own
		}
		if t := clean(s.Text()); t != "" {
			b.WriteString(t)
			b.WriteString("\n")
		}
	})
	text := strings.TrimSpace(b.String())
	if text == "" {
		text = clean(root.Text())
	}
	if r := []rune(text); len(r) > maxTextRunes {
		text = string(r[:maxTextRunes])
	}
	return text
}

// clean collapses whitespace.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// sameSite reports whether host is site or one of its subdomains, or site a
// subdomain of host (www.acme.com and acme.com are one site).
func sameSite(host, site string) bool {
	host, site = strings.TrimPrefix(strings.ToLower(host), "www."), strings.TrimPrefix(strings.ToLower(site), "www.")
	return host == site || strings.HasSuffix(host, "."+site) || strings.HasSuffix(site, "."+host)
}

// parseJSONLD reads a JSON-LD block: an object, an array of objects or an
// @graph. Malformed blocks are skipped: sites ship broken JSON-LD often and
// it simply does not count.
func parseJSONLD(data []byte) []Entity {
	var v any
	if err := json.Unmarshal(bytes.TrimSpace(data), &v); err != nil {
		return nil
	}
	var out []Entity
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 4 {
			return
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case map[string]any:
			if g, ok := x["@graph"]; ok {
				walk(g, depth+1)
			}
			if t := firstType(x["@type"]); t != "" {
				out = append(out, Entity{
					Type: t, Name: str(x["name"]), Description: clean(str(x["description"])),
					URL: str(x["url"]), Address: address(x["address"]), SameAs: strs(x["sameAs"]),
				})
			}
		}
	}
	walk(v, 0)
	return out
}

func firstType(v any) string {
	switch t := v.(type) {
	case string:
		return path.Base(t) // "https://schema.org/Organization" → "Organization"
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && s != "" {
				return path.Base(s)
			}
		}
	}
	return ""
}

func str(v any) string {
	switch s := v.(type) {
	case string:
		return strings.TrimSpace(s)
	case []any:
		if len(s) > 0 {
			return str(s[0])
		}
	case map[string]any:
		return str(s["name"])
	}
	return ""
}

func strs(v any) []string {
	switch s := v.(type) {
	case string:
		return []string{s}
	case []any:
		var out []string
		for _, e := range s {
			if x := str(e); x != "" {
				out = append(out, x)
			}
		}
		return out
	}
	return nil
}

func address(v any) string {
	switch a := v.(type) {
	case string:
		return clean(a)
	case []any:
		if len(a) > 0 {
			return address(a[0])
		}
	case map[string]any:
		var parts []string
		for _, k := range []string{"addressLocality", "addressRegion", "addressCountry"} {
			if s := str(a[k]); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	return ""
}
