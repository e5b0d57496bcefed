package analysis

import (
	"reflect"
	"strings"
	"testing"
)

func TestCompetitorStringShowsTextElseNameAndDomain(t *testing.T) {
	cases := []struct {
		c    CompetitorInput
		want string
	}{
		{CompetitorInput{Text: "Globex (globex.com)", Name: "x", Domain: "y.com"}, "Globex (globex.com)"},
		{CompetitorInput{Name: "Globex", Domain: "globex.com"}, "Globex (globex.com)"},
		{CompetitorInput{Name: "Globex"}, "Globex"},
		{CompetitorInput{Domain: "globex.com"}, "globex.com"},
	}
	for _, c := range cases {
		if got := c.c.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.c, got, c.want)
		}
	}
}

// TestCompetitorLimitsAllowExactlyTheLimit: names and aliases up to
// MaxNameChars characters, domains up to MaxDomainChars bytes, up to
// MaxAliases aliases; one more is an error.
func TestCompetitorLimitsAllowExactlyTheLimit(t *testing.T) {
	name := strings.Repeat("é", MaxNameChars)
	domain := strings.Repeat("a", MaxDomainChars-4) + ".com"
	aliases := make([]string, MaxAliases)
	for i := range aliases {
		aliases[i] = "alias"
	}
	cases := []struct {
		c  CompetitorInput
		ok bool
	}{
		{CompetitorInput{Text: name}, true},
		{CompetitorInput{Text: name + "e"}, false},
		{CompetitorInput{Name: name}, true},
		{CompetitorInput{Name: name + "e"}, false},
		{CompetitorInput{Name: "Globex", Domain: domain}, true},
		{CompetitorInput{Name: "Globex", Domain: "a" + domain}, false},
		{CompetitorInput{Name: "Globex", Aliases: aliases}, true},
		{CompetitorInput{Name: "Globex", Aliases: append(aliases, "one more")}, false},
		{CompetitorInput{Name: "Globex", Aliases: []string{name}}, true},
		{CompetitorInput{Name: "Globex", Aliases: []string{name + "e"}}, false},
	}
	for i, c := range cases {
		err := c.c.Validate("competitors[0]")
		if (err == nil) != c.ok {
			t.Errorf("case %d: validate = %v, want ok %v", i, err, c.ok)
		}
	}
}

func TestDedupeCompetitorsDropsEmptyEntriesAndKeepsNameOnlyAndDomainOnly(t *testing.T) {
	got := DedupeCompetitors([]CompetitorInput{{Name: "Globex"}, {Domain: "initech.com"}, {}, {Name: "  "}, {Name: "globex"}})
	var shown []string
	for _, c := range got {
		shown = append(shown, c.String())
	}
	if want := []string{"Globex", "initech.com"}; !reflect.DeepEqual(shown, want) {
		t.Errorf("dedupeCompetitors = %q, want %q", shown, want)
	}
}

func TestFoldAndWordRunesCoverTheASCIIEnds(t *testing.T) {
	if got := foldString("AZaz09"); got != "azaz09" {
		t.Errorf("foldString = %q, want azaz09", got)
	}
	for _, r := range "azAZ09" {
		if !isWordRune(r) {
			t.Errorf("isWordRune(%q) = false", r)
		}
	}
	for _, r := range "@[`{/:-_ " {
		if isWordRune(r) {
			t.Errorf("isWordRune(%q) = true", r)
		}
	}
}
