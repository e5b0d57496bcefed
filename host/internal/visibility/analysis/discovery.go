package analysis

import (
	"strings"
	"unicode/utf8"
)

// NamedBrand is a brand or product the judge model says an answer names,
// stored with the answer as the judge gave it.
type NamedBrand struct {
	Name   string `json:"name"`
	Domain string `json:"domain,omitempty"`
}

// MaxNamed caps the names kept per answer and MaxNameRunes a name's
// length: an answer listing more is a list of lists, and a longer "name"
// is a sentence.
const (
	MaxNamed     = 40
	MaxNameRunes = 80
)

// CleanNamed trims the judge's names, drops empty and over-long ones and
// repeats (after folding), keeps a domain only when it reads as one
// (reduced to its registrable domain), and caps the list at MaxNamed.
func CleanNamed(in []NamedBrand) []NamedBrand {
	out := []NamedBrand{}
	seen := map[string]bool{}
	for _, n := range in {
		name := strings.Join(strings.Fields(n.Name), " ")
		if name == "" || utf8.RuneCountInString(name) > MaxNameRunes {
			continue
		}
		key := DiscoveryKey(name)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		nb := NamedBrand{Name: name}
		if d, ok := CompetitorDomain(strings.TrimSpace(n.Domain)); ok {
			nb.Domain = d
		}
		out = append(out, nb)
		if len(out) == MaxNamed {
			break
		}
	}
	return out
}

// DiscoveryKey is the key discovered names are counted under: the name
// folded (case, diacritics) and slugged, so "Zoho CRM", "zoho crm" and
// "Zoho-CRM" are one brand.
func DiscoveryKey(name string) string { return Slug(foldString(name)) }

// DiscoveredMention is one untracked brand an answer names.
type DiscoveredMention struct {
	Key    string
	Name   string
	Domain string
	// Position is the rank of its first mention among all brands the
	// answer names, tracked or discovered.
	Position int
}

// AnswerDiscovery is one answer's brands beyond the tracked ones.
type AnswerDiscovery struct {
	// Judged says the judge listed the answer's brands (false: no judge
	// model, or it failed; nothing is known).
	Judged bool
	// Discovered are the untracked brands the answer names, by position.
	Discovered []DiscoveredMention
	// AmongAll is, per tracked brand slug the answer mentions, the rank of
	// its first mention among all brands the answer names.
	AmongAll map[string]int
}

// Discover reads one answer's judged names: the ones that are not a
// tracked brand (self or competitor) nor an alias or domain of one, and
// that the answer's text really names under the mention rules (a name the
// judge made up, or that only occurs where the rules would not count it,
// is dropped), with every brand's position among all brands named.
func Discover(brands []Brand, a Answer) AnswerDiscovery {
	return NewDiscoverer(brands).Discover(a)
}

// Discoverer reads the answers of one report: the tracked matcher is
// built once and whether a name is tracked is decided once per name.
type Discoverer struct {
	brands  []Brand
	tracked *Matcher
	known   map[NamedBrand]bool
}

// NewDiscoverer returns a Discoverer over the tracked brands.
func NewDiscoverer(brands []Brand) *Discoverer {
	return &Discoverer{brands: brands, tracked: NewMatcher(brands), known: map[NamedBrand]bool{}}
}

// Discover is the package-level Discover with d's brands.
func (d *Discoverer) Discover(a Answer) AnswerDiscovery {
	if a.Missing() || !a.DiscoveryJudged {
		return AnswerDiscovery{}
	}
	out := AnswerDiscovery{Judged: true, AmongAll: map[string]int{}}
	brands := d.brands
	all := append([]Brand{}, brands...)
	named := map[string]NamedBrand{}
	for _, n := range CleanNamed(a.Discovered) {
		t, ok := d.known[n]
		if !ok {
			t = IsTracked(brands, d.tracked, n)
			d.known[n] = t
		}
		if t {
			continue
		}
		key := DiscoveryKey(n.Name)
		named[key] = n
		b := Brand{Name: n.Name, Slug: discoveredSlug + key, Aliases: []string{n.Name}}
		if n.Domain != "" {
			b.Domains = []string{n.Domain}
			b.addAlias(n.Domain)
		}
		all = append(all, b)
	}
	an := NewMatcher(all).Analyze(Answer{Engine: a.Engine, Prompt: a.Prompt, Text: a.Text, Citations: a.Citations, Verdicts: a.Verdicts})
	for _, m := range an.Mentions {
		if key, ok := strings.CutPrefix(m.Brand, discoveredSlug); ok {
			n := named[key]
			out.Discovered = append(out.Discovered, DiscoveredMention{Key: key, Name: n.Name, Domain: n.Domain, Position: m.Position})
			continue
		}
		out.AmongAll[m.Brand] = m.Position
	}
	return out
}

// discoveredSlug prefixes a discovered brand's slug in the matcher; no
// tracked slug starts with it (slugs are letters, digits and "_").
const discoveredSlug = "~"

// IsTracked reports whether a name the judge listed is a tracked brand:
// self or a competitor, one of their aliases or domains (the tracked
// matcher finds one in the name, as "HubSpot CRM" names HubSpot), or a
// name inside one of their aliases ("Zoho" when "Zoho CRM" is tracked).
// tracked is NewMatcher(brands).
func IsTracked(brands []Brand, tracked *Matcher, n NamedBrand) bool {
	an := tracked.Analyze(Answer{Text: n.Name})
	if len(an.Mentions) > 0 || len(an.Pending) > 0 {
		return true
	}
	if n.Domain != "" && len(tracked.Analyze(Answer{Text: n.Domain}).Mentions) > 0 {
		return true
	}
	inner := NewMatcher([]Brand{{Name: n.Name, Slug: "named", Aliases: []string{n.Name}}})
	for _, b := range brands {
		for _, al := range b.Aliases {
			x := inner.Analyze(Answer{Text: al})
			if len(x.Mentions) > 0 || len(x.Pending) > 0 {
				return true
			}
		}
	}
	return false
}
