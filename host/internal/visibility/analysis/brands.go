package analysis

import (
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/heraldhq/herald/host/internal/site"
)

// Brand is a tracked brand: the workspace's own (Self) or a competitor.
type Brand struct {
	Name string `json:"name"`
	// Slug names the competitor's history fields (comp_<slug>).
	Slug string `json:"slug"`
	Self bool   `json:"self"`
	// Aliases are matched case-insensitively on word boundaries.
	Aliases []string `json:"aliases"`
	// Domains are registrable domains: written in prose they are
	// mentions, and a source of one of them (or a subdomain) is a
	// citation.
	Domains []string `json:"domains,omitempty"`
	// Ambiguous says the user marked the brand's one-word aliases as
	// ordinary words (common words are found by the word list).
	Ambiguous bool `json:"ambiguous,omitempty"`
	// Category is what the brand sells, shown to the judge that decides
	// whether a sentence-initial ambiguous name names the brand.
	Category string `json:"category,omitempty"`
	// InferredDomain is the domain a competitor given by name only got
	// from the report's sources (InferDomains); it is also in Domains.
	InferredDomain string `json:"inferredDomain,omitempty"`
}

// Slug lowercases s and turns every run of non-alphanumerics into one "_",
// trimmed at both ends ("Globex Corp" → "globex_corp").
func Slug(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			under = false
			continue
		}
		if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// SelfBrand builds the brand of the site: its name per site.Facts.BrandName
// and the aliases of docs/METRICS.md: the name, the domain and the domain's
// first label.
func SelfBrand(name, domain string) Brand {
	b := Brand{Name: name, Slug: Slug(name), Self: true}
	b.addAlias(name)
	if domain != "" {
		b.Domains = []string{domain}
		b.addAlias(site.FirstLabel(domain))
	}
	return b
}

// WithAliases adds the user's own spellings of the brand (selfAliases).
func (b Brand) WithAliases(aliases []string) Brand {
	b.Aliases = slices.Clone(b.Aliases)
	for _, a := range aliases {
		b.addAlias(a)
	}
	return b
}

// CompetitorBrand builds a competitor from its string form: a name, a URL
// or bare domain (named by its registrable domain, aliased by its first
// label), or "Name (domain)" (both).
func CompetitorBrand(raw string) Brand {
	return ParseCompetitor(raw).Brand()
}

// CompetitorDomain reads raw as a URL or a bare domain: it has a scheme, or
// no spaces and a dot followed by letters (globex.com, not "Globex Corp").
func CompetitorDomain(raw string) (string, bool) {
	if raw == "" || strings.ContainsAny(raw, " \t") {
		return "", false
	}
	s := raw
	if !strings.Contains(s, "://") {
		i := strings.LastIndexByte(s, '.')
		if i <= 0 || i == len(s)-1 || !isLetters(strings.TrimRight(s[i+1:], "/")) {
			return "", false
		}
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || !strings.Contains(u.Hostname(), ".") {
		return "", false
	}
	return site.RegistrableDomain(u.Hostname()), true
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func (b *Brand) addAlias(a string) {
	a = strings.TrimSpace(a)
	if a == "" {
		return
	}
	for _, x := range b.Aliases {
		if strings.EqualFold(x, a) {
			return
		}
	}
	b.Aliases = append(b.Aliases, a)
}

// Brands builds the tracked brands from competitors' string forms (see
// BuildBrands).
func Brands(self Brand, competitors []string) []Brand {
	return BuildBrands(self, ParseCompetitors(competitors))
}

// BuildBrands builds the tracked brands, self first, competitors in their
// order; a competitor that is the brand itself or repeats another is
// dropped, and slugs are made unique (_2, _3). Competitors take the
// brand's category (they sell the same thing).
func BuildBrands(self Brand, competitors []CompetitorInput) []Brand {
	out := []Brand{self}
	// The brand's own slug is taken too: a competitor named "Acme-Co"
	// beside "Acme Co" would otherwise share its slug, and its mentions
	// would count for the brand (brandIndex finds the first).
	slugs := map[string]bool{self.Slug: true}
	for _, c := range competitors {
		b := c.Brand()
		if b.Category == "" {
			b.Category = self.Category
		}
		if b.Slug == "" || sameBrand(b, self) {
			continue
		}
		dup := false
		for _, o := range out[1:] {
			if sameBrand(b, o) {
				dup = true
			}
		}
		if dup {
			continue
		}
		base := b.Slug
		for i := 2; slugs[b.Slug]; i++ {
			b.Slug = base + "_" + itoa(i)
		}
		slugs[b.Slug] = true
		out = append(out, b)
	}
	return out
}

func sameBrand(a, b Brand) bool {
	if strings.EqualFold(a.Name, b.Name) {
		return true
	}
	for _, d := range a.Domains {
		for _, e := range b.Domains {
			if d == e {
				return true
			}
		}
	}
	return false
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func BrandIndex(brands []Brand, slug string) int {
	for i, b := range brands {
		if b.Slug == slug {
			return i
		}
	}
	return 0
}
