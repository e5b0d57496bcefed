package analysis_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// brandSet is a self brand and competitors in their string or object forms.
func brandSet(selfName, selfDomain string, competitors ...analysis.CompetitorInput) []analysis.Brand {
	self := analysis.SelfBrand(selfName, selfDomain)
	self.Category = "project management software"
	return analysis.BuildBrands(self, competitors)
}

func named(s string) analysis.CompetitorInput { return analysis.ParseCompetitor(s) }

// mentioned lists "slug@position" of the brands a mentions and the slugs
// it cites.
func mentioned(bs []analysis.Brand, a analysis.Answer) (string, string) {
	an := analysis.NewMatcher(bs).Analyze(a)
	var m, c []string
	for _, x := range an.Mentions {
		m = append(m, fmt.Sprintf("%s@%d", x.Brand, x.Position))
	}
	for _, b := range an.Brands {
		if b.Cited {
			c = append(c, b.Brand)
		}
	}
	return strings.Join(m, " "), strings.Join(c, " ")
}

func TestLowercaseCommonWordsNeverCount(t *testing.T) {
	t.Parallel()
	bs := brandSet("Tasklane", "tasklane.io", named("Linear (linear.app)"), named("Notion"), named("Close"), named("Nothing"))
	for text, want := range map[string]string{
		"Keep a strictly linear roadmap; the notion of done matters, and nothing beats the ones you can close.": "",
		"Tasklane and Linear both help.":                    "tasklane@1 linear@2",
		"For docs, many teams pick Notion; Close is a CRM.": "notion@1 close@2",
		"A LINEAR workflow":/* the brand's capitals, in a heading */ "linear@1",
		"Try linear.app or Tasklane.": "linear@1 tasklane@2",
	} {
		if got, _ := mentioned(bs, analysis.Answer{Text: text}); got != want {
			t.Errorf("%q: mentions %q, want %q", text, got, want)
		}
	}
}

func TestSentenceInitialOrdinaryWordsNeedTheJudge(t *testing.T) {
	t.Parallel()
	bs := brandSet("Tasklane", "tasklane.io", named("Monday (monday.com)"), named("Close"))
	m := analysis.NewMatcher(bs)
	text := "Monday is eaten by email for most teams. Tasklane helps.\n\n1. **Close** – a CRM for inside sales"
	an := m.Analyze(analysis.Answer{Text: text})
	if got := fmt.Sprint(an.Mentions); !strings.Contains(got, "tasklane") || strings.Contains(got, "monday") {
		t.Fatalf("without a verdict the sentence-initial Monday must not count: %+v", an.Mentions)
	}
	if len(an.Pending) != 1 || an.Pending[0].Brand != "monday" || an.Pending[0].Sentence != "Monday is eaten by email for most teams." ||
		an.Pending[0].Category != "project management software" {
		t.Fatalf("pending = %+v", an.Pending)
	}
	if an.Brands[1].Unjudged != 1 {
		t.Errorf("the evidence must say the occurrence was not judged: %+v", an.Brands[1])
	}
	// **Close** as a list item's label is a name, not a sentence's word.
	if !an.Brands[2].Mentioned || an.Brands[2].Position != 2 {
		t.Errorf("a bold list label counts: %+v", an.Brands[2])
	}
	yes := analysis.Answer{Text: text, Verdicts: []analysis.MentionVerdict{{Brand: "monday", Sentence: an.Pending[0].Sentence, Names: true}}}
	if got, _ := mentioned(bs, yes); got != "monday@1 tasklane@2 close@3" {
		t.Errorf("with the judge's yes: %q", got)
	}
	no := analysis.Answer{Text: text, Verdicts: []analysis.MentionVerdict{{Brand: "monday", Sentence: an.Pending[0].Sentence, Names: false}}}
	if got, _ := mentioned(bs, no); got != "tasklane@1 close@2" {
		t.Errorf("with the judge's no: %q", got)
	}
}

func TestABrandOnlyInAURLOrTheSourcesIsNotMentioned(t *testing.T) {
	t.Parallel()
	bs := brandSet("Tasklane", "tasklane.io", named("HubSpot (hubspot.com)"), named("Fathom"))
	for text, want := range map[string][2]string{
		"Plan sprints weekly.\n\nSources:\n[1] https://tasklane.io/blog/sprints\n[2] blog.hubspot.com/marketing/x": {"", "tasklane hubspot"},
		"Plan sprints weekly [1].\n[1] https://tasklane.io/blog/sprints":                                           {"", "tasklane"},
		"See tasklane.io/pricing and https://www.g2.com/compare/hubspot-vs-fathom for prices.":                     {"", "tasklane"},
		"**References:** hubspot.com, Tasklane docs":                                                               {"", "hubspot"},
		"usefathom.com – similar, simpler. Tasklane too (https://tasklane.io).":                                    {"tasklane@1", "tasklane"},
		"HubSpot's blog (blog.hubspot.com) says so.":                                                               {"hubspot@1", ""}, // a bare domain in prose is a name, no source
	} {
		got, cited := mentioned(bs, analysis.Answer{Text: text})
		if got != want[0] || cited != want[1] {
			t.Errorf("%q: mentions %q cited %q, want %q and %q", text, got, cited, want[0], want[1])
		}
	}
}

func TestSpellingVariantsMatch(t *testing.T) {
	t.Parallel()
	bs := brandSet("Zoë Analytics", "zanalytics.io", named("HubSpot"), named("Mailchimp"))
	for text, want := range map[string]string{
		"Zoe Analytics, Hub Spot and Mail-Chimp.": "zoë_analytics@1 hubspot@2 mailchimp@3",
		"ZOË ANALYTICS and hubspot":               "zoë_analytics@1 hubspot@2",
		"Zoë-Analytics is new.":                   "zoë_analytics@1",
		"Hubs pot":                                "hubspot@1", // spaces inside are ignored, as the rule says
	} {
		if got, _ := mentioned(bs, analysis.Answer{Text: text}); got != want {
			t.Errorf("%q: mentions %q, want %q", text, got, want)
		}
	}
}

func TestEveryBrandIsCitedOrNotInEveryAnswer(t *testing.T) {
	t.Parallel()
	bs := brandSet("Tasklane", "tasklane.io", named("Notion (notion.so)"), named("Fathom"), analysis.CompetitorInput{Name: "Plausible", Domain: "plausible.io"})
	a := analysis.Answer{Text: "Use a kanban board.", Citations: []analysis.Citation{{URL: "https://www.notion.so/templates/kanban"}, {URL: "https://docs.plausible.io/x"}, {URL: "https://usefathom.com/"}}}
	got, cited := mentioned(bs, a)
	// Fathom was given by name only: no domain, so usefathom.com cites no one.
	if got != "" || cited != "notion plausible" {
		t.Errorf("mentions %q cited %q, want none and \"notion plausible\"", got, cited)
	}
	ms := scoring.ScoreMentions(bs, []string{"e"}, []analysis.Answer{{Engine: "e", Text: a.Text, Citations: a.Citations}})
	evidence := ms.AllEvidence()
	if fmt.Sprint(ms.Cited(0)) != "[notion plausible]" || len(evidence[0]) != 4 || !evidence[0][1].Cited || evidence[0][1].Mentioned {
		t.Errorf("cited = %v, evidence = %+v", ms.Cited(0), evidence[0])
	}
}

func TestMatchingIsLinear(t *testing.T) {
	t.Parallel()
	// The worst answer of 150,000 one-letter words and a
	// competitor "g". Version 1 compared every occurrence with every
	// accepted one (quadratic); now it is one pass.
	text := strings.Repeat("g ", 150000)
	bs := brandSet("Tasklane", "tasklane.io", named("g"))
	an := analysis.NewMatcher(bs).Analyze(analysis.Answer{Text: text})
	if len(an.Mentions) != 1 || an.Mentions[0].Brand != "g" {
		t.Fatalf("mentions = %+v", an.Mentions)
	}
}
