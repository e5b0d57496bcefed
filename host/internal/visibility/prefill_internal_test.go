package visibility

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// The model's competitors: a name with a domain is "Name (domain)", a
// name of exactly analysis.MaxNameChars still is; a longer name keeps only the
// domain, or is dropped without one; a domain that is not one is dropped
// and the name kept; an entry with neither is dropped.
func TestSuggestedCompetitorsKeepNamesUpToTheLimit(t *testing.T) {
	atLimit, over := strings.Repeat("a", analysis.MaxNameChars), strings.Repeat("b", analysis.MaxNameChars+1)
	raw := func(name, domain string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"name": name, "domain": domain})
		return b
	}
	for _, tc := range []struct {
		in   json.RawMessage
		want string
	}{
		{raw("Initech", "https://www.initech.io/"), "[Initech (initech.io)]"},
		{raw("", "initech.io"), "[initech.io]"},
		{raw(atLimit, "initech.io"), "[" + atLimit + " (initech.io)]"},
		{raw(over, "initech.io"), "[initech.io]"},
		{raw("Globex Corp", "not a domain"), "[Globex Corp]"},
		{raw(atLimit, ""), "[" + atLimit + "]"},
		{raw(over, ""), "[]"},
		{raw("", "not a domain"), "[]"},
		{raw("  ", ""), "[]"},
		{json.RawMessage(`"Hooli (hooli.com)"`), "[Hooli (hooli.com)]"},
		{json.RawMessage(`42`), "[]"},
	} {
		if got := fmt.Sprint(suggestedCompetitors([]json.RawMessage{tc.in})); got != tc.want {
			t.Errorf("%.60s: %.80s, want %.80s", tc.in, got, tc.want)
		}
	}
}

// The template's category is the first H1, else the title after its
// brand part; with neither, no category prompt.
func TestTemplateSuggestionsTakeTheCategoryFromTheH1ElseTheTitle(t *testing.T) {
	for _, tc := range []struct {
		facts site.Facts
		first string
	}{
		{site.Facts{SiteName: "Acme", H1s: []string{"Industrial widgets."}, Title: "Acme | Gadgets"}, "What are the best options for industrial widgets?"},
		{site.Facts{SiteName: "Acme", Title: "Acme | Widgets for factories"}, "What are the best options for widgets for factories?"},
		{site.Facts{SiteName: "Acme", Title: "Acme"}, "Acme alternatives"},
	} {
		if got := templateSuggestions(tc.facts, Input{}).Prompts; len(got) == 0 || got[0] != tc.first {
			t.Errorf("%+v: prompts %q, want first %q", tc.facts, got, tc.first)
		}
	}
}

// jsonObject cuts the outermost braces out of a model's text, from the
// first byte on.
func TestJSONObjectCutsTheOutermostBraces(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:                         `{"a":1}`,
		`{"a":1} and some words`:          `{"a":1}`,
		"```json\n{\"a\":{\"b\":2}}\n```": `{"a":{"b":2}}`,
		`no object`:                       `no object`,
		`} backwards {`:                   `} backwards {`,
	} {
		if got := jsonObject(in); got != want {
			t.Errorf("jsonObject(%q) = %q, want %q", in, got, want)
		}
	}
}

// capAnswer keeps a text of exactly MaxAnswerBytes, and cuts a longer one
// before the character that straddles the cap (to nothing when no
// character starts within it).
func TestCapAnswerCutsOnACharacterBoundary(t *testing.T) {
	exact := strings.Repeat("a", MaxAnswerBytes)
	straddle := strings.Repeat("a", MaxAnswerBytes-1) + "é" // é is 2 bytes: ends at MaxAnswerBytes+1
	noStart := strings.Repeat("\x80", MaxAnswerBytes+1)
	for _, tc := range []struct {
		name, in string
		want     int
		cut      bool
	}{
		{"exact", exact, MaxAnswerBytes, false},
		{"one over", exact + "b", MaxAnswerBytes, true},
		{"straddling", straddle, MaxAnswerBytes - 1, true},
		{"no rune start", noStart, 0, true},
	} {
		got, cut := capAnswer(tc.in)
		if len(got) != tc.want || cut != tc.cut || got != tc.in[:len(got)] {
			t.Errorf("%s: %d bytes, cut %v; want %d, %v", tc.name, len(got), cut, tc.want, tc.cut)
		}
		if tc.name == "straddling" && !utf8.ValidString(got) {
			t.Errorf("straddling: the cut splits é")
		}
	}
}

// The site's category: its first H1, else the title's tail, else the
// description.
func TestSiteCategoryIsTheH1ElseTheTitleTailElseTheDescription(t *testing.T) {
	for _, tc := range []struct {
		f    site.Facts
		want string
	}{
		{site.Facts{H1s: []string{"Widgets"}, Title: "Acme | Gadgets", Description: "Tools"}, "Widgets"},
		{site.Facts{Title: "Acme | Gadgets", Description: "Tools"}, "Gadgets"},
		{site.Facts{Title: "Acme", Description: "Tools"}, "Tools"},
	} {
		if got := siteCategory(tc.f); got != tc.want {
			t.Errorf("siteCategory(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
