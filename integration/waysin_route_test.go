package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// routeSite starts a real herald, creates a site for example.com and
// returns the process, the site key and the ingest secret shown at
// creation.
func routeSite(t *testing.T) (*harness.Proc, string, string) {
	t.Helper()
	p := harness.Start(t, harness.Options{})
	status, site := call(t, "POST", p.URL+"/v1/ai-traffic/sites", p.Key, `{"domain":"example.com"}`)
	if status != 201 {
		t.Fatalf("create site: %d %v", status, site)
	}
	secret, _ := site["ingestSecret"].(string)
	if secret == "" {
		t.Skip("this build's site has no ingest secret: the log route is not in it")
	}
	return p, site["siteKey"].(string), secret
}

// crawlerTotals reads the site's stats: AI crawler hits verified (the
// card's figure) and claimed.
func crawlerTotals(t *testing.T, p *harness.Proc, siteKey string) (verified, claimed string) {
	t.Helper()
	status, stats := call(t, "GET", p.URL+"/v1/ai-traffic/stats?days=7&siteKey="+siteKey, p.Key, "")
	if status != 200 {
		t.Fatalf("stats: %d %v", status, stats)
	}
	totals, _ := stats["totals"].(map[string]any)
	str := func(v any) string {
		if v == nil {
			return "0"
		}
		return fmt.Sprint(v)
	}
	return str(totals["crawlerHits"]), str(totals["crawlerHitsClaimed"])
}

// The addresses are 127.0.0.1, which no operator publishes and whose
// reverse name is local, so verification asks no outside resolver.

// The real nginx's log, shipped by the real command to the real route:
// the two crawler lines are stored as claimed hits (127.0.0.1 is no
// operator's address), the browser's line is not stored as a hit.
func TestNginxLogThroughTheRoute(t *testing.T) {
	t.Parallel()
	nginx := program(t, "nginx", "nginx")
	p, siteKey, secret := routeSite(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "tmp"), 0o755)
	port := freePort(t)
	conf := filepath.Join(dir, "nginx.conf")
	format := filepath.Join(harness.Root(), "deploy", "nginx", "herald-log-format.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf(nginxConf, dir, format, port)), 0o644)
	startServer(t, port, nil, nginx, "-p", dir, "-c", conf)
	get(t, port, "example.com", "/pricing", uaGPTBot, "")
	get(t, port, "example.com", "/docs", uaClaudeBot, "")
	get(t, port, "www.example.com", "/", uaBrowser, "https://chatgpt.com/")
	log := filepath.Join(dir, "access.log")
	waitFile(t, log, 3)
	ship(t, p.URL, siteKey, writeSecret(t, dir, secret), log, "--state", filepath.Join(dir, "offset"))
	if verified, claimed := crawlerTotals(t, p, siteKey); verified != "0" || claimed != "2" {
		t.Fatalf("crawler hits verified %s, claimed %s; want 0 and 2\n%s", verified, claimed, p.Output())
	}
}

// A record with exactly the Logpush job's fields (deploy/cloudflare),
// posted as Logpush does (NDJSON, gzip, the bearer), is accepted and
// stored as a crawler hit: the job sends every field Herald needs.
func TestCloudflareJobFieldsThroughTheRoute(t *testing.T) {
	t.Parallel()
	p, siteKey, secret := routeSite(t)
	b, err := os.ReadFile(filepath.Join(harness.Root(), "deploy", "cloudflare", "logpush-job.json"))
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		OutputOptions struct {
			FieldNames []string `json:"field_names"`
		} `json:"output_options"`
	}
	if err := json.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	sample := map[string]any{
		"ClientIP": "127.0.0.1", "ClientRequestHost": "example.com", "ClientRequestMethod": "GET",
		"ClientRequestReferer": "", "ClientRequestURI": "/pricing?plan=pro", "ClientRequestUserAgent": uaGPTBot,
		"EdgeResponseStatus": 200, "EdgeStartTimestamp": time.Now().UTC().Format(time.RFC3339),
	}
	record := map[string]any{}
	for _, f := range job.OutputOptions.FieldNames {
		v, ok := sample[f]
		if !ok {
			t.Fatalf("the job asks for %s, which Herald does not read", f)
		}
		record[f] = v
	}
	line, _ := json.Marshal(record)
	dir := t.TempDir()
	log := filepath.Join(dir, "logpush.ndjson")
	os.WriteFile(log, append(line, '\n'), 0o644)
	ship(t, p.URL, siteKey, writeSecret(t, dir, secret), log, "--format", "ndjson", "--state", filepath.Join(dir, "offset"))
	if verified, claimed := crawlerTotals(t, p, siteKey); verified != "0" || claimed != "1" {
		t.Fatalf("crawler hits verified %s, claimed %s after the Logpush record; want 0 and 1\n%s", verified, claimed, p.Output())
	}
}

// The WordPress plugin's report of a GPTBot request, under nginx and
// PHP-FPM, reaches the real route and is stored as a (claimed) crawler hit.
func TestWordPressPluginThroughTheRoute(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	root := wordpressSite(t, port)
	p, siteKey, secret := routeSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	setup := filepath.Join(harness.Root(), "integration", "testdata", "wordpress", "setup.php")
	if out, err := exec.CommandContext(ctx, "php", setup, root, p.URL, siteKey, secret).CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	serveFPM(t, program(t, "nginx", "nginx"), phpFPM(t), root, port)
	req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://127.0.0.1:%d/?p=1", port), nil)
	req.Host = fmt.Sprintf("example.com:%d", port)
	req.Header.Set("User-Agent", uaGPTBot)
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	for {
		if _, claimed := crawlerTotals(t, p, siteKey); claimed == "1" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the route stored no crawler hit from the plugin\n%s", p.Output())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
