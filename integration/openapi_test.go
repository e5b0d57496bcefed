package integration_test

import (
	"bytes"
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

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/internal/testwait"
)

// oapiClient calls a running herald and checks every request it sends and
// every response it gets (status, content type, body) against the OpenAPI
// document, so that the document cannot drift from the code.
type oapiClient struct {
	t   *testing.T
	p   *harness.Proc
	v   validator.Validator
	ops map[string]bool // "METHOD path" validated
}

func (c *oapiClient) do(method, path, key, body string, header ...string) (int, map[string]any) {
	c.t.Helper()
	return c.call(true, method, path, key, body, header...)
}

// bad sends a request the document rejects (no key, a wrong type) and
// validates only the error response.
func (c *oapiClient) bad(method, path, key, body string) (int, map[string]any) {
	c.t.Helper()
	return c.call(false, method, path, key, body)
}

func (c *oapiClient) call(validRequest bool, method, path, key, body string, header ...string) (int, map[string]any) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.p.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("api-key", key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The validator reads the body: it gets its own copy.
	check, _ := http.NewRequest(method, c.p.URL+path, strings.NewReader(body))
	check.Header = req.Header.Clone()
	if ok, errs := c.v.ValidateHttpRequest(check); validRequest && !ok {
		for _, e := range errs {
			c.t.Errorf("request %s %s does not match the document: %s: %s", method, path, e.Message, e.Reason)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(raw))
	check, _ = http.NewRequest(method, c.p.URL+path, strings.NewReader(body))
	check.Header = req.Header.Clone()
	if ok, errs := c.v.ValidateHttpResponse(check, res); !ok {
		for _, e := range errs {
			c.t.Errorf("response %s %s → %d %s does not match the document: %s: %s", method, path, res.StatusCode, raw, e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				c.t.Errorf("  at %s: %s", se.FieldPath, se.Reason)
			}
		}
	}
	c.ops[fmt.Sprintf("%s %d", method, res.StatusCode)] = true
	var out map[string]any
	json.Unmarshal(raw, &out)
	return res.StatusCode, out
}

func (c *oapiClient) want(status, want int, out map[string]any, what string) {
	c.t.Helper()
	if status != want {
		c.t.Fatalf("%s: %d %v, want %d\n%s", what, status, out, want, c.p.Output())
	}
}

// TestRESTResponsesMatchTheOpenAPIDocument runs a representative call of
// every area through a real herald (real plugins, a fake OpenAI) and
// validates requests, statuses and bodies, errors included, against the
// document the host serves, which must be the committed one.
func TestRESTResponsesMatchTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	openai := newFakeOpenAI(t, "sk-test")
	// The site a visibility report reads, over TLS trusted through SSL_CERT_FILE.
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>Acme | Widgets</title><meta name="description" content="Industrial widgets."></head><body><h1>Widgets</h1></body></html>`)
	}))
	t.Cleanup(site.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: site.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	p := harness.Start(t, harness.Options{Env: withEnv(map[string]string{
		"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": openai.URL + "/v1", "SSL_CERT_FILE": ca,
	})})

	res, err := http.Get(p.URL + "/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(res.Body)
	res.Body.Close()
	committed, err := os.ReadFile(filepath.Join(harness.Root(), "host/internal/openapi/openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !bytes.Equal(served, committed) {
		t.Fatalf("GET /v1/openapi.json (no key): %d, %d bytes; want the committed document (%d bytes)", res.StatusCode, len(served), len(committed))
	}
	doc, err := libopenapi.NewDocument(served)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("document: %s: %s", e.Message, e.Reason)
		}
	}
	c := &oapiClient{t: t, p: p, v: v, ops: map[string]bool{}}
	key := p.Key

	// The page and its vendored script, no CDN.
	for path, want := range map[string]string{"/docs": "text/html", "/docs/redoc.standalone.js": "text/javascript"} {
		res, err := http.Get(p.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), want) {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}

	// Brand voices, and errors (401, 404, 400) against the error schema.
	status, out := c.do("POST", "/v1/ai/generate/brand-voice/text", key, `{"name":"Plain","content":"We write short sentences."}`)
	c.want(status, 201, out, "create voice")
	voiceID := out["data"].(map[string]any)["id"].(string)
	status, out = c.do("GET", "/v1/ai/brand-voice/", key, "")
	c.want(status, 200, out, "list voices")
	c.do("GET", "/v1/ai/brand-voice", key, "")
	status, out = c.do("GET", "/v1/ai/brand-voice/"+voiceID, key, "")
	c.want(status, 200, out, "get voice")
	status, out = c.do("PUT", "/v1/ai/brand-voice/"+voiceID, key, `{"name":"Plainer"}`)
	c.want(status, 200, out, "update voice")
	status, out = c.do("GET", "/v1/ai/brand-voice/nope", key, "")
	c.want(status, 404, out, "unknown voice")
	status, out = c.bad("GET", "/v1/ai/brand-voice/", "", "")
	c.want(status, 401, out, "no key")
	status, out = c.bad("POST", "/v1/ai/generate/brand-voice/text", key, `{"content":7}`)
	c.want(status, 400, out, "bad body")

	// Generation with the fake provider, inline and queued, and the job.
	status, out = c.do("POST", "/v1/ai/generate/text", key, `{"model":"gpt-4o","text":"hello"}`)
	c.want(status, 200, out, "inline text")
	status, out = c.do("POST", "/v1/ai/generate/text", key, `{"model":"gpt-4o","text":"later","useWorker":true}`)
	c.want(status, 202, out, "queued text")
	jobID := out["jobId"].(string)
	jobDone := func(id string) func() bool {
		return func() bool {
			_, out = c.do("GET", "/v1/ai/generate/job/"+id, key, "")
			return out["state"] == "completed" || out["state"] == "failed"
		}
	}
	if testwait.Until(20*time.Second, jobDone(jobID)) != nil {
		t.Fatalf("job never finished: %v", out)
	}
	status, out = c.do("POST", "/v1/ai/generate/image", key, `{"text":"a lighthouse","purpose":"blog"}`)
	c.want(status, 200, out, "image")

	// AI traffic: sites (201, then 200 for the same domain), ensure,
	// stats, the public beacon and script.
	status, out = c.do("POST", "/v1/ai-traffic/sites", key, `{"domain":"acme.test","name":"Acme"}`)
	c.want(status, 201, out, "create site")
	siteKey, _ := out["siteKey"].(string)
	status, out = c.do("POST", "/v1/ai-traffic/sites", key, `{"domain":"acme.test"}`)
	c.want(status, 200, out, "same site")
	status, out = c.do("GET", "/v1/ai-traffic/sites", key, "")
	c.want(status, 200, out, "list sites")
	status, out = c.do("POST", "/v1/ai-traffic/sites/ensure", key, `{}`)
	c.want(status, 200, out, "ensure site")
	status, out = c.do("POST", "/v1/ai-traffic/collect", "", fmt.Sprintf(`{"siteKey":%q,"path":"/pricing","referrer":"https://chatgpt.com/"}`, siteKey))
	c.want(status, 202, out, "collect")
	status, out = c.do("GET", "/v1/ai-traffic/stats?days=7", key, "")
	c.want(status, 200, out, "stats")
	c.do("GET", "/v1/ai-traffic/t.js", "", "")

	// Scheduler, webhooks, destinations.
	status, out = c.do("POST", "/v1/webhooks", key, `{"name":"ci","url":"http://127.0.0.1:1/in"}`)
	c.want(status, 201, out, "create webhook")
	hookID := out["webhook"].(map[string]any)["id"].(string)
	c.do("GET", "/v1/webhooks", key, "")
	status, out = c.do("GET", "/v1/destinations", key, "")
	c.want(status, 200, out, "destinations")
	when := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	status, out = c.do("POST", "/v1/scheduler/create", key, fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"Hello","text":"Body","whenToExport":%q}`, hookID, when))
	c.want(status, 200, out, "create schedule")
	schedID := out["schedule"].(map[string]any)["id"].(string)
	c.do("GET", "/v1/scheduler", key, "")
	status, out = c.do("GET", "/v1/scheduler/"+schedID, key, "")
	c.want(status, 200, out, "get schedule")
	status, out = c.do("DELETE", "/v1/scheduler/"+schedID, key, "")
	c.want(status, 200, out, "cancel schedule")
	status, out = c.do("DELETE", "/v1/webhooks/"+hookID, key, "")
	c.want(status, 200, out, "delete webhook")

	// Content, and visibility before and after a report (with
	// competitors: the history points' flat comp_* fields).
	status, out = c.do("POST", "/v1/ai/generate/calculate-seo-score", key, `{"title":"Widgets","content":"<h1>Widgets</h1><p>Industrial widgets for every plant.</p>","keywords":["widgets"]}`)
	c.want(status, 200, out, "seo score")
	c.do("GET", "/v1/ai/generate/seo-site-report", key, "")
	c.do("GET", "/v1/ai/generate/seo-site-report/history", key, "")
	c.do("GET", "/v1/ai/generate/seo-site-report/one-off", key, "")
	status, out = c.do("POST", "/v1/ai/generate/seo-site-report", key, `{"websiteurl":"`+site.URL+`","competitors":["Globex"],"prompts":["Is Acme a good widget supplier?"]}`)
	c.want(status, 202, out, "queue report")
	reportJob := out["jobId"].(string)
	if testwait.Until(30*time.Second, jobDone(reportJob)) != nil {
		t.Fatalf("report job never finished: %v", out)
	}
	if out["state"] != "completed" {
		t.Fatalf("report job: %v\n%s", out, p.Output())
	}
	status, out = c.do("GET", "/v1/ai/generate/seo-site-report?evidence=true", key, "")
	c.want(status, 200, out, "report")
	status, out = c.do("GET", "/v1/ai/generate/seo-site-report/history", key, "")
	c.want(status, 200, out, "history")

	// The agent's sessions, and a turn through the fake provider.
	status, out = c.do("POST", "/v1/ai/chat/session", key, `{"sessionId":"s-openapi"}`)
	c.want(status, 201, out, "create session")
	status, out = c.do("POST", "/v1/ai/chat/session", key, `{"sessionId":"s-openapi"}`)
	c.want(status, 200, out, "existing session")
	c.do("GET", "/v1/ai/chat/sessions", key, "")
	c.do("GET", "/v1/ai/chat/session", key, "")
	status, out = c.do("GET", "/v1/ai/chat/session/s-openapi", key, "")
	c.want(status, 200, out, "get session")
	c.do("GET", "/v1/ai/generate/assistant/context", key, "")
	status, out = c.do("POST", "/v1/ai/generate/chat", key, `{"model":"gpt-4o","text":"hello"}`)
	c.want(status, 200, out, "chat")

	status, out = c.do("POST", "/v1/ai/generate/chat", key, `{"model":"gpt-4o","text":"hello","sessionId":"s-openapi"}`)
	c.want(status, 200, out, "chat in a session")
	status, out = c.do("DELETE", "/v1/ai/chat/session/s-openapi", key, "")
	c.want(status, 200, out, "delete session")

	status, out = c.do("DELETE", "/v1/ai/brand-voice/"+voiceID, key, "")
	c.want(status, 200, out, "delete voice")
}
