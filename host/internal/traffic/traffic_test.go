package traffic_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// A browser's user agent; Classify drops headless and library agents.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"

// testBundle is the real API server over HTTP on a migrated store, with a
// workspace key and one site.
type testBundle struct {
	srv    *apitest.Server
	writer *traffic.Writer
	store  *store.Store
	key    string
	ws     store.Workspace
	site   map[string]any
}

func setup(t testing.TB, st *store.Store) *testBundle {
	t.Helper()
	return setupWith(t, st, traffic.WriterOptions{})
}

// setupWith is setup with a writer of opts.
func setupWith(t testing.TB, st *store.Store, opts traffic.WriterOptions) *testBundle {
	t.Helper()
	ctx := context.Background()
	b := &testBundle{store: st}
	b.srv, b.writer = trafficServerWith(t, st, nil, opts)
	var err error
	if b.key, err = auth.CreateKey(ctx, st, "acme", "business", "owner@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.ws, _, err = st.EnsureWorkspaceUser(ctx, "acme", "business", "owner@acme.test"); err != nil {
		t.Fatal(err)
	}
	b.site = b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"https://www.acme.test/"}`).Want(t, http.StatusCreated).Body
	return b
}

// trafficServer is the API server over a traffic service of st whose
// sites caps limits (nil: no cap). The service's base URL is the
// server's, known once it listens: the handler is filled in then.
func trafficServer(t testing.TB, st *store.Store, caps *quota.Checker) (*apitest.Server, *traffic.Writer) {
	t.Helper()
	return trafficServerWith(t, st, caps, traffic.WriterOptions{})
}

func trafficServerWith(t testing.TB, st *store.Store, caps *quota.Checker, opts traffic.WriterOptions) (*apitest.Server, *traffic.Writer) {
	t.Helper()
	w, err := traffic.NewWriter(context.Background(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close) // after the server: cleanups run last-in first-out
	h := new(traffic.Handler)
	srv := apitest.Start(t, api.Deps{Store: st, Traffic: h})
	svc, err := traffic.New(traffic.Deps{Store: st, Writer: w, BaseURL: srv.URL, Quota: caps})
	if err != nil {
		t.Fatal(err)
	}
	*h = *traffic.NewHandler(svc)
	return srv, w
}

// synced waits until every beacon answered so far is in the tables (on
// SQLite they reach them behind the inbox).
func (b *testBundle) synced(t testing.TB) {
	t.Helper()
	if err := b.writer.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (b *testBundle) siteKey() string { return b.site["siteKey"].(string) }

// send makes the requests of a page's script, which apitest.Do does not:
// no api-key, a browser's User-Agent and a JSON Content-Type unless
// headers change them (an empty value removes a header).
func (b *testBundle) send(t testing.TB, method, path, body string, headers map[string]string) apitest.Response {
	t.Helper()
	req, err := http.NewRequest(method, b.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", browserUA)
	for k, v := range headers {
		req.Header.Del(k)
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	return apitest.Send(t, req)
}

func (b *testBundle) stats(t testing.TB, query string) map[string]any {
	t.Helper()
	return b.srv.Do(t, "GET", "/v1/ai-traffic/stats?"+query, b.key, "").Want(t, http.StatusOK).Body
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

func TestSites(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		site := b.site
		key := b.siteKey()
		if !strings.HasPrefix(key, "ks_") || len(key) != 35 {
			t.Errorf("siteKey %q: want ks_ and 32 characters", key)
		}
		if site["domain"] != "acme.test" || site["name"] != "acme.test" || site["isActive"] != true || !nonEmptyString(site["id"]) {
			t.Errorf("site: %v", site)
		}
		wantScript := b.srv.URL + "/v1/ai-traffic/t.js"
		if site["scriptUrl"] != wantScript {
			t.Errorf("scriptUrl %v, want %s", site["scriptUrl"], wantScript)
		}
		if want := `<script defer src="` + wantScript + `" data-site="` + key + `"></script>`; site["snippet"] != want {
			t.Errorf("snippet %v, want %s", site["snippet"], want)
		}
		if _, ok := site["createdAt"].(string); !ok {
			t.Errorf("createdAt: %v", site["createdAt"])
		}

		for _, tc := range []struct {
			name, body string
			status     int
			domain     string
		}{
			{"a URL with scheme, port, path and www is cut to its host", `{"domain":"HTTPS://WWW.Shop.Example.COM:8443/a/b?c=d#e","name":"Shop"}`, 201, "shop.example.com"},
			{"an IDN domain is stored as punycode", `{"domain":"bücher.de"}`, 201, "xn--bcher-kva.de"},
			{"a duplicate domain returns the existing site with 200", `{"domain":"acme.test"}`, 200, "acme.test"},
			{"a duplicate written differently returns it too", `{"domain":"https://WWW.acme.test/pricing"}`, 200, "acme.test"},
			{"a missing domain is refused", `{}`, 400, ""},
			{"a single-label name is refused", `{"domain":"localhost"}`, 400, ""},
			{"an IP address is refused", `{"domain":"http://192.168.1.2/"}`, 400, ""},
			{"a domain with a space is refused", `{"domain":"exa mple.com"}`, 400, ""},
			{"a label starting with a hyphen is refused", `{"domain":"-bad.com"}`, 400, ""},
			{"a domain that is not a string is refused", `{"domain":42}`, 400, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				out := b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, tc.body).Want(t, tc.status).Body
				if tc.status == 400 {
					if msg, _ := out["message"].(string); msg == "" {
						t.Errorf("no message: %v", out)
					}
					return
				}
				if out["domain"] != tc.domain {
					t.Errorf("domain %v, want %s", out["domain"], tc.domain)
				}
				if tc.domain == "acme.test" && (out["id"] != site["id"] || out["siteKey"] != key) {
					t.Errorf("duplicate created a new site: %v", out)
				}
			})
		}

		list := b.srv.Do(t, "GET", "/v1/ai-traffic/sites", b.key, "").Want(t, 200).Body
		if len(list["sites"].([]any)) != 3 {
			t.Fatalf("list: %v", list)
		}
		if first := list["sites"].([]any)[0].(map[string]any); first["siteKey"] != key {
			t.Errorf("list is not oldest first: %v", first)
		}
		if r := b.srv.Do(t, "GET", "/v1/ai-traffic/sites", "", ""); r.Status != 401 {
			t.Errorf("list without a key: %d, want 401", r.Status)
		}
		// The first site recorded the workspace website.
		principal, _, _ := st.PrincipalByKeyHash(context.Background(), auth.HashKey(b.key))
		if principal.Workspace.Website != "https://acme.test" {
			t.Errorf("workspace website %q, want https://acme.test", principal.Workspace.Website)
		}
	})
}

func TestEnsureSite(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		ctx := context.Background()
		// A workspace with a site gets that site.
		out := b.srv.Do(t, "POST", "/v1/ai-traffic/sites/ensure", b.key, "").Want(t, 200).Body
		if site, _ := out["site"].(map[string]any); site["siteKey"] != b.siteKey() || out["needsDomain"] != false {
			t.Fatalf("ensure with a site: %v", out)
		}

		// A workspace with neither a site nor a website needs a domain.
		bare, err := auth.CreateKey(ctx, st, "bare", "business", "o@bare.test")
		if err != nil {
			t.Fatal(err)
		}
		out = b.srv.Do(t, "POST", "/v1/ai-traffic/sites/ensure", bare, "").Want(t, 200).Body
		if out["site"] != nil || out["needsDomain"] != true {
			t.Fatalf("ensure without a domain: %v", out)
		}

		// A workspace with a website gets a site for it.
		withSite, err := auth.CreateKey(ctx, st, "web", "business", "o@web.test")
		if err != nil {
			t.Fatal(err)
		}
		ws, _, _ := st.EnsureWorkspaceUser(ctx, "web", "business", "o@web.test")
		if err := st.SetWorkspaceWebsite(ctx, ws.ID, "https://www.Web.test/home"); err != nil {
			t.Fatal(err)
		}
		out = b.srv.Do(t, "POST", "/v1/ai-traffic/sites/ensure", withSite, "").Want(t, 200).Body
		site, _ := out["site"].(map[string]any)
		if site["domain"] != "web.test" || out["needsDomain"] != false {
			t.Fatalf("ensure from the website: %v", out)
		}
		again := b.srv.Do(t, "POST", "/v1/ai-traffic/sites/ensure", withSite, "").Body
		if again["site"].(map[string]any)["id"] != site["id"] {
			t.Errorf("second ensure created another site: %v", again)
		}

		// Without a team website, the calling user's own website is used
		// (herald keys create --user ... --website ...).
		solo, err := auth.CreateKey(ctx, st, "solo", "business", "me@solo.test")
		if err != nil {
			t.Fatal(err)
		}
		_, u, _ := st.EnsureWorkspaceUser(ctx, "solo", "business", "me@solo.test")
		if err := st.SetUserWebsite(ctx, u.ID, "https://my.solo.test"); err != nil {
			t.Fatal(err)
		}
		out = b.srv.Do(t, "POST", "/v1/ai-traffic/sites/ensure", solo, "").Want(t, 200).Body
		if site, _ := out["site"].(map[string]any); site["domain"] != "my.solo.test" || out["needsDomain"] != false {
			t.Fatalf("ensure from the user's website: %v", out)
		}
	})
}

func TestCollectPreflightAllowsAnyOrigin(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	res := b.send(t, "OPTIONS", "/v1/ai-traffic/collect", "", map[string]string{
		"Origin": "https://shop.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type",
	})
	if res.Status != http.StatusNoContent {
		t.Fatalf("preflight status %d", res.Status)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "POST, OPTIONS", "Access-Control-Allow-Headers": "Content-Type",
	} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	res = b.send(t, "POST", "/v1/ai-traffic/collect", fmt.Sprintf(`{"siteKey":%q}`, b.siteKey()), map[string]string{"Origin": "https://shop.example"})
	if res.Status != http.StatusAccepted || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("POST: %d, allow-origin %q", res.Status, res.Header.Get("Access-Control-Allow-Origin"))
	}
	res = b.send(t, "POST", "/v1/ai-traffic/collect", `{"siteKey":"ks_nope"}`, map[string]string{"Origin": "https://shop.example"})
	if res.Status != http.StatusNotFound || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("errors must be readable cross-origin too: %d, allow-origin %q", res.Status, res.Header.Get("Access-Control-Allow-Origin"))
	}
}

func TestCollect(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		ctx := context.Background()
		inactive := must(st.CreateTrafficSite(ctx, store.TrafficSite{WorkspaceID: b.ws.ID, SiteKey: "ks_inactive", Domain: "off.test", Name: "off", IsActive: false}))
		_ = inactive
		key := b.siteKey()
		for _, tc := range []struct {
			name        string
			body        string
			contentType string
			status      int
			kind        string
			source      string
		}{
			{"a JSON pageview from ChatGPT's referrer is an AI visit", `{"siteKey":"KEY","path":"/a","referrer":"https://chatgpt.com/","sessionId":"s1"}`, "application/json", 202, "pageview", "chatgpt"},
			{"a text/plain pageview with utm_source=chatgpt.com is an AI visit", `{"siteKey":"KEY","path":"/b","utmSource":"chatgpt.com","sessionId":"s2"}`, "text/plain;charset=UTF-8", 202, "pageview", "chatgpt"},
			{"utm_source=perplexity is Perplexity without a referrer", `{"siteKey":"KEY","path":"/c","utmSource":"perplexity","sessionId":"s3"}`, "text/plain", 202, "pageview", "perplexity"},
			{"a subdomain referrer matches its assistant", `{"siteKey":"KEY","referrer":"https://www.perplexity.ai/search/x","sessionId":"s4"}`, "text/plain", 202, "pageview", "perplexity"},
			{"a search referrer is a visit from no AI", `{"siteKey":"KEY","path":"/d","referrer":"https://www.google.com/","sessionId":"s5"}`, "text/plain", 202, "pageview", ""},
			{"a pageview without sessionId is its own visit", `{"siteKey":"KEY","path":"/e","referrer":"https://claude.ai/chat/1"}`, "text/plain", 202, "pageview", "claude"},
			{"an engagement update attaches to the session's pageview", `{"siteKey":"KEY","path":"/a","sessionId":"s1","sessionDurationMs":15000,"scrollDepth":80}`, "text/plain", 202, "engagement", "chatgpt"},
			{"an engagement update for an unknown session is ignored", `{"siteKey":"KEY","path":"/a","sessionId":"nope","sessionDurationMs":5}`, "text/plain", 202, "ignored", ""},
			{"an AI crawler is a crawler hit", `{"siteKey":"KEY","path":"/a","userAgent":"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"}`, "text/plain", 202, "crawler", ""},
			{"another bot is ignored", `{"siteKey":"KEY","path":"/a","userAgent":"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}`, "text/plain", 202, "ignored", ""},
			{"a headless browser is ignored", `{"siteKey":"KEY","path":"/a","userAgent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36"}`, "text/plain", 202, "ignored", ""},
			{"a missing siteKey is refused", `{"path":"/a"}`, "text/plain", 400, "", ""},
			{"a siteKey without the ks_ prefix is refused", `{"siteKey":"hk_abc"}`, "text/plain", 400, "", ""},
			{"an unknown siteKey is refused", `{"siteKey":"ks_unknown"}`, "text/plain", 404, "", ""},
			{"an inactive site is refused", `{"siteKey":"ks_inactive"}`, "text/plain", 403, "", ""},
			{"malformed JSON is refused", `{"siteKey":"KEY",`, "text/plain", 400, "", ""},
			{"a body that is not an object is refused", `["KEY"]`, "text/plain", 400, "", ""},
			{"a field of the wrong type is refused", `{"siteKey":"KEY","scrollDepth":"deep"}`, "text/plain", 400, "", ""},
			{"a path that is not a path is refused", `{"siteKey":"KEY","path":"javascript:alert(1)"}`, "text/plain", 400, "", ""},
			{"a session id with odd characters is refused", `{"siteKey":"KEY","sessionId":"a b<c>"}`, "text/plain", 400, "", ""},
			{"a negative duration is refused", `{"siteKey":"KEY","sessionId":"s1","sessionDurationMs":-1}`, "text/plain", 400, "", ""},
			{"a scroll depth above 100 is refused", `{"siteKey":"KEY","sessionId":"s1","scrollDepth":101}`, "text/plain", 400, "", ""},
			{"an engagement update without sessionId is refused", `{"siteKey":"KEY","sessionDurationMs":10}`, "text/plain", 400, "", ""},
			{"an oversized body is refused", `{"siteKey":"KEY","title":"` + strings.Repeat("x", traffic.MaxBeaconBytes) + `"}`, "text/plain", 413, "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				body := strings.ReplaceAll(tc.body, "KEY", key)
				out := b.send(t, "POST", "/v1/ai-traffic/collect", body, map[string]string{"Content-Type": tc.contentType}).Want(t, tc.status).Body
				if tc.status != 202 {
					if msg, _ := out["message"].(string); msg == "" {
						t.Errorf("no message: %v", out)
					}
					return
				}
				if out["kind"] != tc.kind || out["aiSource"] != tc.source {
					t.Errorf("kind %v source %v, want %s %s", out["kind"], out["aiSource"], tc.kind, tc.source)
				}
			})
		}

		// Exactly the accepted pageviews and crawler hits were stored.
		b.synced(t)
		site, _ := st.TrafficSiteByKey(ctx, key)
		if n, _ := st.TrafficEventCount(ctx, site.ID, store.TrafficPageview); n != 6 {
			t.Errorf("stored pageviews: %d, want 6", n)
		}
		if n, _ := st.TrafficEventCount(ctx, site.ID, store.TrafficCrawler); n != 1 {
			t.Errorf("stored crawler hits: %d, want 1", n)
		}
		s := b.stats(t, "days=7&siteKey="+key)
		tot := s["totals"].(map[string]any)
		if num(tot["visits"]) != 6 || num(tot["aiVisits"]) != 5 || tot["aiShare"].(float64) < 0.83 || num(tot["crawlerHits"]) != 1 {
			t.Errorf("totals: %v", tot)
		}
		sources := s["sources"].([]any)
		first := sources[0].(map[string]any)
		if first["source"] != "chatgpt" || first["name"] != "ChatGPT" || num(first["visits"]) != 2 || num(first["engagedVisits"]) != 1 {
			t.Errorf("top source: %v", first)
		}
		if num(first["avgDurationMs"]) != 7500 {
			t.Errorf("ChatGPT avg duration %v, want 7500 (15 s over 2 visits)", first["avgDurationMs"])
		}
		ai := s["engagement"].(map[string]any)["ai"].(map[string]any)
		if ai["avgScrollDepth"].(float64) != 80 {
			t.Errorf("ai engagement: %v", ai)
		}
		crawlers := s["crawlers"].([]any)
		if len(crawlers) != 1 || crawlers[0].(map[string]any)["bot"] != "GPTBot" || crawlers[0].(map[string]any)["operator"] != "OpenAI" {
			t.Errorf("crawlers: %v", crawlers)
		}
		pages := s["topPages"].([]any)
		if len(pages) != 5 {
			t.Errorf("top pages: %v", pages)
		}
	})
}

func TestCollectUsesTheRequestUserAgentWhenTheBodyHasNone(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	for _, tc := range []struct {
		name, ua, kind string
	}{
		{"a browser's header makes a pageview", browserUA, "pageview"},
		{"an AI fetcher's header makes a crawler hit", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", "crawler"},
		{"a library's header is ignored", "Go-http-client/1.1", "ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.send(t, "POST", "/v1/ai-traffic/collect", fmt.Sprintf(`{"siteKey":%q}`, b.siteKey()), map[string]string{"User-Agent": tc.ua})
			if r.Status != 202 || r.Body["kind"] != tc.kind {
				t.Fatalf("%d %v, want kind %s", r.Status, r.Body, tc.kind)
			}
		})
	}
}

func TestStatsQuery(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	for _, tc := range []struct {
		name, query string
		status      int
	}{
		{"the default window is 30 days", "", 200},
		{"one day is allowed", "days=1", 200},
		{"365 days are allowed", "days=365&source=script", 200},
		{"zero days are refused", "days=0", 400},
		{"366 days are refused", "days=366", 400},
		{"a non-integer is refused", "days=week", 400},
		{"a source other than script is refused", "source=ga", 400},
		{"an unknown site is not found", "siteKey=ks_nope", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := b.srv.Do(t, "GET", "/v1/ai-traffic/stats?"+tc.query, b.key, "").Want(t, tc.status).Body
			if tc.status != 200 {
				return
			}
			want := int64(30)
			if strings.Contains(tc.query, "days=") {
				fmt.Sscanf(tc.query[strings.Index(tc.query, "days=")+5:], "%d", &want)
			}
			if num(out["days"]) != want || int64(len(out["series"].([]any))) != want || out["source"] != "script" || out["siteKey"] != b.siteKey() {
				t.Errorf("report header: days %v, %d points, source %v, site %v", out["days"], len(out["series"].([]any)), out["source"], out["siteKey"])
			}
		})
	}
	if alias := b.srv.Do(t, "GET", "/v1/ai/generate/ai-traffic?days=7", b.key, "").Want(t, 200).Body; num(alias["days"]) != 7 {
		t.Fatalf("alias: %v", alias)
	}
	b.srv.Do(t, "GET", "/v1/ai-traffic/stats", "", "").Want(t, 401)
}

func TestScriptIsServedSmallAndCacheable(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	res := b.send(t, "GET", "/v1/ai-traffic/t.js", "", nil)
	body := []byte(res.Raw)
	if res.Status != 200 || !bytes.Equal(body, traffic.Script) {
		t.Fatalf("status %d, %d bytes", res.Status, len(body))
	}
	if len(body) >= 3000 {
		t.Errorf("t.js is %d bytes; keep it under 3 KB", len(body))
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "public") || !strings.Contains(cc, "max-age=") {
		t.Errorf("cache control %q", cc)
	}
	if res.Header.Get("Set-Cookie") != "" || bytes.Contains(body, []byte("document.cookie")) {
		t.Error("the script must not use cookies")
	}
	res = b.send(t, "GET", "/v1/ai-traffic/t.js", "", map[string]string{"If-None-Match": res.Header.Get("ETag")})
	if res.Status != http.StatusNotModified {
		t.Errorf("revalidation: %d, want 304", res.Status)
	}
	etag := res.Header.Get("ETag")
	for _, inm := range []string{"W/" + etag, `"other", ` + etag, `"other",W/` + etag, "*"} {
		res = b.send(t, "GET", "/v1/ai-traffic/t.js", "", map[string]string{"If-None-Match": inm})
		if res.Status != http.StatusNotModified {
			t.Errorf("If-None-Match %s: %d, want 304", inm, res.Status)
		}
	}
	res = b.send(t, "GET", "/v1/ai-traffic/t.js", "", map[string]string{"If-None-Match": `"other", W/"stale"`})
	if res.Status != http.StatusOK {
		t.Errorf("If-None-Match of other tags: %d, want 200", res.Status)
	}
}

func must[T any](v T, _ bool, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// nonEmptyString reports whether a decoded JSON field is present, a
// string, and not empty (a missing field is nil, which "" would not catch).
func nonEmptyString(v any) bool {
	s, ok := v.(string)
	return ok && s != ""
}
