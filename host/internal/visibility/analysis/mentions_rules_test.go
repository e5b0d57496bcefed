package analysis_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// TestAliasesCapitalsAndQuotesDecideAMention pins how a brand's names
// match (docs/METRICS.md "Mentions"): every alias counts, not only the
// first; an ordinary word written in lower case ("notion", "linear" from
// linear.app) needs its capital; curly and straight apostrophes are one.
func TestAliasesCapitalsAndQuotesDecideAMention(t *testing.T) {
	t.Parallel()
	bs := brandSet("Tasklane", "tasklane.io",
		analysis.CompetitorInput{Name: "Globex", Aliases: []string{"Gloobix"}},
		analysis.CompetitorInput{Name: "Linear App", Domain: "linear.app"},
		analysis.CompetitorInput{Name: "notion"},
		named("Trader Joe's"),
		analysis.CompetitorInput{Name: "*Initech"},
	)
	for text, want := range map[string]string{
		"We like Gloobix for this.":              "globex@1",
		"Keep a strictly linear roadmap.":        "",
		"Teams pick Linear for speed.":           "linear_app@1",
		"It fits the notion of done.":            "",
		"Teams pick Notion for docs.":            "notion@1",
		"Shop at Trader Joe’s today.":            "trader_joe_s@1",
		"Shop at Trader Joe‘s today.":            "trader_joe_s@1",
		"Shop at Trader Joe's today.":            "trader_joe_s@1",
		"Teams pick Initech, not Tasklane here.": "initech@1 tasklane@2",
	} {
		if got, _ := mentioned(bs, analysis.Answer{Text: text}); got != want {
			t.Errorf("%q: mentions %q, want %q", text, got, want)
		}
	}
}
