package visibility_test

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

func prompts(n int) string {
	var ps []string
	for i := range n {
		ps = append(ps, fmt.Sprintf("%q", fmt.Sprintf("prompt %d", i)))
	}
	return "[" + strings.Join(ps, ",") + "]"
}

func body(prompts string, extra string) string {
	return `{"websiteurl":"https://example.com","competitors":["Globex Corp"],"prompts":` + prompts + extra + `}`
}

func TestReportStatusesFollowSPECsTableInOrder(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt", "claude"}})
	const path = "/v1/ai/generate/seo-site-report"
	refuse := func(key, body string, status int, msg string) apitest.Response {
		t.Helper()
		res := b.srv.Do(t, "POST", path, key, body).Want(t, status)
		if got, _ := res.Body["message"].(string); !strings.HasPrefix(got, msg) {
			t.Fatalf("message %q, want it to start with %q", got, msg)
		}
		return res
	}
	// 401 before anything else.
	b.srv.Do(t, "POST", path, "", reportBody).Want(t, http.StatusUnauthorized)
	b.srv.Do(t, "GET", path, "", "").Want(t, http.StatusUnauthorized)

	// 400s.
	refuse(b.business, `{"prompts":["p"]}`, 400, "websiteurl is required")
	refuse(b.business, `{"websiteurl":"http://example.com","prompts":["p"]}`, 400, "websiteurl: http://example.com refused: only https:// URLs are fetched")
	refuse(b.business, `{"websiteurl":"https://","prompts":["p"]}`, 400, "websiteurl: ")
	refuse(b.business, `{"refresh":true}`, 400, "refresh: there is no prior report to refresh")
	refuse(b.free, body(prompts(4), ""), 400, "prompts: 4 prompts given; the free plan allows 3 per report")
	refuse(b.business, `{"websiteurl":"https://example.com","prompts":[]}`, 400, "prompts: at least one buyer prompt is required")

	// Free plan: 2 audits in all (a one-off counts), refresh blocked.
	b.report(t, b.free, body(`["best widget supplier"]`, ""))
	refuse(b.free, `{"refresh":true}`, 403, "refresh is not available on the free plan")
	b.report(t, b.free, body(`["best widget supplier"]`, `,"oneOff":true`))
	refuse(b.free, body(`["best widget supplier"]`, ""), 403, "free audit already used")
	// A 400 still comes before the 403.
	refuse(b.free, body(prompts(4), ""), 400, "prompts: 4 prompts given")

	// Pro: 40 credits; 25 prompts × 2 engines = 50 is refused before
	// anything is queued or reserved.
	refuse(b.pro, body(prompts(25), ""), 403, "AI credit limit reached: this report costs 50 credits (prompts × engines × samples) and 40 of the pro plan's 40 monthly credits remain")
	month := b.clock.now().UTC().Format("2006-01")
	if used, _ := creditstore.New(b.store).CreditsUsed(context.Background(), b.proID, month); used != 0 {
		t.Fatalf("a refused report reserved %d credits", used)
	}
	if n, _ := b.store.CountVisibilityReports(context.Background(), b.proID); n != 0 {
		t.Fatalf("a refused report was stored")
	}
	b.report(t, b.pro, body(`["best widget supplier","widgets for factories"]`, ""))

	// Pro: 2 refreshes in any rolling 24 hours, then 429 with Retry-After
	// until the oldest leaves the window. A refresh reuses the inputs.
	b.clock.advance(time.Hour)
	b.report(t, b.pro, `{"refresh":true}`)
	b.clock.advance(time.Hour)
	b.report(t, b.pro, `{"refresh":true,"prompts":["widgets for factories"]}`)
	b.clock.advance(time.Hour)
	res := refuse(b.pro, `{"refresh":true}`, 429, "refresh limit reached: the pro plan allows 2 refreshes in 24 hours; retry in 79200 seconds")
	if res.Header.Get("Retry-After") != "79200" || res.Body["retryAfter"] != "79200" {
		t.Fatalf("Retry-After %q, body %s", res.Header.Get("Retry-After"), res.Raw)
	}
	// A 403 (credits) comes before the 429: 20 prompts × 2 = 40 > 28 left.
	refuse(b.pro, `{"refresh":true,"prompts":`+prompts(20)+`}`, 403, "AI credit limit reached")
	b.clock.advance(22 * time.Hour)
	b.report(t, b.pro, `{"refresh":true}`)
	latest := b.srv.Do(t, "GET", path, b.pro, "").Want(t, http.StatusOK).Body
	if fmt.Sprint(get(t, latest, "input.prompts")) != "[widgets for factories]" || fmt.Sprint(get(t, latest, "input.competitors")) != "[Globex Corp]" {
		t.Errorf("the refresh did not reuse the latest inputs: %v", latest["input"])
	}
	if fmt.Sprint(latest["refreshMeta"]) != "map[count:3 limitPer24h:2 usedLast24h:2]" {
		t.Errorf("refreshMeta = %v", latest["refreshMeta"])
	}
	oldest := b.srv.Do(t, "GET", path+"?sort=asc", b.pro, "").Want(t, http.StatusOK).Body
	if fmt.Sprint(get(t, oldest, "input.prompts")) != "[best widget supplier widgets for factories]" {
		t.Errorf("sort=asc gave %v", oldest["input"])
	}
	b.srv.Do(t, "GET", path+"?sort=sideways", b.pro, "").Want(t, http.StatusBadRequest)
	b.srv.Do(t, "GET", path+"/history?days=0", b.pro, "").Want(t, http.StatusOK)
	b.srv.Do(t, "GET", path+"/history?days=366", b.pro, "").Want(t, http.StatusBadRequest)
	// The last day holds the refreshes at +1h (exactly 24 hours ago), +2h
	// and +25h; the first report at +0h is older.
	if pts := b.srv.Do(t, "GET", path+"/history?days=1", b.pro, "").Body["points"].([]any); len(pts) != 3 {
		t.Errorf("history over 1 day has %d points, want 3", len(pts))
	}
	if pts := b.srv.Do(t, "GET", path+"/history", b.pro, "").Body["points"].([]any); len(pts) != 4 {
		t.Errorf("history has %d points, want 4", len(pts))
	}
}

func TestOneOffReportsStayOutOfHistoryAndInTheirWorkspace(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt"}})
	const path = "/v1/ai/generate/seo-site-report"
	_, job := b.report(t, b.business, body(`["best widget supplier"]`, `,"oneOff":true`))
	id := get(t, job, "result.reportId").(string)
	if got := b.srv.Do(t, "GET", path, b.business, "").Want(t, http.StatusOK).Raw; got != `{"message":"No report yet","isEmpty":true}` {
		t.Errorf("a one-off became the latest report: %s", got)
	}
	if pts := b.srv.Do(t, "GET", path+"/history", b.business, "").Body["points"].([]any); len(pts) != 0 {
		t.Errorf("a one-off is in the history: %v", pts)
	}
	list := b.srv.Do(t, "GET", path+"/one-off", b.business, "").Want(t, http.StatusOK)
	reports := list.Body["reports"].([]any)
	if len(reports) != 1 {
		t.Fatalf("one-off list = %s", list.Raw)
	}
	item := reports[0].(map[string]any)
	if item["id"] != id || item["websiteurl"] != "https://example.com/" || item["state"] != "completed" || get(t, item, "scores.aiVisibility") != float64(100) {
		t.Errorf("one-off item = %v", item)
	}
	one := b.srv.Do(t, "GET", path+"/one-off/"+id+"?evidence=true", b.business, "").Want(t, http.StatusOK).Body
	if one["id"] != id || get(t, one, "scores.aiVisibility.score") != float64(100) || len(one["answers"].([]any)) != 1 {
		t.Errorf("one-off report = %v", one)
	}
	b.srv.Do(t, "GET", path+"/one-off/"+id, b.other, "").Want(t, http.StatusNotFound)
	b.srv.Do(t, "GET", path+"/one-off/nope", b.business, "").Want(t, http.StatusNotFound)
	if l := b.srv.Do(t, "GET", path+"/one-off", b.other, "").Body["reports"].([]any); len(l) != 0 {
		t.Errorf("another workspace lists %v", l)
	}
	b.srv.Do(t, "GET", path+"/one-off?skip=-1", b.business, "").Want(t, http.StatusBadRequest)
	if l := b.srv.Do(t, "GET", path+"/one-off?skip=20", b.business, "").Body["reports"].([]any); len(l) != 0 {
		t.Errorf("skip=20 lists %v", l)
	}
	// A history report is not a one-off.
	_, job = b.report(t, b.business, body(`["best widget supplier"]`, ""))
	b.srv.Do(t, "GET", path+"/one-off/"+get(t, job, "result.reportId").(string), b.business, "").Want(t, http.StatusNotFound)
}

func TestIdenticalQuestionsWithinTenMinutesReuseAnswers(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt"}})
	req := body(`["best widget supplier"]`, "")
	b.report(t, b.business, req)
	b.clock.advance(9 * time.Minute)
	b.report(t, b.business, req)
	if n := b.engines.count("gpt", "best widget supplier"); n != 1 {
		t.Fatalf("asked %d times within the cache window, want 1", n)
	}
	latest := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report?evidence=true", b.business, "").Body
	if a := get(t, latest, "answers.0").(map[string]any); a["cached"] != true || a["text"] != "Top picks: Acme, Globex Corp and Initech." {
		t.Errorf("cached answer = %v", a)
	}
	// The cached answer cost nothing: 1 credit for the first report only.
	if used, _ := creditstore.New(b.store).CreditsUsed(context.Background(), b.businessID, b.clock.now().UTC().Format("2006-01")); used != 1 {
		t.Errorf("credits used = %d, want 1", used)
	}
	// The window counts from when the engine was asked, not from reuse.
	b.clock.advance(2 * time.Minute)
	b.report(t, b.business, req)
	if n := b.engines.count("gpt", "best widget supplier"); n != 2 {
		t.Fatalf("asked %d times after the window, want 2", n)
	}
}

func TestAReportResumesAfterAShutdownWithoutAskingAgain(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	b := setup(t, s, options{engines: []string{"gpt", "claude"}, concurrency: 16})
	// claude is held at the gate; gpt answers its 2 prompts and 5 probes.
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(open)
	b.engines.gate, b.engines.gateOnly = gate, "claude"
	res := b.srv.Do(t, "POST", "/v1/ai/generate/seo-site-report", b.business, reportBody).Want(t, http.StatusAccepted)
	jobID := res.Body["jobId"].(string)
	for range 7 {
		<-b.engines.asked
	}
	// Progress is answers done / planned: 7 of 14 (gpt's probes are judged).
	job := b.waitProgress(t, b.business, jobID, 50)
	if fmt.Sprint(job["result"]) != fmt.Sprintf("map[answersDone:7 answersPlanned:14 reportId:%s]", get(t, job, "result.reportId")) {
		t.Errorf("partial result = %v", job["result"])
	}
	if job["progress"] != float64(50) {
		t.Errorf("progress = %v, want 50 (7 of 14)", job["progress"])
	}
	// Shut the host down mid-run: the job is handed back.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	b.queue.Stop(ctx)
	cancel()
	open()

	// A new host resumes it.
	b2 := b.restart(t)
	b2.waitJob(t, b.business, jobID)
	for _, p := range []string{"best widget supplier", "widgets for factories"} {
		if n := b.engines.count("gpt", p); n != 1 {
			t.Errorf("gpt was asked %q %d times, want once", p, n)
		}
		if n := b.engines.count("claude", p); n != 1 {
			t.Errorf("claude was asked %q %d times, want once", p, n)
		}
	}
	r := b2.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK).Body
	if get(t, r, "scores.aiVisibility.score") != float64(50) {
		t.Errorf("resumed report scores = %v", r["scores"])
	}
	if used, _ := creditstore.New(s).CreditsUsed(context.Background(), b.businessID, b.clock.now().UTC().Format("2006-01")); used != 4 {
		t.Errorf("credits used = %d, want 4 (each answer paid once)", used)
	}
	// The site and brands stored by the first attempt are read, not crawled again.
	if n := b.testSite.homes.Load(); n != 1 {
		t.Errorf("the home page was fetched %d times, want once", n)
	}
}

func TestClarityChecksOnLocalSites(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, robots string
		llms         bool
		failed       string
		clarity      float64
	}{
		{"a site that blocks every AI crawler and has no llms.txt", "User-agent: *\nDisallow: /\n", false, "ai_crawlers llms_txt", 75},
		{"a site that blocks only Google-Extended", "User-agent: Google-Extended\nDisallow: /\n", true, "ai_crawlers", 87.5},
		{"a site without robots.txt and with llms.txt", "", true, "", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := newTestSite(t, tc.robots, tc.llms).fetcher().Crawl(context.Background(), "https://example.com")
			if err != nil {
				t.Fatal(err)
			}
			checks := scoring.ClarityChecks(st.Facts, true, "")
			var failed []string
			for _, c := range checks {
				if !c.Passed {
					failed = append(failed, c.ID)
				}
			}
			if strings.Join(failed, " ") != tc.failed {
				t.Errorf("failed checks = %q, want %q", failed, tc.failed)
			}
			if u := scoring.ScoreUnderstanding(nil, nil, checks); u.ContentClarityScore != tc.clarity {
				t.Errorf("clarity = %v, want %v", u.ContentClarityScore, tc.clarity)
			}
		})
	}
	down := scoring.ClarityChecks(site.Facts{}, false, "example.com is unreachable")
	for _, c := range down {
		if c.Passed || !strings.Contains(c.Detail, "example.com is unreachable") {
			t.Errorf("an unreachable site passed %+v", c)
		}
	}
}

func TestASiteThatCannotBeFetchedStillGetsAReport(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt"}})
	b.report(t, b.business, `{"websiteurl":"https://10.255.255.1/","prompts":["best widget supplier"]}`)
	r := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK).Body
	if get(t, r, "scores.entityUnderstanding.contentClarityScore") != float64(0) {
		t.Errorf("clarity = %v", get(t, r, "scores.entityUnderstanding.contentClarityScore"))
	}
	check := get(t, r, "report.geo.entityUnderstanding.clarityChecks.0").(map[string]any)
	if check["passed"] != false || check["detail"] != "not checked: the site could not be fetched (10.255.255.1 refused: it resolves to a private or local address)" {
		t.Errorf("check = %v", check)
	}
	if q := get(t, r, "report.geo.entityUnderstanding.probes.0.question"); q != "What is 10.255.255.1 (10.255.255.1)? Answer in two or three sentences." {
		t.Errorf("probe question = %v", q)
	}
}
