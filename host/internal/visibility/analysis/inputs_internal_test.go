package analysis

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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

// maxName is the name length of the tests' name rule.
const maxName = 12

// names is a name rule of maxName characters, with the host's message.
func names(field, value string) error {
	if utf8.RuneCountInString(value) > maxName {
		return fmt.Errorf("%s is longer than %d characters", field, maxName)
	}
	return nil
}

// TestCompetitorLimitsAllowExactlyTheLimit: a competitor's text, name and
// aliases go through the name rule (up to its length in characters),
// domains up to MaxDomainChars bytes, up to MaxAliases aliases; one more
// is an error naming the field.
func TestCompetitorLimitsAllowExactlyTheLimit(t *testing.T) {
	name := strings.Repeat("é", maxName)
	domain := strings.Repeat("a", MaxDomainChars-4) + ".com"
	aliases := make([]string, MaxAliases)
	for i := range aliases {
		aliases[i] = "alias"
	}
	cases := []struct {
		c   CompetitorInput
		err string
	}{
		{CompetitorInput{Text: name}, ""},
		{CompetitorInput{Text: name + "e"}, "competitors[0] is longer than 12 characters"},
		{CompetitorInput{Name: name}, ""},
		{CompetitorInput{Name: name + "e"}, "competitors[0].name is longer than 12 characters"},
		{CompetitorInput{Name: "Globex", Domain: domain}, ""},
		{CompetitorInput{Name: "Globex", Domain: "a" + domain}, "invalid_argument: competitors[0].domain is longer than 253 characters"},
		{CompetitorInput{Name: "Globex", Aliases: aliases}, ""},
		{CompetitorInput{Name: "Globex", Aliases: append(aliases, "one more")}, "invalid_argument: competitors[0].aliases: 21 given; the limit is 20"},
		{CompetitorInput{Name: "Globex", Aliases: []string{name}}, ""},
		{CompetitorInput{Name: "Globex", Aliases: []string{"x", name + "e"}}, "competitors[0].aliases[1] is longer than 12 characters"},
	}
	for i, c := range cases {
		got := ""
		if err := c.c.Validate("competitors[0]", names); err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("case %d: validate = %q, want %q", i, got, c.err)
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
