package integration_test

import (
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// engineStatuses returns a report's per-engine status by engine.
func engineStatuses(t *testing.T, report map[string]any) map[string]map[string]any {
	t.Helper()
	detail, _ := report["report"].(map[string]any)
	geo, _ := detail["geo"].(map[string]any)
	list, _ := geo["engines"].([]any)
	out := map[string]map[string]any{}
	for _, e := range list {
		m := e.(map[string]any)
		out[m["engine"].(string)] = m
	}
	return out
}

// TestEightEnginesReportAndTracker runs a report and a tracker across the
// four first engines and four added ones (Grok, DeepSeek, Mistral, Google
// AI Overviews), each through its real plugin subprocess against a fake of
// its provider's documented API: the engines' citations reach the answers,
// a search without an AI Overview is recorded as no answer, DeepSeek's 429
// is retried after its Retry-After, and Mistral, down, is the one engine
// marked failed while the seven others count.
func TestEightEnginesReportAndTracker(t *testing.T) {
	t.Parallel()
	const (
		small      = "crm for small teams"
		factories  = "crm for factories"
		cheap      = "cheap crm"
		trackerOne = "crm for agencies"
	)
	f := startEightFakes(t, 0, cheap, factories, true)
	p, site := eightHost(t, f, "", []harness.Allow{
		{Match: `engine failed: .*engine=mistral-medium-latest`, Why: "the Mistral fake is down for the whole run"},
		{Match: `model deployment cooling down: .*provider=(mistral|deepseek)`, Why: "Mistral's outage and DeepSeek's 429 put their deployments in cooldown"},
		{Match: `provider call failed: .*provider=(mistral|deepseek)`, Why: "the outage and the rate limit under test"},
	})

	status, body := call(t, "POST", p.URL+"/v1/ai/generate/seo-site-report", p.Key,
		`{"websiteurl":"`+site+`","competitors":["Globex"],"prompts":["`+small+`","`+factories+`","`+cheap+`"]}`)
	if status != 202 {
		t.Fatalf("queue: %d %v\n%s", status, body, p.Output())
	}
	job := waitJob(t, p, body["jobId"].(string), 90*time.Second)
	if job["state"] != "completed" {
		t.Fatalf("job: %v\n%s", job, p.Output())
	}
	status, report := call(t, "GET", p.URL+"/v1/ai/generate/seo-site-report?evidence=true", p.Key, "")
	if status != 200 {
		t.Fatalf("report: %d %v", status, report)
	}
	checkEightEngineRun(t, report, []string{small, factories, cheap}, factories)

	// DeepSeek's first answer to the rate-limited prompt came after the
	// 429's Retry-After (2 s; the router's own backoff is 1 s).
	if times := f.deepseek.Times(cheap); len(times) != 2 || times[1].Sub(times[0]) < 2*time.Second {
		t.Errorf("deepseek asked %q at %v, want twice, 2 s or more apart", cheap, times)
	}
	for name, e := range f.all() {
		if pr := e.Problems(); len(pr) > 0 {
			t.Errorf("%s: requests not as documented: %v", name, pr)
		}
	}

	// A tracker over the same eight engines: its first run is a report
	// with the same outcomes.
	status, body = api(t, p.URL, p.Key, "POST", "/v1/visibility/trackers", map[string]any{
		"websiteurl": site, "competitors": []string{"Globex"}, "prompts": []string{trackerOne, factories},
		"engines": eightEngines, "cadence": "daily", "active": true,
	})
	if status != http.StatusCreated || body["jobId"] == nil {
		t.Fatalf("create tracker: %d %v\n%s", status, body, p.Output())
	}
	tracker := body["tracker"].(map[string]any)["id"].(string)
	job = waitJob(t, p, body["jobId"].(string), 90*time.Second)
	if job["state"] != "completed" {
		t.Fatalf("tracker run: %v\n%s", job, p.Output())
	}
	runID := job["result"].(map[string]any)["reportId"].(string)
	// The run is the workspace's latest report.
	status, run := call(t, "GET", p.URL+"/v1/ai/generate/seo-site-report?evidence=true", p.Key, "")
	if status != 200 || run["id"] != runID || run["trackerId"] != tracker {
		t.Fatalf("tracker run report: %d %v", status, run)
	}
	checkEightEngineRun(t, run, []string{trackerOne, factories}, factories)
	status, trend := call(t, "GET", p.URL+"/v1/visibility/trackers/"+tracker+"/trend", p.Key, "")
	if status != 200 {
		t.Fatalf("trend: %d %v", status, trend)
	}
	if engines, _ := trend["engines"].([]any); len(engines) != len(eightEngines) {
		t.Errorf("trend engines = %v, want the eight", trend["engines"])
	}
	// The trend's drill-down says which answers were none.
	noAnswer := map[string]bool{}
	for _, pr := range trend["prompts"].([]any) {
		m := pr.(map[string]any)
		for engine, answers := range m["engines"].(map[string]any) {
			for _, a := range answers.([]any) {
				if a.(map[string]any)["noAnswer"] == true {
					noAnswer[engine+"/"+m["prompt"].(string)] = true
				}
			}
		}
	}
	if len(noAnswer) != 1 || !noAnswer["google-ai-overview/"+factories] {
		t.Errorf("trend no-answers = %v, want google-ai-overview/%s", noAnswer, factories)
	}
}

// checkEightEngineRun checks one run's report: per engine, what it
// answered; Mistral failed and says so; the search without an overview is
// no answer (not a zero); the others' visibility is 100.
func checkEightEngineRun(t *testing.T, report map[string]any, prompts []string, noOverview string) {
	t.Helper()
	st := engineStatuses(t, report)
	if len(st) != len(eightEngines) {
		t.Fatalf("engines = %v, want the eight", st)
	}
	n := float64(len(prompts))
	for _, e := range eightEngines {
		s := st[e]
		want := map[string]float64{"planned": n, "answered": n, "missing": 0, "noAnswer": 0}
		switch e {
		case "mistral-medium-latest":
			want["answered"], want["missing"] = 0, n
		case "google-ai-overview":
			want["answered"], want["noAnswer"] = n-1, 1
		}
		for k, v := range want {
			if s[k] != v {
				t.Errorf("%s: %s = %v, want %v (%v)", e, k, s[k], v, s)
			}
		}
		if failed := s["error"] != nil; failed != (e == "mistral-medium-latest") {
			t.Errorf("%s: error %v", e, s["error"])
		}
	}
	providers := report["scores"].(map[string]any)["aiVisibility"].(map[string]any)["providers"].(map[string]any)
	for _, e := range eightEngines {
		want := any(float64(100))
		if e == "mistral-medium-latest" {
			want = nil
		}
		if got, ok := providers[e]; !ok || got != want {
			t.Errorf("providers[%s] = %v, want %v", e, got, want)
		}
	}
	cited := map[string]bool{}
	var noAnswers []string
	for _, a := range report["answers"].([]any) {
		m := a.(map[string]any)
		engine, _ := m["engine"].(string)
		if m["noAnswer"] == true {
			noAnswers = append(noAnswers, engine+"/"+m["prompt"].(string))
			if m["text"] != "" {
				t.Errorf("a no-answer has text %q", m["text"])
			}
		}
		for _, c := range m["citations"].([]any) {
			if strings.Contains(c.(map[string]any)["url"].(string), ".cite.example/") {
				cited[engine] = true
			}
		}
	}
	if len(noAnswers) != 1 || noAnswers[0] != "google-ai-overview/"+noOverview {
		t.Errorf("no-answers = %v, want google-ai-overview/%s", noAnswers, noOverview)
	}
	for _, e := range []string{"sonar", "grok-4", "google-ai-overview"} {
		if !cited[e] {
			t.Errorf("%s's citations are not in its answers", e)
		}
	}
}

// TestEightEnginesAtScale is the benchmark of docs/BENCHMARKS.md: 25
// prompts on the eight engines, every fake answering in 500 ms; the run
// must end within 20 s with no engine's fake seeing more requests at once
// than its plugin's cap. Set HERALD_ENGINES_BENCH=1 to run it.
func TestEightEnginesAtScale(t *testing.T) {
	if os.Getenv("HERALD_ENGINES_BENCH") == "" {
		t.Skip("set HERALD_ENGINES_BENCH=1 to run the 25-prompt × 8-engine benchmark")
	}
	f := startEightFakes(t, 500*time.Millisecond, "", "", false)
	p, site := eightHost(t, f, "", nil)
	prompts := make([]string, 25)
	for i := range prompts {
		prompts[i] = "crm for team " + string(rune('a'+i))
	}
	start := time.Now()
	status, body := call(t, "POST", p.URL+"/v1/ai/generate/seo-site-report", p.Key,
		`{"websiteurl":"`+site+`","competitors":["Globex"],"prompts":["`+strings.Join(prompts, `","`)+`"]}`)
	if status != 202 {
		t.Fatalf("queue: %d %v", status, body)
	}
	job := waitJob(t, p, body["jobId"].(string), 120*time.Second)
	took := time.Since(start)
	if job["state"] != "completed" {
		t.Fatalf("job: %v\n%s", job, p.Output())
	}
	caps := map[string]int32{"gpt-4o": 16, "claude-sonnet-4-5": 8, "gemini-2.5-flash": 8, "sonar": 8, "grok-4": 8, "deepseek-chat": 8, "mistral-medium-latest": 4, "google-ai-overview": 4}
	names := make([]string, 0, len(caps))
	for e := range caps {
		names = append(names, e)
	}
	sort.Strings(names)
	for _, e := range names {
		api := f.all()[e]
		t.Logf("%-22s requests %3d  peak in flight %2d  cap %2d", e, api.requests.Load(), api.peak.Load(), caps[e])
		if api.peak.Load() > caps[e] {
			t.Errorf("%s: %d requests at once, over its cap of %d", e, api.peak.Load(), caps[e])
		}
	}
	t.Logf("25 prompts × 8 engines: %s", took.Round(10*time.Millisecond))
	if took > 20*time.Second {
		t.Errorf("the run took %s, want under 20 s", took)
	}
}
