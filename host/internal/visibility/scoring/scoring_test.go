package scoring_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

func ptr[T any](v T) *T { return &v }

// scripted is the worked example of docs/GUIDE.md: two engines, two prompts,
// one engine failing on one prompt.
func scripted() ([]analysis.Brand, []string, []analysis.Answer) {
	brands := analysis.Brands(analysis.SelfBrand("Acme", "acme.com"), []string{"Globex Corp", "https://initech.io/", "acme.com"})
	engines := []string{"gpt", "claude"}
	answers := []analysis.Answer{
		{Engine: "gpt", Prompt: "best widget tools", Text: "The best tools are Globex Corp, then Acme, and see https://www.initech.io/pricing."},
		{Engine: "gpt", Prompt: "widgets for factories", Text: "I recommend ACME (acme.com) above all."},
		{Engine: "claude", Prompt: "best widget tools", Text: "Globex Corp and Initech lead; notacme.com is unrelated. Acmeville too.",
			Citations: []analysis.Citation{{URL: "https://acme.com/blog/widgets", Title: "Widgets"}}},
		{Engine: "claude", Prompt: "widgets for factories", Error: "claude: rate limited"},
	}
	return brands, engines, answers
}

func TestBrandsAliasesAndSlugs(t *testing.T) {
	t.Parallel()
	brands, _, _ := scripted()
	if len(brands) != 3 {
		t.Fatalf("the competitor acme.com is the brand itself and must be dropped: %+v", brands)
	}
	want := []analysis.Brand{
		{Name: "Acme", Slug: "acme", Self: true, Aliases: []string{"Acme"}, Domains: []string{"acme.com"}},
		{Name: "Globex Corp", Slug: "globex_corp", Aliases: []string{"Globex Corp"}},
		{Name: "initech.io", Slug: "initech_io", Aliases: []string{"initech"}, Domains: []string{"initech.io"}},
	}
	if !reflect.DeepEqual(brands, want) {
		t.Fatalf("brands =\n%+v\nwant\n%+v", brands, want)
	}
	for in, want := range map[string]string{"Globex Corp": "globex_corp", "  A & B  ": "a_b", "Café Noir!": "café_noir"} {
		if got := analysis.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMentionsPositionsAndCitations(t *testing.T) {
	t.Parallel()
	brands, engines, answers := scripted()
	ms := scoring.ScoreMentions(brands, engines, answers)
	// Scoring version 2: initech.io appears in the first answer
	// only inside a URL, so it is cited there but not mentioned (version 1
	// counted it at position 3). Version 3: "acme.com" written in the
	// second answer's prose is a name (no scheme, no path), not a source,
	// so Acme is not cited there.
	want := [][]analysis.Mention{
		{{Brand: "globex_corp", Name: "Globex Corp", Position: 1, Weight: 1},
			{Brand: "acme", Name: "Acme", Self: true, Position: 2, Weight: 0.75}},
		{{Brand: "acme", Name: "Acme", Self: true, Position: 1, Weight: 1}},
		{{Brand: "globex_corp", Name: "Globex Corp", Position: 1, Weight: 1},
			{Brand: "initech_io", Name: "initech.io", Position: 2, Weight: 0.75}},
		nil,
	}
	if !reflect.DeepEqual(ms.Mentions, want) {
		t.Fatalf("mentions =\n%+v\nwant\n%+v", ms.Mentions, want)
	}
	if cited := [][]string{ms.Cited(0), ms.Cited(1), ms.Cited(2), ms.Cited(3)}; !reflect.DeepEqual(cited, [][]string{{"initech_io"}, nil, {"acme"}, nil}) {
		t.Errorf("cited = %q", cited)
	}
}

func TestOverlappingAliasesCountTheLongerOne(t *testing.T) {
	t.Parallel()
	brands := analysis.Brands(analysis.SelfBrand("Acme", "acme.com"), []string{"Acme Cloud", "Zeta"})
	m := analysis.NewMatcher(brands)
	got := m.Mentions(analysis.Answer{Text: "Acme Cloud beats Zeta; plain Acme comes last. Visit acme.com.au or ACME-tools."})
	want := []analysis.Mention{
		{Brand: "acme_cloud", Name: "Acme Cloud", Position: 1, Weight: 1},
		{Brand: "zeta", Name: "Zeta", Position: 2, Weight: 0.75},
		{Brand: "acme", Name: "Acme", Self: true, Position: 3, Weight: 0.5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mentions = %+v, want %+v", got, want)
	}
	for _, text := range []string{"notacme.com rocks", "acmeville", "acme2"} {
		if ms := m.Mentions(analysis.Answer{Text: text}); len(ms) != 0 {
			t.Errorf("%q mentions %+v", text, ms)
		}
	}
	// A domain is not found inside a longer domain name.
	domainOnly := analysis.NewMatcher([]analysis.Brand{{Name: "Q", Slug: "q", Self: true, Domains: []string{"acme.com"}}})
	// Version 2: a domain inside a URL is no longer a mention
	// (version 1 counted https://www.acme.com/x); a domain in prose is.
	for text, want := range map[string]int{"visit acme.com.au": 0, "visit my-acme.com": 0, "visit acme.com.": 1, "https://www.acme.com/x": 0, "blog.acme.com says": 1} {
		if ms := domainOnly.Mentions(analysis.Answer{Text: text}); len(ms) != want {
			t.Errorf("%q: %d mentions, want %d", text, len(ms), want)
		}
	}
	an := m.Analyze(analysis.Answer{Text: "see https://shop.acme.com/x."})
	if len(an.Mentions) != 0 || !an.Brands[0].Cited || an.Brands[0].Mentioned {
		t.Errorf("a subdomain URL is a citation, not a mention (version 1: both): %+v", an)
	}
}

func TestScoresToTheDecimal(t *testing.T) {
	t.Parallel()
	brands, engines, answers := scripted()
	probes := []scoring.ProbeResult{
		{ID: "what", Question: "What is Acme?", Engine: "gpt", Verdict: scoring.VerdictCorrect, Fact: "Widgets",
			Entities: []scoring.JudgedEntity{{Name: "Widgets", Kind: "category"}}},
		{ID: "what", Question: "What is Acme?", Engine: "claude", Verdict: scoring.VerdictWrong, Fact: "Widgets", Answer: "A bakery.",
			Explanation: ptr("says Acme is a bakery"), Entities: []scoring.JudgedEntity{{Name: "widgets", Kind: "Category"}, {Name: "Bakery", Kind: "category"}}},
		{ID: "offers", Engine: "gpt", Verdict: scoring.VerdictPartly},
		{ID: "offers", Engine: "claude", Verdict: scoring.VerdictUnknown},
		{ID: "audience", Question: "Who is Acme for?", Engine: "gpt", Verdict: scoring.VerdictUnknown, Fact: "Factories"},
		{ID: "audience", Question: "Who is Acme for?", Engine: "claude", Verdict: scoring.VerdictWrong, Fact: "Factories", Answer: "Children."},
		{ID: "location", Engine: "gpt", Verdict: scoring.VerdictUnverifiable},
		{ID: "location", Engine: "claude", Verdict: scoring.VerdictMissing},
	}
	checks := []scoring.ClarityCheck{{ID: "https", Passed: true}, {ID: "one_h1", Passed: true}, {ID: "meta_description", Passed: true},
		{ID: "organization_schema", Passed: true}, {ID: "about_page", Passed: true}, {ID: "sitemap", Title: "sitemap.xml", Detail: "none"},
		{ID: "ai_crawlers", Title: "robots", Detail: "robots.txt blocks GPTBot"}, {ID: "llms_txt", Title: "llms", Detail: "no /llms.txt"}}
	c := scoring.Compute(brands, engines, answers, probes, checks)

	js, _ := json.Marshal(c.Scores)
	// visibility(self) = 100 × (0.75 + 1 + 0) / 3 answered = 58.3; gpt
	// (0.75 + 1) / 2 = 87.5; claude 0 / 1 = 0. Mentions: Acme 2, Globex 2,
	// Initech 1 (version 2: not in the first answer, where it is only in a
	// URL; version 1 counted 2 and 2 / 6 = 33.3) → share of voice 2 / 5 =
	// 40. Knowledge: gpt 1, 0.5, 0 →
	// 50; claude 0, 0, 0 → 0; all 1.5 / 6 = 25. Clarity 5 / 8 = 62.5.
	// Understanding 0.6 × 25 + 0.4 × 62.5 = 40.
	want := `{"aiVisibility":{"score":58.3,"interpretation":"moderate","providers":{"claude":0,"gpt":87.5}},` +
		`"entityUnderstanding":{"score":40,"interpretation":"moderate","knowledgeScore":25,"contentClarityScore":62.5,"providers":{"claude":0,"gpt":50}},` +
		`"shareOfVoice":{"score":40,"interpretation":"moderate","totalMentions":5,"selfMentions":2}}`
	if string(js) != want {
		t.Fatalf("scores =\n%s\nwant\n%s", js, want)
	}
	bs, _ := json.Marshal(c.Geo.Brands)
	// Version 2: initech.io is mentioned once (its URL in the first answer
	// is no mention): visibility 0.75 / 3 = 25, rate 33.3, position 2;
	// shares of voice 2/5, 2/5, 1/5 (version 1: 41.7, 66.7, 2.5 and 1/3 each).
	wantBrands := `[{"name":"Acme","slug":"acme","self":true,"aliases":["Acme"],"visibility":58.3,"mentionRate":66.7,"mentions":2,"shareOfVoice":40,"averagePosition":1.5},` +
		`{"name":"Globex Corp","slug":"globex_corp","self":false,"aliases":["Globex Corp"],"visibility":66.7,"mentionRate":66.7,"mentions":2,"shareOfVoice":40,"averagePosition":1},` +
		`{"name":"initech.io","slug":"initech_io","self":false,"aliases":["initech"],"visibility":25,"mentionRate":33.3,"mentions":1,"shareOfVoice":20,"averagePosition":2}]`
	if string(bs) != wantBrands {
		t.Errorf("brands =\n%s\nwant\n%s", bs, wantBrands)
	}
	es, _ := json.Marshal(c.Geo.Engines)
	if want := `[{"engine":"gpt","planned":2,"answered":2,"missing":0,"noAnswer":0,"error":null},{"engine":"claude","planned":2,"answered":1,"missing":1,"noAnswer":0,"error":"claude: rate limited"}]`; string(es) != want {
		t.Errorf("engines = %s, want %s", es, want)
	}

	u := c.Geo.EntityUnderstanding
	gs, _ := json.Marshal(u.Gaps)
	wantGaps := `[{"kind":"contradiction","probe":"what","fact":"Widgets","detail":"says Acme is a bakery","engines":["claude"]},` +
		`{"kind":"unknown_fact","probe":"audience","fact":"Factories","detail":"No engine answered \"Who is Acme for?\" in line with the site","engines":["gpt","claude"]},` +
		`{"kind":"contradiction","probe":"audience","fact":"Factories","detail":"Children.","engines":["claude"]}]`
	if string(gs) != wantGaps {
		t.Errorf("gaps =\n%s\nwant\n%s", gs, wantGaps)
	}
	ds, _ := json.Marshal(u.DetectedEntities)
	if want := `[{"name":"Widgets","kind":"category","engines":["claude","gpt"]},{"name":"Bakery","kind":"category","engines":["claude"]}]`; string(ds) != want {
		t.Errorf("detected entities = %s, want %s", ds, want)
	}
	if u.Probes[6].Points != nil || u.Probes[7].Points != nil || *u.Probes[2].Points != 0.5 {
		t.Errorf("unverifiable and missing probes must have no points: %+v", u.Probes)
	}

	point, _ := json.Marshal(scoring.HistoryPoint(time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC), c))
	wantPoint := `{"comp_globex_corp":66.7,"comp_initech_io":25,"overall":58.3,"scoringVersion":3,"self":58.3,"shareOfVoice":40,` +
		`"sov_comp_globex_corp":40,"sov_comp_initech_io":20,"time":"2026-11-26T06:00:00.000Z","timestamp":"2026-11-26T06:00:00.000Z","understanding":40}`
	if string(point) != wantPoint {
		t.Errorf("history point =\n%s\nwant\n%s", point, wantPoint)
	}
}

func TestRecommendationsCarryTheirEvidence(t *testing.T) {
	t.Parallel()
	brands, engines, answers := scripted()
	checks := []scoring.ClarityCheck{{ID: "https", Passed: true}, {ID: "ai_crawlers", Title: "robots.txt does not block AI crawlers", Detail: "robots.txt blocks GPTBot"}}
	probes := []scoring.ProbeResult{{ID: "location", Question: "Where?", Engine: "gpt", Verdict: scoring.VerdictUnknown, Fact: "Lyon, FR"}}
	c := scoring.Compute(brands, engines, answers, probes, checks)
	got := map[string]scoring.Recommendation{}
	var ids []string
	for _, r := range c.Recommendations {
		got[r.ID] = r
		ids = append(ids, r.ID+":"+r.Priority)
	}
	if want := "competitor-prompts:high clarity-ai_crawlers:high competitor-citations:medium probe-location:medium"; strings.Join(ids, " ") != want {
		t.Fatalf("recommendations = %s, want %s", strings.Join(ids, " "), want)
	}
	for id, want := range map[string][]string{
		"competitor-prompts":   {`"best widget tools" on claude mentions Globex Corp, initech.io but not Acme`},
		"competitor-citations": {`"best widget tools" on gpt cites initech.io`},
		"clarity-ai_crawlers":  {`check "robots.txt does not block AI crawlers" failed: robots.txt blocks GPTBot`},
		"probe-location":       {`unknown_fact (gpt): No engine answered "Where?" in line with the site; the site says: Lyon, FR`},
	} {
		if !reflect.DeepEqual(got[id].Evidence, want) {
			t.Errorf("%s evidence = %q, want %q", id, got[id].Evidence, want)
		}
	}
}

func TestNoAnswersMeansNoInterpretation(t *testing.T) {
	t.Parallel()
	brands := analysis.Brands(analysis.SelfBrand("Acme", "acme.com"), nil)
	c := scoring.Compute(brands, []string{"gpt"}, []analysis.Answer{{Engine: "gpt", Prompt: "p", Error: "down"}}, nil, nil)
	js, _ := json.Marshal(c.Scores.AIVisibility)
	if want := `{"score":0,"interpretation":null,"providers":{"gpt":null}}`; string(js) != want {
		t.Fatalf("aiVisibility = %s, want %s", js, want)
	}
	for score, want := range map[float64]string{70: "strong", 69.96: "strong", 69.9: "moderate", 40: "moderate", 39.9: "weak", 15: "weak", 14.9: "absent", 0: "absent"} {
		if got := scoring.Interpretation(score); got != want {
			t.Errorf("Interpretation(%v) = %s, want %s", score, got, want)
		}
	}
}

func TestDefaultEnginesTakeOneChatRoutePerProvider(t *testing.T) {
	t.Parallel()
	dep := func(p string) config.Model { return config.Model{Deployments: []config.Deployment{{Provider: p}}} }
	models := map[string]config.Model{
		"gpt-4o-mini": dep("openai"), "gpt-4o": dep("openai"), "gpt-image-1": dep("openai"), "gpt-5": dep("openai"),
		"claude-sonnet": dep("anthropic"), "gemini-2.5-flash-lite": dep("gemini"), "sonar": dep("perplexity"), "mistral": dep("mistral"),
	}
	if got := visibility.DefaultEngines(models, nil); !reflect.DeepEqual(got, []string{"claude-sonnet", "gpt-4o", "mistral", "sonar"}) {
		t.Fatalf("default engines = %q", got)
	}
	// Providers without credentials are left out, unless none has them.
	keyed := func(p string) bool { return p == "openai" || p == "gemini" }
	if got := visibility.DefaultEngines(models, keyed); !reflect.DeepEqual(got, []string{"gemini-2.5-flash-lite", "gpt-4o"}) {
		t.Fatalf("default engines with keys for openai and gemini = %q", got)
	}
	if got := visibility.DefaultEngines(models, func(string) bool { return false }); len(got) != 4 {
		t.Fatalf("default engines when no provider has a key = %q, want all four", got)
	}
}
