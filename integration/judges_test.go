package integration_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// The prompts and the engine's answers of the judges' report. "Plausible"
// is an ordinary English word: as a sentence's first word it counts only
// on the mention judge's word.
const (
	promptPrivacy    = "What is the best privacy-friendly web analytics tool?"
	promptEnterprise = "Which analytics tool should a large enterprise choose?"
	answerPrivacy    = "Plausible answers marketing questions without cookies. Fathom is similar, and Matomo can be self-hosted. Umami is another option."
	answerEnterprise = "Google Analytics is the default. Plausible as it sounds, a free tool rarely suits an enterprise. Matomo is the safest choice for large teams. Avoid Fathom if you need raw exports."
)

// plausibleSite serves the brand's home page over https and returns its
// URL and a CA file that trusts it.
func plausibleSite(t *testing.T) (string, string) {
	return tlsSite(t, `<html><head><title>Plausible | Privacy-friendly web analytics</title>
<meta name="description" content="Simple, privacy-friendly web analytics without cookies.">
<script type="application/ld+json">{"@type":"Organization","name":"Plausible","address":"Tallinn, Estonia"}</script></head>
<body><h1>Privacy-friendly web analytics</h1></body></html>`)
}

// TestTheJudgesRunThroughThePluginProcess runs every judge of a
// visibility report end to end: the real binary, the real openai plugin
// subprocess, and a fake OpenAI that checks each judge's response_format
// schema (its required and enum lists as JSON arrays, which is what broke
// when typed Go slices could not cross the plugin boundary) and answers
// each question as a capable model would. The mention judge decides the
// two sentence-initial "Plausible"s (and a "Fathom"), so the brands'
// positions come out right; the sentiment judge rates every mentioned brand; the probe judge
// grades the entity probes (entityUnderstanding's knowledge half); and
// prefill suggests from the model's structured answer, not its templates;
// the discovery judge lists each answer's brands (the answer enclosed as
// untrusted data), so untracked ones are discovered.
// Any judge failure logs a warning, which the harness turns into a
// failure too.
func TestTheJudgesRunThroughThePluginProcess(t *testing.T) {
	t.Parallel()
	openai := newJudgeFake(t, "sk-judges", map[string]string{
		promptPrivacy:       answerPrivacy,
		promptEnterprise:    answerEnterprise,
		"What is Plausible": "Plausible is a privacy-friendly web analytics tool, a lightweight alternative to Google Analytics.",
		"What products or services does Plausible":  "Plausible sells website analytics dashboards.",
		"Who are the customers of Plausible":        "I don't know who its customers are.",
		"Where is Plausible":                        "Plausible is based in Estonia.",
		"Who are the main competitors of Plausible": "Its main competitors are Fathom and Matomo.",
	}, map[string]bool{
		"Plausible answers marketing questions without cookies.":          true,
		"Fathom is similar, and Matomo can be self-hosted.":               true, // "fathom" is an English word too
		"Plausible as it sounds, a free tool rarely suits an enterprise.": false,
	})
	siteURL, ca := plausibleSite(t)
	p := harness.Start(t, harness.Options{Env: map[string]string{
		"OPENAI_API_KEY": "sk-judges", "OPENAI_BASE_URL": openai.URL + "/v1",
		"SSL_CERT_FILE": ca, "HERALD_ALLOWED_PRIVATE_CIDRS": "127.0.0.0/8",
	}})

	status, body := call(t, "POST", p.URL+"/v1/ai/generate/seo-site-report", p.Key,
		fmt.Sprintf(`{"websiteurl":%q,"competitors":["Fathom (usefathom.com)","Matomo"],"prompts":[%q,%q]}`, siteURL, promptPrivacy, promptEnterprise))
	if status != 202 {
		t.Fatalf("queue: %d %v\n%s", status, body, p.Output())
	}
	if job := waitJob(t, p, body["jobId"].(string), 90*time.Second); job["state"] != "completed" {
		t.Fatalf("job: %v\n%s", job, p.Output())
	}
	status, body = call(t, "GET", p.URL+"/v1/ai/generate/seo-site-report?evidence=true", p.Key, "")
	if status != 200 {
		t.Fatalf("report: %d %v", status, body)
	}
	if probs := openai.Problems(); len(probs) > 0 {
		t.Fatalf("the fake refused requests:\n%s\n%s", strings.Join(probs, "\n"), p.Output())
	}
	for _, kind := range []string{"probe_verdict", "mention_verdict", "brand_sentiment", "named_brands"} {
		if openai.Asked(kind) == 0 {
			t.Errorf("the %s judge was never asked", kind)
		}
	}

	// Mentions and positions, per answer, with the judge's verdicts.
	positions := map[string]map[string]float64{}
	sentiment := map[string]map[string]any{}
	for _, a := range body["answers"].([]any) {
		a := a.(map[string]any)
		pos := map[string]float64{}
		for _, m := range a["mentions"].([]any) {
			m := m.(map[string]any)
			pos[m["brand"].(string)] = m["position"].(float64)
		}
		positions[a["prompt"].(string)] = pos
		if s, ok := a["sentiment"].(map[string]any); ok {
			sentiment[a["prompt"].(string)] = s
		}
	}
	want := map[string]map[string]float64{
		promptPrivacy:    {"plausible": 1, "fathom": 2, "matomo": 3},
		promptEnterprise: {"matomo": 1, "fathom": 2},
	}
	if fmt.Sprint(positions) != fmt.Sprint(want) {
		t.Errorf("positions = %v, want %v", positions, want)
	}
	geo := body["report"].(map[string]any)["geo"].(map[string]any)
	if j := geo["mentionJudging"].(map[string]any); j["asked"] != float64(9) || j["counted"] != float64(6) || j["unjudged"] != float64(0) {
		// three sentences to judge in each of the plan's 3 samples
		t.Errorf("mentionJudging = %v", j)
	}
	figures := map[string]map[string]any{}
	for _, b := range geo["brands"].([]any) {
		b := b.(map[string]any)
		figures[b["slug"].(string)] = b
	}
	self := figures["plausible"]
	if self["avgPosition"] != float64(1) || self["mentionRate"] != float64(50) || self["visibility"] != float64(50) {
		t.Errorf("self figures = %v", self)
	}
	// Sentiment from the judge: praise of the judged brand positive,
	// Matomo's mean of neutral (50) and positive (85), Fathom negative in
	// the answer that says to avoid it.
	if self["sentiment"] != float64(85) || figures["matomo"]["sentiment"] != 67.5 || figures["fathom"]["sentiment"] != 32.5 {
		t.Errorf("sentiment: plausible %v, matomo %v, fathom %v (answers %v)",
			self["sentiment"], figures["matomo"]["sentiment"], figures["fathom"]["sentiment"], sentiment)
	}

	// Discovery: the judge listed each answer's brands (6 answers: two
	// prompts, three samples); the untracked ones are counted, the tracked
	// ones never, and positionAmongAll ranks among all brands named
	// (Google Analytics comes first in the enterprise answer).
	if n := openai.Asked("named_brands"); n != 6 {
		t.Errorf("the discovery judge was asked %d times, want 6", n)
	}
	disc := map[string]map[string]any{}
	for _, d := range geo["discoveredBrands"].([]any) {
		d := d.(map[string]any)
		disc[d["name"].(string)] = d
	}
	if len(disc) != 2 || disc["Umami"]["answers"] != float64(3) || disc["Umami"]["mentionRate"] != float64(50) || disc["Umami"]["domain"] != "umami.is" ||
		disc["Google Analytics"]["answers"] != float64(3) || disc["Google Analytics"]["avgPosition"] != float64(1) {
		t.Errorf("discoveredBrands = %s", toJSON(geo["discoveredBrands"]))
	}
	if d := geo["discovery"].(map[string]any); d["judged"] != float64(6) || d["unjudged"] != float64(0) {
		t.Errorf("discovery = %v", d)
	}
	if figures["matomo"]["avgPosition"] != float64(2) || figures["matomo"]["positionAmongAll"] != 2.5 || self["positionAmongAll"] != float64(1) {
		t.Errorf("matomo avgPosition %v positionAmongAll %v, plausible positionAmongAll %v", figures["matomo"]["avgPosition"], figures["matomo"]["positionAmongAll"], self["positionAmongAll"])
	}

	// The probes, graded by the judge: correct, partly, unknown, correct,
	// correct = (1 + 0.5 + 0 + 1 + 1) / 5.
	eu := body["scores"].(map[string]any)["entityUnderstanding"].(map[string]any)
	if eu["knowledgeScore"] != float64(70) {
		t.Errorf("knowledgeScore = %v", eu["knowledgeScore"])
	}
	verdicts := map[string]string{}
	for _, pr := range geo["entityUnderstanding"].(map[string]any)["probes"].([]any) {
		pr := pr.(map[string]any)
		verdicts[pr["id"].(string)] = pr["verdict"].(string)
	}
	if fmt.Sprint(verdicts) != "map[audience:unknown competitors:correct location:correct offers:partly what:correct]" {
		t.Errorf("probe verdicts = %v", verdicts)
	}

	// Prefill: the suggestions come from the model's structured answer.
	status, body = call(t, "POST", p.URL+"/v1/ai/generate/seo-site-report/prefill", p.Key, fmt.Sprintf(`{"websiteurl":%q}`, siteURL))
	if status != 200 {
		t.Fatalf("prefill: %d %v", status, body)
	}
	sug := toJSON(body)
	if !strings.Contains(sug, "simpleanalytics.com") || !strings.Contains(sug, "Which web analytics tool respects visitors' privacy?") {
		t.Errorf("prefill did not use the model's suggestions: %s", sug)
	}
	if openai.Asked("prefill") != 1 {
		t.Errorf("prefill asked the model %d times", openai.Asked("prefill"))
	}
}
