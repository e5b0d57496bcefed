package analysis_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

func TestDiscoverKeepsOnlyUntrackedNamesTheAnswerWrites(t *testing.T) {
	self := analysis.SelfBrand("Acme", "acme.com").WithAliases([]string{"Acme Widgets"})
	brands := analysis.Brands(self, []string{"Zoë Analytics (zoe.io)", "Globex Corp"})
	a := analysis.Answer{Engine: "gpt", Prompt: "q", DiscoveryJudged: true,
		Text: "Pipedrive leads, then acme.com, Zoe Analytics and Globex Corp. HubSpot CRM and Close follow, with Zed.",
		Discovered: []analysis.NamedBrand{
			{Name: "Pipedrive", Domain: "https://www.pipedrive.com/en"}, {Name: "acme"}, {Name: "Acme Widgets Pro"},
			{Name: "Zoe Analytics"}, {Name: "zoë"}, {Name: "Globex"}, {Name: "HubSpot CRM"}, {Name: "hubspot crm"},
			{Name: "Close"}, {Name: "Salesforce"}, {Name: ""}, {Name: "Zed", Domain: "zoe.io"},
		}}
	d := analysis.Discover(brands, a)
	var names []string
	for _, m := range d.Discovered {
		names = append(names, m.Name)
	}
	// acme (self's domain label), Acme Widgets Pro (holds an alias of
	// self), Zoe Analytics (a competitor, folded), zoë and Globex (inside
	// a competitor's alias), Zed (a competitor's domain): tracked. Salesforce:
	// not in the text. hubspot crm: the same brand as HubSpot CRM.
	if got, want := join(names), "Pipedrive,HubSpot CRM,Close"; got != want {
		t.Fatalf("discovered = %s, want %s", got, want)
	}
	if d.Discovered[0].Domain != "pipedrive.com" || d.Discovered[0].Position != 1 || d.Discovered[2].Position != 6 {
		t.Errorf("discovered = %+v", d.Discovered)
	}
	// Among all: Pipedrive 1, acme 2, Zoë 3, Globex 4, HubSpot CRM 5, Close 6.
	if d.AmongAll["acme"] != 2 || d.AmongAll["zoë_analytics"] != 3 || d.AmongAll["globex_corp"] != 4 {
		t.Errorf("positions among all = %v", d.AmongAll)
	}
	if un := analysis.Discover(brands, analysis.Answer{Text: a.Text, Discovered: a.Discovered}); un.Judged || len(un.Discovered) != 0 {
		t.Errorf("an answer the judge did not list: %+v", un)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
