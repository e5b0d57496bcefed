package analysis_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
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
		var c analysis.CompetitorInput
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
