package traffic_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/traffic/crawlers"
)

// logDNS answers the reverse-then-forward checks of the log tests.
type logDNS struct{}

func (logDNS) LookupAddr(_ context.Context, addr string) ([]string, error) {
	switch addr {
	case "66.249.90.77":
		return []string{"crawl-66-249-90-77.googlebot.com."}, nil
	case "203.0.113.50":
		return []string{"crawl-203-0-113-50.googlebot.com."}, nil
	}
	return nil, errors.New("no PTR")
}

func (logDNS) LookupHost(_ context.Context, host string) ([]string, error) {
	switch host {
	case "crawl-66-249-90-77.googlebot.com":
		return []string{"66.249.90.77"}, nil
	case "crawl-203-0-113-50.googlebot.com":
		return []string{"66.249.90.1"}, nil // not the address asked about
	}
	return nil, errors.New("no such host")
}

// fakeCitations is the visibility side of the pages view.
type fakeCitations struct{ cites []traffic.PageCitation }

func (f *fakeCitations) PageCitations(context.Context, string, string, int64) ([]traffic.PageCitation, error) {
	return f.cites, nil
}

type logBundle struct {
	*testBundle
	secret string
	cites  *fakeCitations
	svc    *traffic.Service
}

func (b *logBundle) service(*testing.T) *traffic.Service { return b.svc }

func (b *logBundle) workspaceID(t *testing.T) string {
	t.Helper()
	var ws string
	if err := storetest.QueryRow(context.Background(), b.store, `SELECT workspace_id FROM traffic_sites WHERE site_key = $1`, b.siteKey()).Scan(&ws); err != nil {
		t.Fatal(err)
	}
	return ws
}

// logSetup is setup with the crawler routes, the shipped ranges, logDNS
// and a business plan of maxLines log lines a day (0: no cap) storing ipMode.
func logSetup(t *testing.T, st *store.Store, maxLines int, ipMode string) *logBundle {
	t.Helper()
	ctx := context.Background()
	w, err := traffic.NewWriter(ctx, st, traffic.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	h, ch := new(traffic.Handler), new(traffic.CrawlerHandler)
	srv := apitest.Start(t, api.Deps{Store: st, Traffic: h, Crawlers: ch})
	files, err := crawlers.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	table := config.DefaultPlans()
	biz := table["business"]
	biz.LogLinesPerDay, biz.LogIPStorage = maxLines, ipMode
	table["business"] = biz
	cites := &fakeCitations{}
	svc, err := traffic.New(traffic.Deps{Store: st, Writer: w, BaseURL: srv.URL, Plans: plans.New(table),
		Verifier: crawlers.NewVerifier(crawlers.NewRanges(files...), logDNS{}), Citations: cites})
	if err != nil {
		t.Fatal(err)
	}
	*h, *ch = *traffic.NewHandler(svc), *traffic.NewCrawlerHandler(svc)
	b := &testBundle{store: st, srv: srv, writer: w}
	if b.key, err = auth.CreateKey(ctx, st, "acme", "business", "owner@acme.test"); err != nil {
		t.Fatal(err)
	}
	b.site = srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"example.com"}`).Want(t, http.StatusCreated).Body
	secret, _ := b.site["ingestSecret"].(string)
	if !strings.HasPrefix(secret, "kis_") {
		t.Fatalf("ingestSecret %q in %v", secret, b.site)
	}
	return &logBundle{testBundle: b, secret: secret, cites: cites, svc: svc}
}

// post sends a log body with a content type and an Authorization header
// (or an api-key when auth starts with hk_).
func (b *logBundle) post(t *testing.T, query, contentType, authz string, body []byte, gz bool) apitest.Response {
	t.Helper()
	if gz {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		body = buf.Bytes()
	}
	req, err := http.NewRequest("POST", b.srv.URL+"/v1/ai-traffic/logs"+query, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if gz {
		req.Header.Set("Content-Encoding", "gzip")
	}
	switch {
	case strings.HasPrefix(authz, "hk_"):
		req.Header.Set("api-key", authz)
	case authz != "":
		req.Header.Set("Authorization", "Bearer "+authz)
	}
	return apitest.Send(t, req)
}

// clf is one Combined Log Format line of now.
func clf(ip, path, ua string) string {
	return fmt.Sprintf(`%s - - [%s] "GET %s HTTP/1.1" 200 512 "-" "%s"`, ip, time.Now().UTC().Format("02/Jan/2006:15:04:05 -0700"), path, ua)
}

const (
	gptbotUA = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	googleUA = "Mozilla/5.0 (compatible; Google-CloudVertexBot)"
)

func countRows(t *testing.T, st *store.Store, table string) int64 {
	t.Helper()
	var n int64
	if err := storetest.QueryRow(context.Background(), st, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTheIngestSecretIsRequiredAndScopedToItsSite(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "")
		body := []byte(clf("20.171.207.130", "/a", gptbotUA) + "\n")
		other := b.srv.Do(t, "POST", "/v1/ai-traffic/sites", b.key, `{"domain":"other.example"}`).Want(t, http.StatusCreated).Body
		otherSecret := other["ingestSecret"].(string)
		strangerKey, err := auth.CreateKey(context.Background(), st, "globex", "business", "owner@globex.test")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name, query, authz string
			want               int
		}{
			{"no credentials", "", "", http.StatusUnauthorized},
			{"the public site key as bearer", "", b.siteKey(), http.StatusUnauthorized},
			{"the public site key as bearer with its siteKey", "?siteKey=" + b.siteKey(), b.siteKey(), http.StatusUnauthorized},
			{"another site's secret for this site", "?siteKey=" + b.siteKey(), otherSecret, http.StatusUnauthorized},
			{"a made-up secret", "", "kis_" + strings.Repeat("x", 40), http.StatusUnauthorized},
			{"an api key of another workspace", "?siteKey=" + b.siteKey(), strangerKey, http.StatusNotFound},
			{"an api key without siteKey", "", b.key, http.StatusBadRequest},
			{"the site's secret", "", b.secret, http.StatusOK},
			{"the site's secret with its siteKey", "?siteKey=" + b.siteKey(), b.secret, http.StatusOK},
			{"an api key of the workspace with siteKey", "?siteKey=" + b.siteKey(), b.key, http.StatusOK},
		} {
			r := b.post(t, c.query, "text/plain", c.authz, body, false)
			if r.Status != c.want {
				t.Errorf("%s: status %d, want %d: %s", c.name, r.Status, c.want, r.Raw)
			}
		}
		if n := countRows(t, st, "crawler_hits"); n != 3 {
			t.Errorf("%d hits stored, want 3 (one per accepted request)", n)
		}
		// Rotation: the new secret works, the old one no longer does.
		rot := b.srv.Do(t, "POST", "/v1/ai-traffic/sites/"+b.siteKey()+"/ingest-secret", b.key, "").Want(t, http.StatusOK).Body
		fresh := rot["ingestSecret"].(string)
		b.post(t, "", "text/plain", b.secret, body, false).Want(t, http.StatusUnauthorized)
		b.post(t, "", "text/plain", fresh, body, false).Want(t, http.StatusOK)
		b.srv.Do(t, "POST", "/v1/ai-traffic/sites/"+b.siteKey()+"/ingest-secret", strangerKey, "").Want(t, http.StatusNotFound)
		// Listing sites never shows a secret.
		list := b.srv.Do(t, "GET", "/v1/ai-traffic/sites", b.key, "").Want(t, http.StatusOK)
		if strings.Contains(string(list.Raw), "kis_") {
			t.Errorf("a secret in the site list: %s", list.Raw)
		}
	})
}

func TestEachProgramsRealOutputIsAccepted(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "")
		for _, c := range []struct {
			file, contentType string
			gz                bool
			accepted, crawler int64
		}{
			// nginx: GPTBot, ClaudeBot, PerplexityBot, Googlebot (a bot), two visits, one odd agent.
			{"nginx-combined.log", "text/plain", false, 7, 3},
			{"apache-combined.log", "text/plain; charset=utf-8", false, 4, 2},
			{"caddy-access.ndjson", "application/x-ndjson", false, 3, 2},
			{"caddy-access.ndjson", "text/plain", false, 3, 2},
			{"cloudflare-logpush.ndjson", "application/x-ndjson", true, 3, 2},
			{"herald-lines.json", "application/json", false, 2, 1},
		} {
			body, err := os.ReadFile("logs/testdata/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			r := b.post(t, "", c.contentType, b.secret, body, c.gz).Want(t, http.StatusOK).Body
			if num(r["accepted"]) != c.accepted || num(r["rejected"]) != 0 || num(r["crawlerHits"]) != c.crawler {
				t.Errorf("%s: %v", c.file, r)
			}
		}
		b.post(t, "", "application/xml", b.secret, []byte("<x/>"), false).Want(t, http.StatusBadRequest)
		b.post(t, "", "text/plain", b.secret, []byte("  \n"), false).Want(t, http.StatusBadRequest)
	})
}

func TestLinesForAnotherHostAndBadLinesAreRejectedAndNotStored(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "")
		now := time.Now().UTC().Format(time.RFC3339)
		body := fmt.Sprintf(`[{"time":%q,"host":"example.com","path":"/ok","userAgent":%q,"ip":"20.171.207.130"},
			{"time":%q,"host":"blog.example.com","path":"/sub","userAgent":%q,"ip":"20.171.207.130"},
			{"time":%q,"host":"evil.test","path":"/x","userAgent":%q,"ip":"20.171.207.130"},
			{"time":%q,"host":"notexample.com","path":"/y","userAgent":%q,"ip":"20.171.207.130"},
			{"time":"yesterday","path":"/z","userAgent":%q},
			{"time":"2099-01-01T00:00:00Z","path":"/future","userAgent":%q}]`,
			now, gptbotUA, now, gptbotUA, now, gptbotUA, now, gptbotUA, gptbotUA, gptbotUA)
		r := b.post(t, "", "application/json", b.secret, []byte(body), false).Want(t, http.StatusOK).Body
		reasons := fmt.Sprint(r["reasons"])
		if num(r["accepted"]) != 2 || num(r["rejected"]) != 4 || !strings.Contains(reasons, "line 3: host evil.test is not example.com") ||
			!strings.Contains(reasons, "line 4: host notexample.com") || !strings.Contains(reasons, "line 5: time") || !strings.Contains(reasons, "line 6: time") {
			t.Errorf("answer %v", r)
		}
		var paths []string
		storetest.Query(context.Background(), st, func(row store.Row) error {
			var p string
			err := row.Scan(&p)
			paths = append(paths, p)
			return err
		}, `SELECT path FROM crawler_hits ORDER BY path`)
		if fmt.Sprint(paths) != "[/ok /sub]" {
			t.Errorf("stored %v", paths)
		}
		// Over the line cap: 400, nothing stored.
		many := strings.Repeat(clf("20.171.207.130", "/a", gptbotUA)+"\n", traffic.MaxLogLines+1)
		b.post(t, "", "text/plain", b.secret, []byte(many), false).Want(t, http.StatusBadRequest)
		if n := countRows(t, st, "crawler_hits"); n != 2 {
			t.Errorf("%d hits after a refused request", n)
		}
	})
}

func TestVerifiedAndClaimedHitsThroughTheRouteAndStats(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "full")
		lines := strings.Join([]string{
			clf("20.171.207.130", "/a", gptbotUA), // in gptbot.json: verified by range
			clf("198.51.100.9", "/a", gptbotUA),   // spoofed user agent: claimed
			clf("66.249.90.77", "/b", googleUA),   // Google by reverse-then-forward DNS: verified
			clf("203.0.113.50", "/b", googleUA),   // PTR under googlebot.com resolving elsewhere: claimed
			clf("198.51.100.10", "/c", browserUA), // a visit: counted, not stored
		}, "\n")
		r := b.post(t, "", "text/plain", b.secret, []byte(lines), false).Want(t, http.StatusOK).Body
		if num(r["crawlerHits"]) != 4 || num(r["verifiedHits"]) != 2 || num(r["visits"]) != 1 {
			t.Errorf("answer %v", r)
		}
		got := map[string]bool{}
		storetest.Query(context.Background(), st, func(row store.Row) error {
			var ip string
			var v bool
			err := row.Scan(&ip, &v)
			got[ip] = v
			return err
		}, `SELECT ip, verified FROM crawler_hits`)
		want := map[string]bool{"20.171.207.130": true, "198.51.100.9": false, "66.249.90.77": true, "203.0.113.50": false}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("verified per IP %v, want %v", got, want)
		}
		stats := b.stats(t, "siteKey="+b.siteKey())
		totals := stats["totals"].(map[string]any)
		if num(totals["crawlerHits"]) != 2 || num(totals["crawlerHitsClaimed"]) != 2 {
			t.Errorf("totals %v: the card must count verified hits only", totals)
		}
		if n := countRows(t, st, "traffic_events"); n != 0 {
			t.Errorf("%d events from a log visit: visits come from the script only", n)
		}
	})
}

func TestIPsAreStoredAsThePlanAllows(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]string{"": "20.171.207.0/24", "truncated": "20.171.207.0/24", "full": "20.171.207.130", "none": ""} {
		t.Run("mode "+mode, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, st *store.Store) {
				b := logSetup(t, st, 0, mode)
				b.post(t, "", "text/plain", b.secret, []byte(clf("20.171.207.130", "/a", gptbotUA)), false).Want(t, http.StatusOK)
				var ip string
				var verified bool
				storetest.QueryRow(context.Background(), st, `SELECT ip, verified FROM crawler_hits`).Scan(&ip, &verified)
				if ip != want || !verified {
					t.Errorf("mode %q: stored %q (verified %v), want %q", mode, ip, verified, want)
				}
			})
		})
	}
}

func TestOverTheDailyLogCapIs429AndNothingIsWritten(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 3, "")
		two := []byte(clf("20.171.207.130", "/a", gptbotUA) + "\n" + clf("20.171.207.130", "/b", gptbotUA))
		b.post(t, "", "text/plain", b.secret, two, false).Want(t, http.StatusOK)
		r := b.post(t, "", "text/plain", b.secret, two, false).Want(t, http.StatusTooManyRequests)
		if r.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
		if n := countRows(t, st, "crawler_hits"); n != 2 {
			t.Errorf("%d hits: the refused request wrote some", n)
		}
		var lines int64
		storetest.QueryRow(context.Background(), st, `SELECT lines FROM crawler_ingest_days`).Scan(&lines)
		if lines != 2 {
			t.Errorf("%d lines counted, want 2", lines)
		}
	})
}

// A sender that hangs up once its body is sent (a fire-and-forget post)
// still has its lines stored.
func TestLinesOfASenderThatHungUpAreStored(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := logSetup(t, st, 0, "full")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := b.svc.IngestLogs(ctx, traffic.LogBatch{ContentType: "text/plain", Authorization: "Bearer " + b.secret,
			Body: []byte(clf("20.171.207.130", "/gone", gptbotUA))})
		if err != nil || res.CrawlerHits != 1 {
			t.Fatalf("ingest after hang-up: %+v, %v", res, err)
		}
		if n := countRows(t, st, "crawler_hits"); n != 1 {
			t.Fatalf("%d crawler hits stored, want 1", n)
		}
	})
}
