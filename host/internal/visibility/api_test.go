package visibility_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// get walks a decoded JSON document along a dotted path.
func get(t testing.TB, doc any, path string) any {
	t.Helper()
	cur := doc
	for _, k := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[k]
			if !ok {
				t.Fatalf("%s: no %q in %v", path, k, c)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(c) {
				t.Fatalf("%s: bad index %q", path, k)
			}
			cur = c[i]
		default:
			t.Fatalf("%s: %q of a %T", path, k, cur)
		}
	}
	return cur
}

func TestAReportEndToEndScoresEveryNumberFromTheAnswers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		empty := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK)
		if empty.Raw != `{"message":"No report yet","isEmpty":true}` {
			t.Fatalf("empty report = %s", empty.Raw)
		}
		_, job := b.report(t, b.business, reportBody)
		if job["progress"] != float64(100) || get(t, job, "result.reportId") == "" {
			t.Fatalf("job = %v", job)
		}
		res := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report?evidence=true", b.business, "").Want(t, http.StatusOK)
		r := res.Body
		if r["isEmpty"] != false || r["id"] != get(t, job, "result.reportId") || r["state"] != "completed" {
			t.Fatalf("report head: %s", res.Raw)
		}
		// How sure each score is: 2 prompts answered, too few for an
		// interval (null, with a note); n counts the answers.
		for name, n := range map[string]float64{"aiVisibility": 4, "shareOfVoice": 4, "sourceVisibility": 4, "entityUnderstanding": 10} {
			sc := r["scores"].(map[string]any)[name].(map[string]any)
			if sc["n"] != n || sc["interval"] != nil || sc["intervalNote"] == "" || (name != "entityUnderstanding" && sc["prompts"] != float64(2)) {
				t.Errorf("%s: n %v prompts %v interval %v note %v, want n %v over 2 prompts, no interval and a note", name, sc["n"], sc["prompts"], sc["interval"], sc["intervalNote"], n)
			}
			for _, k := range []string{"n", "prompts", "interval", "intervalNote", "providerIntervals"} {
				delete(sc, k)
			}
		}
		scores, _ := json.Marshal(r["scores"])
		// Worked example (README): 4 answers (broken's 2 are missing).
		// visibility(Acme) = (1 + 0 + 1 + 0) / 4 = 50; mentions Acme 2,
		// Globex 3, Initech 1 → share of voice 2/6 = 33.3 (scoring version
		// 2: gpt's "see https://initech.io/widgets" cites Initech without
		// mentioning it; version 1 counted Initech 2 and 2/7 = 28.6). Knowledge: gpt
		// 1+1+0.5+1+1 = 4.5/5, claude 0+0+0.5+0+0 = 0.5/5 → 5/10 = 50;
		// clarity 6/8 = 75 (GPTBot blocked, no llms.txt); understanding
		// 0.6 × 50 + 0.4 × 75 = 60.
		// Tracking: change is null (not a tracker run or a
		// refresh); sourceVisibility: example.com is in 1 of the 4
		// answers' sources (claude's "Acme (https://example.com)") = 25.
		want := `{"aiVisibility":{"change":null,"interpretation":"moderate","providers":{"broken":null,"claude":50,"gpt":50},"score":50},` +
			`"entityUnderstanding":{"change":null,"contentClarityScore":75,"interpretation":"moderate","knowledgeScore":50,"providers":{"broken":null,"claude":10,"gpt":90},"score":60},` +
			`"shareOfVoice":{"change":null,"interpretation":"weak","score":33.3,"selfMentions":2,"totalMentions":6},` +
			`"sourceVisibility":{"change":null,"domain":"example.com","interpretation":"weak","score":25}}`
		if string(scores) != want {
			t.Fatalf("scores =\n%s\nwant\n%s", scores, want)
		}
		if got := fmt.Sprint(r["engines"]); got != "[gpt claude broken]" {
			t.Errorf("engines = %s", got)
		}
		if got := fmt.Sprint(r["input"]); got != "map[competitors:[Globex Corp https://initech.io] prompts:[best widget supplier widgets for factories] selfAliases:[] websiteurl:https://example.com/]" {
			t.Errorf("input = %s", got)
		}
		geo := get(t, r, "report.geo").(map[string]any)
		eu := geo["entityUnderstanding"].(map[string]any)
		probes := eu["probes"].([]any)
		if len(probes) != 15 {
			t.Fatalf("%d probes, want 5 × 3 engines", len(probes))
		}
		first := probes[0].(map[string]any)
		if first["id"] != "what" || first["engine"] != "gpt" || first["verdict"] != "correct" || first["points"] != float64(1) ||
			!strings.HasPrefix(first["question"].(string), "What is Acme (example.com)?") || first["answer"] != "Acme makes industrial widgets." ||
			!strings.HasPrefix(first["fact"].(string), "Industrial widgets for factories | Acme makes industrial widgets for factories.") {
			t.Errorf("first probe = %v", first)
		}
		broken := probes[2].(map[string]any)
		if broken["engine"] != "broken" || broken["verdict"] != "missing" || broken["points"] != nil {
			t.Errorf("a failed engine's probe must be missing: %v", broken)
		}
		checks, _ := json.Marshal(eu["clarityChecks"])
		for _, want := range []string{`"id":"ai_crawlers","passed":false`, `"detail":"robots.txt blocks GPTBot"`, `"id":"llms_txt","passed":false`, `"id":"organization_schema","passed":true`} {
			if !strings.Contains(strings.ReplaceAll(string(checks), `"title":"robots.txt does not block AI crawlers",`, ""), want) {
				t.Errorf("clarity checks lack %s: %s", want, checks)
			}
		}
		gaps, _ := json.Marshal(eu["gaps"])
		if !strings.Contains(string(gaps), `{"detail":"graded wrong","engines":["claude"],"fact":"Lyon, FR","kind":"contradiction","probe":"location"}`) {
			t.Errorf("gaps = %s", gaps)
		}
		if ents, _ := json.Marshal(eu["detectedEntities"]); string(ents) != `[{"engines":["gpt"],"kind":"category","name":"industrial widgets"}]` {
			t.Errorf("detected entities = %s", ents)
		}
		statuses, _ := json.Marshal(geo["engines"])
		// The provider's own text stays in the operator's log.
		if !strings.Contains(string(statuses), `{"answered":0,"engine":"broken","error":"the engine failed","missing":2,"noAnswer":0,"planned":2}`) || strings.Contains(string(statuses), "upstream 503") {
			t.Errorf("engine statuses = %s", statuses)
		}
		recs, _ := json.Marshal(r["recommendations"])
		// Version 2: initech.io is only in a URL of gpt's answer: cited, not
		// mentioned (version 1 listed it here).
		for _, want := range []string{`"evidence":["\"widgets for factories\" on gpt mentions Globex Corp but not Acme","\"widgets for factories\" on claude mentions Globex Corp but not Acme"]`,
			`"id":"clarity-ai_crawlers"`, `"id":"clarity-llms_txt"`, `"id":"probe-location"`, `"id":"competitor-citations"`} {
			if !strings.Contains(string(recs), want) {
				t.Errorf("recommendations lack %s: %s", want, recs)
			}
		}
		answers := r["answers"].([]any)
		if len(answers) != 6 {
			t.Fatalf("%d answers, want 2 prompts × 3 engines", len(answers))
		}
		a0, _ := json.Marshal(answers[0])
		// The evidence also lists every tracked brand (brands).
		if want := `{"brands":[{"brand":"acme","cited":false,"mentioned":true,"name":"Acme","position":1,"self":true,"weight":1},{"brand":"globex_corp","cited":false,"mentioned":true,"name":"Globex Corp","position":2,"self":false,"weight":0.75},{"brand":"initech_io","cited":false,"mentioned":true,"name":"initech.io","position":3,"self":false,"weight":0.5}],"citations":[],"engine":"gpt","mentions":[{"brand":"acme","cited":false,"name":"Acme","position":1,"self":true,"weight":1},{"brand":"globex_corp","cited":false,"name":"Globex Corp","position":2,"self":false,"weight":0.75},{"brand":"initech_io","cited":false,"name":"initech.io","position":3,"self":false,"weight":0.5}],"model":"gpt-v1","prompt":"best widget supplier","text":"Top picks: Acme, Globex Corp and Initech."}`; string(a0) != want {
			t.Errorf("answer 0 =\n%s\nwant\n%s", a0, want)
		}
		if a := answers[4].(map[string]any); a["engine"] != "broken" || a["error"] != "the engine failed" {
			t.Errorf("answer 4 = %v", a)
		}
		// gpt's second answer cites initech.io (a URL) without mentioning it.
		if a1, _ := json.Marshal(answers[1].(map[string]any)["brands"]); !strings.Contains(string(a1), `{"brand":"initech_io","cited":true,"mentioned":false,"name":"initech.io","position":0,"self":false,"weight":0}`) {
			t.Errorf("answer 1 brands = %s", a1)
		}
		if r["scoringVersion"] != float64(3) {
			t.Errorf("scoringVersion = %v", r["scoringVersion"])
		}
		if meta, _ := json.Marshal(r["refreshMeta"]); string(meta) != `{"count":0,"limitPer24h":3,"usedLast24h":0}` {
			t.Errorf("refreshMeta = %s", meta)
		}
		if _, ok := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Body["answers"]; ok {
			t.Error("answers are shown only with evidence=true")
		}

		hist := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report/history", b.business, "").Want(t, http.StatusOK)
		points := hist.Body["points"].([]any)
		if len(points) != 1 {
			t.Fatalf("history = %s", hist.Raw)
		}
		p := points[0].(map[string]any)
		// Version 2 (see above): Initech 0.5 / 4 = 12.5 and 1/6 of the
		// mentions; Globex 3/6 (version 1: 31.3, 28.6 and 42.9).
		for k, want := range map[string]float64{"overall": 50, "self": 50, "shareOfVoice": 33.3, "understanding": 60, "scoringVersion": 3,
			"comp_globex_corp": 68.8, "sov_comp_globex_corp": 50, "comp_initech_io": 12.5, "sov_comp_initech_io": 16.7} {
			if p[k] != want {
				t.Errorf("history %s = %v, want %v", k, p[k], want)
			}
		}
		if p["timestamp"] != p["time"] || r["createdAt"] != p["time"] {
			t.Errorf("history times %v %v, report createdAt %v", p["timestamp"], p["time"], r["createdAt"])
		}
		// Credits: 2 prompts × 3 engines reserved, the 2 missing given back.
		used, err := creditstore.New(s).CreditsUsed(context.Background(), b.businessID, b.clock.now().UTC().Format("2006-01"))
		if err != nil || used != 4 {
			t.Errorf("credits used = %d (%v), want 4", used, err)
		}
	})
}

func TestPrefillSuggestsFromTheSiteWithinThePlanLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt"}})
	res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report/prefill", b.free,
		`{"websiteurl":"https://example.com","competitors":["Globex Corp"],"prompts":["best widget supplier"]}`).Want(t, http.StatusOK)
	if res.Body["promptLimit"] != float64(3) {
		t.Fatalf("promptLimit = %v", res.Body["promptLimit"])
	}
	prefill := get(t, res.Body, "prefill.prompts").([]any)
	if len(prefill) != 3 || prefill[0] != "best widget supplier" {
		t.Errorf("prefill prompts = %v (the input first, capped at 3)", prefill)
	}
	// Suggested competitors come with their domains; a domain
	// that is not one is dropped, the name kept.
	if c := fmt.Sprint(get(t, res.Body, "prefill.competitors")); c != "[Globex Corp Initech (initech.io)]" {
		t.Errorf("prefill competitors = %v", c)
	}
	if s := fmt.Sprint(get(t, res.Body, "suggestions.prompts")); s != "[industrial widget suppliers in Europe widgets for factories]" {
		t.Errorf("no suggestions: %s", res.Raw)
	}
	if b.engines.total() != 0 {
		t.Error("prefill asked an engine")
	}
	for body, want := range map[string]string{
		`{"websiteurl":"http://example.com"}`:    "websiteurl: http://example.com refused: only https:// URLs are fetched",
		`{}`:                                     "websiteurl is required",
		`{"websiteurl":"https://10.255.255.1/"}`: "websiteurl: 10.255.255.1 refused: it resolves to a private or local address",
		`{"websiteurl":"https://example.com","prompts":["a","b","c","d"]}`: "prompts: 4 prompts given; the free plan allows 3 per report",
	} {
		got := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report/prefill", b.free, body).Want(t, http.StatusBadRequest)
		if got.Body["message"] != want {
			t.Errorf("%s: message %q, want %q", body, got.Body["message"], want)
		}
	}
}

func TestPrefillFallsBackToTemplatesOverTheSiteFacts(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"broken"}, judge: "broken"})
	res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report/prefill", b.business,
		`{"websiteurl":"https://example.com","competitors":["Globex Corp"]}`).Want(t, http.StatusOK)
	want := "[What are the best options for industrial widgets? Best industrial widgets in Lyon, FR Acme alternatives Is Acme any good? " +
		"What are the best alternatives to WidgetPro? Acme vs Globex Corp]"
	if got := fmt.Sprint(get(t, res.Body, "suggestions.prompts")); got != want {
		t.Errorf("template prompts =\n%s\nwant\n%s", got, want)
	}
	if got := fmt.Sprint(get(t, res.Body, "prefill.competitors")); got != "[Globex Corp]" {
		t.Errorf("prefill competitors = %s", got)
	}
}

func TestTheConnectFaceServesTheSameReports(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt"}})
	client := apiv1connect.NewVisibilityServiceClient(http.DefaultClient, b.srv.URL)
	call := func(key string) *connect.Request[apiv1.GetReportRequest] {
		req := connect.NewRequest(&apiv1.GetReportRequest{})
		if key != "" {
			req.Header().Set("api-key", key)
		}
		return req
	}
	if _, err := client.GetReport(context.Background(), call("")); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("no key: %v", err)
	}
	res, err := client.GetReport(context.Background(), call(b.business))
	if err != nil || !res.Msg.IsEmpty {
		t.Fatalf("empty report: %v %v", res, err)
	}
	create := connect.NewRequest(&apiv1.CreateReportRequest{Websiteurl: "http://example.com", Prompts: []string{"p"}})
	create.Header().Set("api-key", b.business)
	if _, err := client.CreateReport(context.Background(), create); connect.CodeOf(err) != connect.CodeInvalidArgument ||
		!strings.Contains(err.Error(), "only https://") {
		t.Fatalf("http websiteurl: %v", err)
	}
	create.Msg.Websiteurl = "https://example.com"
	queued, err := client.CreateReport(context.Background(), create)
	if err != nil {
		t.Fatal(err)
	}
	b.waitJob(t, b.business, queued.Msg.JobId)
	res, err = client.GetReport(context.Background(), call(b.business))
	if err != nil || res.Msg.IsEmpty || res.Msg.GetScores().GetAiVisibility().GetInterpretation() != "absent" ||
		res.Msg.GetReport().GetGeo().GetEntityUnderstanding().GetKnowledgeScore() != 87.5 {
		t.Fatalf("report over Connect: %v %v", res.Msg, err)
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

// Brand and competitor names follow the plan's name length with the one
// message of the name rule: a competitor's text, its name and aliases,
// the brand's own aliases, on reports, prefill and trackers; the model's
// suggested names longer than it are dropped.
func TestReportNamesFollowThePlansNameLength(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt"}, limits: config.Limits{MaxNameLength: 10}})
	const site = `{"websiteurl":"https://example.com","prompts":["p"],`
	for body, msg := range map[string]string{
		site + `"competitors":["eleven char"]}`:                              `competitors[0] is longer than 10 characters`,
		site + `"competitors":[{"name":"eleven char"}]}`:                     `competitors[0].name is longer than 10 characters`,
		site + `"competitors":[{"name":"x","aliases":["eleven char"]}]}`:     `competitors[0].aliases[0] is longer than 10 characters`,
		site + `"competitors":["ten chars!"],"selfAliases":["eleven char"]}`: `selfAliases[0] is longer than 10 characters`,
	} {
		for _, route := range []string{"/v1/ai/generate/seo-site-report", "/v1/ai/generate/seo-site-report/prefill"} {
			got := b.srv.Do(t, "POST", route, b.business, body).Want(t, http.StatusBadRequest)
			if got.Body["message"] != msg {
				t.Errorf("%s %s: message %q, want %q", route, body, got.Body["message"], msg)
			}
		}
	}
	tracked := `{"websiteurl":"https://example.com","competitors":[{"name":"eleven char"}],"prompts":["p"],"cadence":"weekly"}`
	got := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.business, tracked).Want(t, http.StatusBadRequest)
	if got.Body["message"] != "competitors[0].name is longer than 10 characters" {
		t.Errorf("tracker: %s", got.Raw)
	}
	ok := site + `"competitors":["ten chars!",{"name":"ten chars!","aliases":["ten chars!"]}],"selfAliases":["ten chars!"]}`
	b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report", b.business, ok).Want(t, http.StatusAccepted)
	// The model suggests Initech (initech.io) and "Globex Corp", eleven
	// characters without a domain: dropped.
	res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report/prefill", b.business, `{"websiteurl":"https://example.com"}`).Want(t, http.StatusOK)
	if s := fmt.Sprint(get(t, res.Body, "suggestions.competitors")); s != "[Initech (initech.io)]" {
		t.Errorf("suggested competitors over the name length: %s", s)
	}
}
