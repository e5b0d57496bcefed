package traffic_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

func TestPageJoinRules(t *testing.T) {
	t.Parallel()
	hits := []store.CrawlerPageRow{
		{Path: "/cited-crawled", Operator: "OpenAI", Verified: 3},
		{Path: "/crawled-only", Operator: "OpenAI", Verified: 2},
		{Path: "/cited-claimed", Operator: "Perplexity", Claimed: 5},
		{Path: "/claimed-only", Operator: "Anthropic", Claimed: 1},
	}
	visits := []store.PageSourceRow{{Path: "/cited-crawled", Source: "chatgpt", Visits: 4}, {Path: "/visited-only", Source: "perplexity", Visits: 1}}
	cites := []traffic.PageCitation{
		{Path: "/cited-crawled", Engine: "gpt-4o", Operator: "OpenAI", ReportID: "r1", Answer: "0"},
		{Path: "/cited-crawled", Engine: "gpt-4o", Operator: "OpenAI", ReportID: "r1", Answer: "0"}, // the same answer twice
		{Path: "/cited-crawled", Engine: "gpt-4o", Operator: "OpenAI", ReportID: "r2", Answer: "0"},
		{Path: "/cited-claimed", Engine: "sonar", Operator: "Perplexity", ReportID: "r1", Answer: "1"},
	}
	r := traffic.JoinPages(hits, visits, cites)

	if got := fmt.Sprint(r.CrawledNotCited); got != "[{/crawled-only OpenAI 2}]" {
		t.Errorf("crawledNotCited %s: a page crawled (verified) by an operator whose engine never cited it", got)
	}
	if got := fmt.Sprint(r.CitedNotCrawled); got != "[{/cited-claimed sonar Perplexity 1 5}]" {
		t.Errorf("citedNotCrawled %s: cited with only claimed hits by its operator", got)
	}
	if got := fmt.Sprint(r.CitedAndVisited); got != "[{/cited-crawled [gpt-4o] 4}]" {
		t.Errorf("citedAndVisited %s", got)
	}
	first := r.Pages[0]
	if first.Path != "/cited-crawled" || len(first.CitedIn) != 1 || first.CitedIn[0].Answers != 2 || fmt.Sprint(first.CitedIn[0].ReportIDs) != "[r1 r2]" {
		t.Errorf("first page %+v: most cited first, an answer counted once, its reports listed", first)
	}
	if len(r.Pages) != 5 {
		t.Errorf("%d pages, want 5", len(r.Pages))
	}
}

func TestPagesRouteJoinsHitsVisitsAndCitations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "")
		b.cites.cites = []traffic.PageCitation{{Path: "/guide", Engine: "gpt-4o", Operator: "OpenAI", ReportID: "rep1", Answer: "0"}}
		lines := clf("20.171.207.130", "/guide?utm=1", gptbotUA) + "\n" + clf("20.171.207.131", "/guide", gptbotUA) + "\n" + clf("198.51.100.9", "/other", gptbotUA)
		b.post(t, "", "text/plain", b.secret, []byte(lines), false).Want(t, http.StatusOK)
		// An AI visit landing on /guide, from the script.
		b.send(t, "POST", "/v1/ai-traffic/collect", `{"siteKey":"`+b.siteKey()+`","path":"/guide","referrer":"https://chatgpt.com/"}`, nil).Want(t, http.StatusAccepted)
		b.synced(t)
		r := b.srv.Do(t, "GET", "/v1/ai-traffic/pages?siteKey="+b.siteKey()+"&days=7", b.key, "").Want(t, http.StatusOK)
		raw := string(r.Raw)
		for _, want := range []string{
			`"path":"/guide","url":"https://example.com/guide","citedIn":[{"engine":"gpt-4o","operator":"OpenAI","answers":"1"`,
			`"crawled":[{"operator":"OpenAI","verified":"2","claimed":"0"}],"aiVisits":[{"source":"chatgpt","visits":"1"}]`,
			`"citedAndVisited":[{"path":"/guide","engines":["gpt-4o"],"aiVisits":"1"}]`,
			`"citedNotCrawled":[]`,
		} {
			want = strings.ReplaceAll(want, `"1"`, `1`)
			want = strings.ReplaceAll(want, `"2"`, `2`)
			want = strings.ReplaceAll(want, `"0"`, `0`)
			if !strings.Contains(raw, want) {
				t.Errorf("pages view lacks %s:\n%s", want, raw)
			}
		}
		b.srv.Do(t, "GET", "/v1/ai-traffic/pages?siteKey="+b.siteKey()+"&days=400", b.key, "").Want(t, http.StatusBadRequest)
	})
}
