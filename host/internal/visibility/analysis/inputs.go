package analysis

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/site"
)

// Input limits of a competitor's object form and of the brand's own
// aliases.
const (
	MaxAliases = 20
	// MaxNameChars caps a brand or competitor name.
	MaxNameChars   = 200
	MaxDomainChars = 253
)

// CompetitorInput is one competitor as a user gives it (docs/METRICS.md
// "Inputs"): a string — a name ("Globex Corp"), a domain or URL
// ("globex.com"), or both as "Name (domain)" ("Fathom (usefathom.com)") —
// or an object {name, domain, aliases[], ambiguous}. Reports, prefill and
// trackers take a list of them; Brand turns one into the tracked brand.
type CompetitorInput struct {
	Name   string `json:"name,omitempty"`
	Domain string `json:"domain,omitempty"`
	// Aliases are more spellings and product names ("GA4").
	Aliases []string `json:"aliases,omitempty"`
	// Ambiguous marks every one-word alias of the competitor as an
	// ordinary word (see docs/METRICS.md "Mentions and positions").
	Ambiguous bool `json:"ambiguous,omitempty"`
	// Text is the string form as given; empty for the object form. The
	// input is shown and stored in the form it was given.
	Text string `json:"-"`
}

var nameAndDomain = regexp.MustCompile(`^(.*\S)\s*\(\s*([^()\s]+)\s*\)$`)

// ParseCompetitor reads a competitor's string form: "Name (domain)" when
// the parenthesis holds a domain or URL, else a domain or URL, else a
// name.
func ParseCompetitor(s string) CompetitorInput {
	s = strings.Join(strings.Fields(s), " ")
	c := CompetitorInput{Text: s}
	if m := nameAndDomain.FindStringSubmatch(s); m != nil {
		if d, ok := CompetitorDomain(m[2]); ok {
			c.Name, c.Domain = strings.TrimSpace(m[1]), d
			return c
		}
	}
	if d, ok := CompetitorDomain(s); ok {
		c.Domain = d
		return c
	}
	c.Name = s
	return c
}

// String is the competitor as shown in lists and prompts: its text as
// given, else "Name (domain)", the name or the domain.
func (c CompetitorInput) String() string {
	switch {
	case c.Text != "":
		return c.Text
	case c.Name != "" && c.Domain != "":
		return c.Name + " (" + c.Domain + ")"
	case c.Name != "":
		return c.Name
	}
	return c.Domain
}

// DisplayName is the competitor's name, else its domain.
func (c CompetitorInput) DisplayName() string {
	if c.Name != "" {
		return c.Name
	}
	if d, ok := CompetitorDomain(c.Domain); ok {
		return d
	}
	return c.Domain
}

// key identifies a competitor for de-duplication.
func (c CompetitorInput) key() string {
	d, _ := CompetitorDomain(c.Domain)
	return strings.ToLower(c.Name) + "|" + d
}

// MarshalJSON writes the string form when the competitor was given as a
// string, else the object.
func (c CompetitorInput) MarshalJSON() ([]byte, error) {
	if c.Text != "" {
		return json.Marshal(c.Text)
	}
	type plain CompetitorInput
	return json.Marshal(plain(c))
}

// UnmarshalJSON reads either form (stored reports before scoring version 2 hold
// strings only).
func (c *CompetitorInput) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = ParseCompetitor(s)
		return nil
	}
	type plain CompetitorInput
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*c = CompetitorInput(p)
	c.Text = ""
	return nil
}

// Validate checks one competitor; field is its name in errors
// ("competitors[2]").
func (c CompetitorInput) Validate(field string) error {
	if c.Text != "" {
		if n := utf8.RuneCountInString(c.Text); n > MaxNameChars {
			return apierr.Invalid("%s is %d characters; the limit is %d", field, n, MaxNameChars)
		}
		return nil
	}
	if strings.TrimSpace(c.Name) == "" && strings.TrimSpace(c.Domain) == "" {
		return apierr.Invalid("%s: give a name, a domain or both", field)
	}
	if n := utf8.RuneCountInString(c.Name); n > MaxNameChars {
		return apierr.Invalid("%s.name is %d characters; the limit is %d", field, n, MaxNameChars)
	}
	if c.Domain != "" {
		if len(c.Domain) > MaxDomainChars {
			return apierr.Invalid("%s.domain is longer than %d characters", field, MaxDomainChars)
		}
		if _, ok := CompetitorDomain(strings.TrimSpace(c.Domain)); !ok {
			return apierr.Invalid("%s.domain: %q is not a domain or URL (globex.com, https://globex.com)", field, c.Domain)
		}
	}
	return ValidateAliases(field+".aliases", c.Aliases)
}

func ValidateAliases(field string, aliases []string) error {
	if len(aliases) > MaxAliases {
		return apierr.Invalid("%s: %d given; the limit is %d", field, len(aliases), MaxAliases)
	}
	for i, a := range aliases {
		if strings.TrimSpace(a) == "" {
			return apierr.Invalid("%s[%d] is empty", field, i)
		}
		if n := utf8.RuneCountInString(a); n > MaxNameChars {
			return apierr.Invalid("%s[%d] is %d characters; the limit is %d", field, i, n, MaxNameChars)
		}
	}
	return nil
}

// Clean trims the object form's fields and normalises its domain.
func (c CompetitorInput) Clean() CompetitorInput {
	if c.Text != "" {
		return ParseCompetitor(c.Text)
	}
	c.Name = strings.Join(strings.Fields(c.Name), " ")
	c.Domain = strings.TrimSpace(c.Domain)
	if d, ok := CompetitorDomain(c.Domain); ok {
		c.Domain = d
	}
	c.Aliases = Dedupe(c.Aliases)
	return c
}

// Brand is the tracked brand of the competitor: named by its name (else
// its domain); aliases its name, its domain and the domain's first label,
// and the aliases given.
func (c CompetitorInput) Brand() Brand {
	c = c.Clean()
	b := Brand{Name: c.DisplayName(), Ambiguous: c.Ambiguous}
	b.Slug = Slug(b.Name)
	if c.Name != "" {
		b.addAlias(c.Name)
	}
	if d, ok := CompetitorDomain(c.Domain); ok {
		b.Domains = []string{d}
		b.addAlias(site.FirstLabel(d))
	}
	for _, a := range c.Aliases {
		b.addAlias(a)
	}
	return b
}

// ParseCompetitors reads string forms (the shape of stored inputs before
// scoring version 2 and of the SPEC's string[]).
func ParseCompetitors(list []string) []CompetitorInput {
	out := make([]CompetitorInput, 0, len(list))
	for _, s := range list {
		out = append(out, ParseCompetitor(s))
	}
	return out
}

// CompetitorsFromValues reads the competitors of an API request: each a
// string or an object {name, domain, aliases, ambiguous}. Errors name the
// element and its field.
func CompetitorsFromValues(vals []*structpb.Value) ([]CompetitorInput, error) {
	out := make([]CompetitorInput, 0, len(vals))
	for i, v := range vals {
		field := fmt.Sprintf("competitors[%d]", i)
		switch k := v.GetKind().(type) {
		case *structpb.Value_StringValue:
			out = append(out, ParseCompetitor(k.StringValue))
		case *structpb.Value_StructValue:
			c, err := competitorObject(field, k.StructValue)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		default:
			return nil, apierr.Invalid("%s must be a string (a name, a domain or \"Name (domain)\") or an object {name, domain, aliases, ambiguous}", field)
		}
	}
	return out, nil
}

func competitorObject(field string, s *structpb.Struct) (CompetitorInput, error) {
	var c CompetitorInput
	str := func(name string, v *structpb.Value) (string, error) {
		if _, ok := v.GetKind().(*structpb.Value_StringValue); !ok {
			return "", apierr.Invalid("%s.%s must be a string", field, name)
		}
		return v.GetStringValue(), nil
	}
	for name, v := range s.GetFields() {
		var err error
		switch name {
		case "name":
			c.Name, err = str(name, v)
		case "domain":
			c.Domain, err = str(name, v)
		case "aliases":
			l, ok := v.GetKind().(*structpb.Value_ListValue)
			if !ok {
				return c, apierr.Invalid("%s.aliases must be an array of strings", field)
			}
			for j, a := range l.ListValue.GetValues() {
				s, err := str(fmt.Sprintf("aliases[%d]", j), a)
				if err != nil {
					return c, err
				}
				c.Aliases = append(c.Aliases, s)
			}
		case "ambiguous":
			b, ok := v.GetKind().(*structpb.Value_BoolValue)
			if !ok {
				return c, apierr.Invalid("%s.ambiguous must be a boolean", field)
			}
			c.Ambiguous = b.BoolValue
		default:
			return c, apierr.Invalid("%s has an unknown field %q (name, domain, aliases, ambiguous)", field, name)
		}
		if err != nil {
			return c, err
		}
	}
	return c, c.Validate(field)
}

// CompetitorValues writes competitors back in the form they were given.
func CompetitorValues(list []CompetitorInput) []*structpb.Value {
	out := make([]*structpb.Value, 0, len(list))
	for _, c := range list {
		if c.Text != "" {
			out = append(out, structpb.NewStringValue(c.Text))
			continue
		}
		// Every field, as the REST face writes objects (the OpenAPI
		// document's Competitor requires all four).
		l := make([]*structpb.Value, len(c.Aliases))
		for i, a := range c.Aliases {
			l[i] = structpb.NewStringValue(a)
		}
		fields := map[string]*structpb.Value{
			"name": structpb.NewStringValue(c.Name), "domain": structpb.NewStringValue(c.Domain),
			"aliases": structpb.NewListValue(&structpb.ListValue{Values: l}), "ambiguous": structpb.NewBoolValue(c.Ambiguous),
		}
		out = append(out, structpb.NewStructValue(&structpb.Struct{Fields: fields}))
	}
	return out
}

// DedupeCompetitors cleans the list and drops repeats (same name and
// domain, case-insensitively), keeping the first.
func DedupeCompetitors(list []CompetitorInput) []CompetitorInput {
	out := []CompetitorInput{}
	seen := map[string]bool{}
	for _, c := range list {
		c = c.Clean()
		if c.Text == "" && c.Name == "" && c.Domain == "" {
			continue
		}
		if k := c.key(); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// CompetitorNames are the competitors' display names (probe facts,
// prompts).
func CompetitorNames(list []CompetitorInput) []string {
	out := make([]string, 0, len(list))
	for _, c := range list {
		out = append(out, c.DisplayName())
	}
	return out
}

func Dedupe(list []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, v := range list {
		v = strings.Join(strings.Fields(v), " ")
		if k := strings.ToLower(v); v != "" && !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}
