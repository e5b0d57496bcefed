package integration_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// TestContentEndToEndThroughTheOpenAIPlugin scores, improves in a brand
// voice and processes a blog post with a generated image through the real
// host, the real openai plugin and a fake OpenAI API.
func TestContentEndToEndThroughTheOpenAIPlugin(t *testing.T) {
	t.Parallel()
	openai := newFakeOpenAI(t, "sk-test")
	p := harness.Start(t, harness.Options{Env: map[string]string{
		"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": openai.URL + "/v1",
	}})

	status, body := call(t, "POST", p.URL+"/v1/ai/generate/calculate-seo-score", p.Key, `{"content":"# Garden tools\n\nGood garden tools last for years.","keywords":["garden tools"]}`)
	if status != 200 || body["data"].(map[string]any)["seo"].(map[string]any)["keyphrase"] != "garden tools" {
		t.Fatalf("seo score: %d %v\n%s", status, body, p.Output())
	}

	status, body = call(t, "POST", p.URL+"/v1/ai/generate/brand-voice/text", p.Key, `{"content":"We write short, warm sentences.","name":"Warm"}`)
	if status != 201 {
		t.Fatalf("voice: %d %v", status, body)
	}
	voiceID := body["data"].(map[string]any)["id"].(string)
	status, body = call(t, "POST", p.URL+"/v1/ai/generate/improve-content-simple", p.Key,
		`{"content":"Some text.","improvePrompt":"Shorter","model":"gpt-4o","brandVoiceId":"`+voiceID+`"}`)
	if status != 200 {
		t.Fatalf("improve: %d %v", status, body)
	}
	data := body["data"].(map[string]any)
	if !strings.HasPrefix(data["content"].(string), "You said: Instructions:\nShorter") || data["brandVoice"].(map[string]any)["name"] != "Warm" || data["model"] != "gpt-4o-2026-01-01" {
		t.Fatalf("improve data: %v", data)
	}
	openai.mu.Lock()
	sent, _ := json.Marshal(openai.requests[len(openai.requests)-1]["messages"])
	openai.mu.Unlock()
	if !strings.Contains(string(sent), "We write short, warm sentences.") || !strings.Contains(string(sent), `"role":"system"`) {
		t.Fatalf("the voice did not reach the system message: %s", sent)
	}

	status, body = call(t, "POST", p.URL+"/v1/ai/generate/process-blog-post-with-images", p.Key,
		`{"title":"Garden tools","content":"# Garden tools\n\nGood garden tools last for years.","model":"gpt-4o"}`)
	if status != 202 || body["jobId"] == nil {
		t.Fatalf("blog: %d %v", status, body)
	}
	jobID := body["jobId"].(string)
	body = waitJob(t, p, jobID, 30*time.Second)
	if body["state"] != "completed" || body["queue"] != "contentQueue" {
		t.Fatalf("blog job: %v\n%s", body, p.Output())
	}
	res := body["result"].(map[string]any)
	img := res["images"].([]any)[0].(map[string]any)
	url := img["url"].(string)
	if !strings.Contains(res["content"].(string), "![Illustration: Garden tools]("+url+")") || !strings.HasPrefix(url, p.URL+"/v1/blobs/") {
		t.Fatalf("blog result: %v", res)
	}
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || !bytes.Equal(got, tinyPNG) {
		t.Fatalf("hosted blog image: %d", r.StatusCode)
	}
}
