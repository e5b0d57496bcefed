package integration_test

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// A visibility report through the real binary: the site fetched over https
// (its test CA trusted through SSL_CERT_FILE, loopback allowed), the engine
// answered by the real openai plugin subprocess against an OpenAI-compatible
// fake, the job on seoQueue, the report read back over REST.
func TestVisibilityReportThroughTheOpenAIPlugin(t *testing.T) {
	t.Parallel()
	openai := newFakeOpenAI(t, "sk-test")
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		if !strings.HasPrefix(r.Header.Get("User-Agent"), "HeraldBot/") {
			http.Error(w, "who are you", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>Acme | Widgets</title><meta name="description" content="Industrial widgets.">
<script type="application/ld+json">{"@type":"Organization","name":"Acme"}</script></head><body><h1>Widgets</h1></body></html>`)
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

	status, body := call(t, "POST", p.URL+"/v1/ai/generate/seo-site-report", p.Key,
		`{"websiteurl":"`+site.URL+`","competitors":["Globex"],"prompts":["Is Acme a good widget supplier?"]}`)
	if status != 202 || body["jobId"] == nil {
		t.Fatalf("queue: %d %v\n%s", status, body, p.Output())
	}
	jobID := body["jobId"].(string)
	body = waitJob(t, p, jobID, 60*time.Second)
	if body["state"] != "completed" || body["queue"] != "seoQueue" || body["name"] != "seo_site_report" {
		t.Fatalf("job: %v\n%s", body, p.Output())
	}
	reportID := body["result"].(map[string]any)["reportId"]

	status, body = call(t, "GET", p.URL+"/v1/ai/generate/seo-site-report?evidence=true", p.Key, "")
	if status != 200 || body["id"] != reportID {
		t.Fatalf("report: %d %v", status, body)
	}
	// The fake echoes the prompt ("You said: Is Acme ..."): Acme is named
	// first in the one answer of the one default engine (gpt-4o, one
	// route per provider).
	vis := body["scores"].(map[string]any)["aiVisibility"].(map[string]any)
	if vis["score"] != float64(100) || vis["interpretation"] != "strong" {
		t.Fatalf("aiVisibility = %v", vis)
	}
	if providers := vis["providers"].(map[string]any); len(providers) != 1 || providers["gpt-4o"] != float64(100) {
		t.Fatalf("providers = %v", providers)
	}
	answers := body["answers"].([]any)
	a := answers[0].(map[string]any)
	if a["text"] != "You said: Is Acme a good widget supplier?" || a["model"] != "gpt-4o-2026-01-01" {
		t.Fatalf("answer = %v", a)
	}
	asked := false
	openai.mu.Lock()
	for _, req := range openai.requests {
		if req["model"] == "gpt-4o" && strings.Contains(toJSON(req["messages"]), "Is Acme a good widget supplier?") {
			asked = true
		}
	}
	openai.mu.Unlock()
	if !asked {
		t.Fatal("the openai plugin never sent the prompt")
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
