package visibility_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/visibility"
)

func TestCompetitorsInEveryForm(t *testing.T) {
	for raw, want := range map[string]string{
		`"Globex Corp"`:                        `Globex Corp globex_corp [Globex Corp] []`,
		`"globex.com"`:                         `globex.com globex_com [globex] [globex.com]`,
		`"https://www.usefathom.com/pricing"`:  `usefathom.com usefathom_com [usefathom] [usefathom.com]`,
		`"Fathom (usefathom.com)"`:             `Fathom fathom [Fathom usefathom] [usefathom.com]`,
		`"Fathom  ( https://usefathom.com/ )"`: `Fathom fathom [Fathom usefathom] [usefathom.com]`,
		`"Acme (formerly Globex)"`:             `Acme (formerly Globex) acme_formerly_globex [Acme (formerly Globex)] []`,
		`{"name":"Google Analytics","domain":"analytics.google.com","aliases":["GA4","Google Analytics 4"]}`: `Google Analytics google_analytics [Google Analytics google GA4 Google Analytics 4] [google.com]`,
		`{"domain":"linear.app","ambiguous":true}`:                                                           `linear.app linear_app [linear] [linear.app]`,
	} {
		var c visibility.CompetitorInput
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		b := c.Brand()
		if got := fmt.Sprint(b.Name, " ", b.Slug, " ", b.Aliases, " ", b.Domains); got != want {
			t.Errorf("%s: brand %s, want %s", raw, got, want)
		}
		// Stored and shown in the form it was given.
		out, _ := json.Marshal(c)
		if raw[0] == '"' && string(out) != fmt.Sprintf("%q", c.Text) {
			t.Errorf("%s: marshals as %s", raw, out)
		}
		if raw[0] == '{' && out[0] != '{' {
			t.Errorf("%s: marshals as %s", raw, out)
		}
	}
}

func TestReportInputsTakeCompetitorObjectsAndSelfAliases(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt"}})
	res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report/prefill", b.business,
		`{"websiteurl":"https://example.com","selfAliases":["Acme Widgets"],"competitors":["Globex Corp (globex.com)",{"name":"Initech","domain":"initech.io","aliases":["Initrode"],"ambiguous":true}]}`).Want(t, http.StatusOK)
	in, _ := json.Marshal(get(t, res.Body, "input"))
	want := `{"competitors":["Globex Corp (globex.com)",{"aliases":["Initrode"],"ambiguous":true,"domain":"initech.io","name":"Initech"}],"prompts":[],"selfAliases":["Acme Widgets"],"websiteurl":"https://example.com/"}`
	if string(in) != want {
		t.Errorf("input =\n%s\nwant\n%s", in, want)
	}
	for body, msg := range map[string]string{
		`{"websiteurl":"https://example.com","competitors":[3]}`:                                                  `competitors[0] must be a string (a name, a domain or "Name (domain)") or an object {name, domain, aliases, ambiguous}`,
		`{"websiteurl":"https://example.com","competitors":["a",{"nme":"x"}]}`:                                    `competitors[1] has an unknown field "nme" (name, domain, aliases, ambiguous)`,
		`{"websiteurl":"https://example.com","competitors":[{"name":"x","domain":"not a domain"}]}`:               `competitors[0].domain: "not a domain" is not a domain or URL (globex.com, https://globex.com)`,
		`{"websiteurl":"https://example.com","competitors":[{"aliases":["x"]}]}`:                                  `competitors[0]: give a name, a domain or both`,
		`{"websiteurl":"https://example.com","competitors":[{"name":"x","aliases":[1]}]}`:                         `competitors[0].aliases[0] must be a string`,
		`{"websiteurl":"https://example.com","prompts":["p"],"selfAliases":["` + strings.Repeat("x", 201) + `"]}`: `selfAliases[0] is 201 characters; the limit is 200`,
	} {
		got := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report", b.business, body).Want(t, http.StatusBadRequest)
		if got.Body["message"] != msg {
			t.Errorf("%s: message %q, want %q", body, got.Body["message"], msg)
		}
	}
}
