package openapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/openapi"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
)

// TestDocumentCoversEveryRoute: each REST route of the table is an
// operation with its exact success statuses and its auth, and nothing else
// is (the committed document is the table's, not an older one).
func TestDocumentCoversEveryRoute(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths map[string]map[string]struct {
			Security  []map[string][]string `json:"security"`
			Responses map[string]any        `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	routes := api.Routes()
	ops := 0
	for _, p := range doc.Paths {
		ops += len(p)
	}
	if ops != len(routes) {
		t.Errorf("document has %d operations, the route table %d routes: run make generate", ops, len(routes))
	}
	for _, r := range routes {
		op, ok := doc.Paths[r.Path][strings.ToLower(r.Method)]
		if !ok {
			t.Errorf("%s %s is not in the document: run make generate", r.Method, r.Path)
			continue
		}
		for _, st := range r.Statuses {
			if _, ok := op.Responses[strconv.Itoa(st)]; !ok {
				t.Errorf("%s %s: status %d is not documented", r.Method, r.Path, st)
			}
		}
		success := 0
		for code := range op.Responses {
			if code[0] == '2' {
				success++
			}
		}
		if success != len(r.Statuses) {
			t.Errorf("%s %s documents %d success statuses, the route answers %v", r.Method, r.Path, success, r.Statuses)
		}
		wantAuth := map[auth.Policy]int{auth.Public: 0, auth.APIKey: 1, auth.APIKeyOrSession: 2}[r.Policy]
		if len(op.Security) != wantAuth {
			t.Errorf("%s %s: security %v for policy %d", r.Method, r.Path, op.Security, r.Policy)
		}
	}
}

const chromiumPath = "/usr/bin/chromium"

// TestDocsPageRendersInChromium loads /docs in a real headless Chromium:
// Redoc renders the document's operations, and the page requests nothing
// from any other host (the bundle is vendored, no CDN).
func TestDocsPageRendersInChromium(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(chromiumPath); err != nil {
		storetest.Unavailable(t, "chromium is not installed (apt-get install chromium): "+err.Error())
	}
	mux := http.NewServeMux()
	mux.Handle("GET /v1/openapi.json", openapi.DocumentHandler())
	mux.Handle("GET /docs", openapi.DocsHandler())
	mux.Handle("GET /docs/redoc.standalone.js", openapi.ScriptHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	self, _ := url.Parse(srv.URL)

	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 800))
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	bctx, cancel = context.WithTimeout(bctx, 60*time.Second)
	defer cancel()

	// Every request to another host must have been blocked by the page's
	// Content-Security-Policy (Redoc shows a logo from its CDN).
	var mu sync.Mutex
	sent := map[network.RequestID]string{}
	blocked := map[network.RequestID]bool{}
	if err := chromedp.Do(bctx); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			sent[e.RequestID] = e.Request.URL
		case *network.EventLoadingFailed:
			blocked[e.RequestID] = e.BlockedReason == network.BlockedReasonCsp
		case *network.EventLoadingFinished:
			blocked[e.RequestID] = false
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(srv.URL+"/docs")); err != nil {
		t.Fatalf("docs page: %v", err)
	}
	var body string
	rendered := func() bool {
		var err error
		body, err = chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(body, "Herald API") && strings.Contains(body, "/v1/scheduler/create")
	}
	if err := testwait.Until(30*time.Second, rendered); err != nil {
		t.Fatalf("Redoc did not render the document; page text:\n%.2000s", body)
	}
	for _, want := range []string{"BrandVoiceService", "api-key", "CreateBrandVoiceFromText"} {
		if !strings.Contains(body, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
	// Redoc's sidebar requests its logo from the CDN once mounted: wait
	// for that request to end (blocked, or loaded when the policy is
	// missing) before judging.
	foreign := func() (seen, settled bool) {
		mu.Lock()
		defer mu.Unlock()
		settled = true
		for id, u := range sent {
			if p, err := url.Parse(u); err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != self.Host {
				seen = true
				if _, done := blocked[id]; !done {
					settled = false
				}
			}
		}
		return seen, settled
	}
	testwait.Until(15*time.Second, func() bool { // a timeout is reported below
		seen, settled := foreign()
		return seen && settled
	})
	mu.Lock()
	defer mu.Unlock()
	local := 0
	for id, u := range sent {
		p, err := url.Parse(u)
		switch {
		case err != nil || (p.Scheme != "http" && p.Scheme != "https"):
		case p.Host == self.Host:
			local++
		case !blocked[id]:
			t.Errorf("the page loaded %s from another host (not blocked by its Content-Security-Policy)", u)
		}
	}
	if local < 3 {
		t.Errorf("requests to the host: %v, want the page, the bundle and the document", sent)
	}
}
