package integration_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heraldhq/herald/integration/harness"
)

// The pages view through the real binary, on answers a visibility report
// stored: the report's engine (the real openai plugin against its fake)
// answers by echoing the prompt, so its answers cite the pages the prompts
// name; then the site's log lines (verified and claimed crawlers) go
// through the log route and an AI visit through the tracking script, and
// GET /v1/ai-traffic/pages and the MCP tool get_ai_pages join the three.
func TestPagesViewJoinsStoredAnswersLogsAndVisits(t *testing.T) {
	t.Parallel()
	openai := newFakeOpenAI(t, "sk-test")
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>Acme | Widgets</title></head><body><h1>Widgets</h1></body></html>`)
	}))
	t.Cleanup(site.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: site.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	p := harness.Start(t, harness.Options{Env: map[string]string{
		"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": openai.URL + "/v1",
		"SSL_CERT_FILE": ca, "HERALD_ALLOWED_PRIVATE_CIDRS": "127.0.0.0/8",
	}})
	status, created := call(t, "POST", p.URL+"/v1/ai-traffic/sites", p.Key, `{"domain":"example.com"}`)
	if status != 201 || created["ingestSecret"] == nil {
		t.Fatalf("create site: %d %v", status, created)
	}
	siteKey, secret := created["siteKey"].(string), created["ingestSecret"].(string)

	// Two answers: the first cites /pricing and /docs, the second /blog
	// (a subdomain counts as the site).
	status, body := call(t, "POST", p.URL+"/v1/ai/generate/seo-site-report", p.Key, `{"websiteurl":"`+site.URL+`","competitors":["Globex"],
		"prompts":["Compare https://example.com/pricing with https://example.com/docs","Is https://www.example.com/blog?ref=x worth reading?"]}`)
	if status != 202 {
		t.Fatalf("queue the report: %d %v\n%s", status, body, p.Output())
	}
	if job := waitJob(t, p, body["jobId"].(string), 60*time.Second); job["state"] != "completed" {
		t.Fatalf("report job: %v\n%s", job, p.Output())
	}

	// Each prompt is asked several times (samples): a page is cited by
	// every stored answer whose text names it.
	status, report := call(t, "GET", p.URL+"/v1/ai/generate/seo-site-report?evidence=true", p.Key, "")
	if status != 200 {
		t.Fatalf("report: %d %v", status, report)
	}
	citing := map[string]int{}
	for _, a := range report["answers"].([]any) {
		text, _ := a.(map[string]any)["text"].(string)
		for _, path := range []string{"/pricing", "/docs", "/blog"} {
			if strings.Contains(text, "example.com"+path) {
				citing[path]++
			}
		}
	}
	if citing["/pricing"] == 0 || citing["/blog"] == 0 || citing["/docs"] != citing["/pricing"] {
		t.Fatalf("stored answers citing the pages: %v", citing)
	}

	// GPTBot from OpenAI's published range on /pricing (verified); GPTBot's
	// user agent from a loopback address on /blog (claimed only); PerplexityBot
	// from its range on /about, which no answer cites.
	now := time.Now().UTC().Format("02/Jan/2006:15:04:05 -0700")
	line := func(ip, path, ua string) string {
		return fmt.Sprintf(`%s - - [%s] "GET %s HTTP/1.1" 200 512 "-" "%s"`, ip, now, path, ua)
	}
	perplexity := "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)"
	logs := strings.Join([]string{line("20.171.207.10", "/pricing", uaGPTBot), line("127.0.0.1", "/blog", uaGPTBot), line("3.224.62.45", "/about", perplexity)}, "\n")
	req, _ := http.NewRequest("POST", p.URL+"/v1/ai-traffic/logs?siteKey="+siteKey, strings.NewReader(logs))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "text/plain")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(answer), `"accepted":3`) {
		t.Fatalf("log route: %d %s", res.StatusCode, answer)
	}
	// An AI visit from ChatGPT landing on /pricing, through the script.
	beacon, _ := http.NewRequest("POST", p.URL+"/v1/ai-traffic/collect", strings.NewReader(`{"siteKey":"`+siteKey+`","path":"/pricing","referrer":"https://chatgpt.com/","sessionId":"s1"}`))
	beacon.Header.Set("Content-Type", "text/plain")
	beacon.Header.Set("User-Agent", uaBrowser)
	if res, err := http.DefaultClient.Do(beacon); err != nil || res.StatusCode != http.StatusAccepted {
		t.Fatalf("beacon: %v %v", res, err)
	}

	type pages struct {
		Pages []struct {
			Path    string
			CitedIn []struct {
				Engine, Operator string
				Answers          int
				ReportIDs        []string
			}
			Crawled []struct {
				Operator          string
				Verified, Claimed int
			}
			AIVisits []struct {
				Source string
				Visits int
			}
		}
		CrawledNotCited []struct {
			Path, Operator string
			Verified       int
		}
		CitedNotCrawled []struct {
			Path, Engine, Operator string
			Answers, Claimed       int
		}
		CitedAndVisited []struct {
			Path     string
			Engines  []string
			AIVisits int
		}
	}
	var view pages
	var raw []byte
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, raw = callRaw(t, "GET", p.URL+"/v1/ai-traffic/pages?days=7&siteKey="+siteKey, p.Key)
		view = pages{}
		if err := json.Unmarshal(raw, &view); status != 200 || err != nil {
			t.Fatalf("pages: %d %v %s", status, err, raw)
		}
		if len(view.CitedAndVisited) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // the beacon is folded in by the writer
	}
	byPath := map[string]string{}
	for _, pg := range view.Pages {
		b, _ := json.Marshal(pg)
		byPath[pg.Path] = string(b)
	}
	if len(view.Pages) != 4 {
		t.Fatalf("pages %v, want /pricing, /docs, /blog and /about:\n%s", byPath, raw)
	}
	for path, want := range map[string][]string{
		"/pricing": {fmt.Sprintf(`"CitedIn":[{"Engine":"gpt-4o","Operator":"OpenAI","Answers":%d,`, citing["/pricing"]), `"Crawled":[{"Operator":"OpenAI","Verified":1,"Claimed":0}]`, `"AIVisits":[{"Source":"chatgpt","Visits":1}]`},
		"/docs":    {fmt.Sprintf(`"Engine":"gpt-4o","Operator":"OpenAI","Answers":%d,`, citing["/docs"]), `"Crawled":[]`, `"AIVisits":[]`},
		"/blog":    {fmt.Sprintf(`"Engine":"gpt-4o","Operator":"OpenAI","Answers":%d,`, citing["/blog"]), `"Crawled":[{"Operator":"OpenAI","Verified":0,"Claimed":1}]`},
		"/about":   {`"CitedIn":[]`, `"Crawled":[{"Operator":"Perplexity","Verified":1,"Claimed":0}]`},
	} {
		for _, w := range want {
			if !strings.Contains(byPath[path], w) {
				t.Errorf("page %s lacks %s: %s", path, w, byPath[path])
			}
		}
	}
	// The answers the report stored are the ones linked.
	if ids := view.Pages[0].CitedIn; len(ids) != 1 || len(ids[0].ReportIDs) != 1 || ids[0].ReportIDs[0] == "" {
		t.Errorf("the most cited page links no report: %s", raw)
	}
	gaps, _ := json.Marshal(map[string]any{"crawledNotCited": view.CrawledNotCited, "citedNotCrawled": view.CitedNotCrawled, "citedAndVisited": view.CitedAndVisited})
	for _, w := range []string{
		`"crawledNotCited":[{"Path":"/about","Operator":"Perplexity","Verified":1}]`,
		fmt.Sprintf(`"citedNotCrawled":[{"Path":"/blog","Engine":"gpt-4o","Operator":"OpenAI","Answers":%d,"Claimed":1},{"Path":"/docs","Engine":"gpt-4o","Operator":"OpenAI","Answers":%d,"Claimed":0}]`, citing["/blog"], citing["/docs"]),
		`"citedAndVisited":[{"Path":"/pricing","Engines":["gpt-4o"],"AIVisits":1}]`,
	} {
		if !strings.Contains(string(gaps), w) {
			t.Errorf("pages view lacks %s: %s", w, gaps)
		}
	}

	// The same view through the MCP read tool.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	web, err := mcp.NewClient(&mcp.Implementation{Name: "web", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer(p.Key)}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("MCP client: %v", err)
	}
	defer web.Close()
	got, err := web.CallTool(ctx, &mcp.CallToolParams{Name: "get_ai_pages", Arguments: map[string]any{"siteKey": siteKey, "days": 7}})
	if err != nil || got.IsError {
		t.Fatalf("get_ai_pages: %v %v", got, err)
	}
	text := got.Content[0].(*mcp.TextContent).Text
	for _, w := range []string{`"/pricing"`, `"/about"`, `"Perplexity"`, `"chatgpt"`, `"citedAndVisited"`} {
		if !strings.Contains(text, w) {
			t.Errorf("get_ai_pages lacks %s: %s", w, text)
		}
	}
	var tool pages
	if err := json.Unmarshal([]byte(text), &tool); err != nil || len(tool.Pages) != 4 || len(tool.CitedNotCrawled) != 2 || len(tool.CrawledNotCited) != 1 {
		t.Errorf("get_ai_pages differs from the route (%v): %s", err, text)
	}
	if _, err := web.CallTool(ctx, &mcp.CallToolParams{Name: "get_ai_pages", Arguments: map[string]any{"siteKey": "nope", "days": 7}}); err != nil {
		t.Fatalf("get_ai_pages of an unknown site: %v", err)
	}
}

// callRaw is call returning the body as read.
func callRaw(t *testing.T, method, url, key string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.Header.Set("api-key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}
