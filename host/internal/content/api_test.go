package content_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/sdk"
)

func jsonBody(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSEOScoreOnBothFaces(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	article, err := os.ReadFile("../seo/testdata/good.md")
	if err != nil {
		t.Fatal(err)
	}
	body := jsonBody(map[string]any{"content": string(article), "keywords": []string{"content calendar"}})
	rest := b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, body).Want(t, 200)
	conn := b.connectCall(t, "CalculateSEOScore", b.alice, body).Want(t, 200)
	// Connect's JSON omits zero values; the rest must agree.
	rd, cd := rest.Data(t), conn.Data(t)
	for _, k := range []string{"score", "seo", "keywords", "assessments", "stats"} {
		if fmt.Sprint(rd[k]) != fmt.Sprint(cd[k]) {
			t.Fatalf("faces differ on %s:\n%v\n%v", k, rd[k], cd[k])
		}
	}
	d := rest.Data(t)
	if d["score"] != float64(91) || len(d["assessments"].([]any)) != 20 {
		t.Fatalf("score %v, %d assessments", d["score"], len(d["assessments"].([]any)))
	}
	kw := d["keywords"].([]any)[0].(map[string]any)
	if kw["keyword"] != "content calendar" || kw["source"] != "given" || kw["count"] != float64(5) || kw["density"] != 1.34 {
		t.Fatalf("keyword %v", kw)
	}
	rdd := d["readability"].(map[string]any)
	if rdd["language"] != "en" || rdd["fleschReadingEase"] == nil || d["stats"].(map[string]any)["words"] != float64(374) {
		t.Fatalf("readability %v, stats %v", rdd, d["stats"])
	}
	a := d["assessments"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "category", "rating", "score", "text"} {
		if _, ok := a[k]; !ok {
			t.Fatalf("assessment lacks %s: %v", k, a)
		}
	}

	// Keywords are extracted unless autoExtractKeywords is false.
	d = b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, jsonBody(map[string]any{"content": string(article)})).Want(t, 200).Data(t)
	if k := d["keywords"].([]any); len(k) == 0 || k[0].(map[string]any)["source"] != "extracted" {
		t.Fatalf("extracted keywords %v", k)
	}
	d = b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, `{"content":"This is the text of the page.","autoExtractKeywords":false}`).Want(t, 200).Data(t)
	if k := d["keywords"].([]any); len(k) != 0 || d["readability"].(map[string]any)["fleschReadingEase"] == nil {
		t.Fatalf("autoExtractKeywords false: %v", d)
	}

	// Word forms match by default; wordForms false matches only the forms typed.
	tools := `{"content":"Pick the right tools. A good tool lasts for years.","keywords":["tool"]%s}`
	for _, c := range []struct {
		field string
		want  float64
	}{{"", 2}, {`,"wordForms":true`, 2}, {`,"wordForms":false`, 1}} {
		d = b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, fmt.Sprintf(tools, c.field)).Want(t, 200).Data(t)
		if n := d["seo"].(map[string]any)["keyphraseCount"]; n != c.want {
			t.Errorf("keyphrase \"tool\" with %q: found %v times, want %v", c.field, n, c.want)
		}
	}
	b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, `{"content":"x","wordForms":"no"}`).WantError(t, 400, "wordForms")

	// The language is detected, or given; its Flesch variant and lights come back.
	de := "Der Redaktionsplan hilft dem Team, weil er die Arbeit ordnet. Außerdem sehen alle, was als Nächstes kommt."
	d = b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, jsonBody(map[string]any{"content": de})).Want(t, 200).Data(t)
	if r := d["readability"].(map[string]any); r["language"] != "de" || r["fleschFormula"] != "Flesch reading ease (Amstad)" || r["rating"] == nil || d["seo"].(map[string]any)["rating"] == nil {
		t.Fatalf("German: %v %v", r, d["seo"])
	}
	d = b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, jsonBody(map[string]any{"content": de, "language": "fr"})).Want(t, 200).Data(t)
	if r := d["readability"].(map[string]any); r["language"] != "fr" {
		t.Fatalf("language fr given: %v", r)
	}
	b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, `{"content":"x","language":"xx"}`).WantError(t, 400, "language")
	b.connectCall(t, "CalculateSEOScore", b.alice, `{"content":"x","language":"xx"}`).WantError(t, 400, "language")

	// Errors name the field, on both faces; no key is 401.
	b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, `{"title":"x"}`).WantError(t, 400, "content is required")
	b.connectCall(t, "CalculateSEOScore", b.alice, `{"title":"x"}`).WantError(t, 400, "content is required")
	b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, `{"content":"x","keywords":["a",""]}`).WantError(t, 400, "keywords[1]")
	b.rest(t, "/v1/ai/generate/calculate-seo-score", b.alice, `{"content":"x","autoExtractKeywords":"yes"}`).WantError(t, 400, "autoExtractKeywords")
	b.rest(t, "/v1/ai/generate/calculate-seo-score", "", `{"content":"x"}`).Want(t, 401)
	b.connectCall(t, "CalculateSEOScore", "", `{"content":"x"}`).Want(t, 401)
}

func TestImproveSimple(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, 3)
		voiceID := b.voice(t, b.aliceP, "Plain", "We write short, warm sentences.", "team")
		b.router.answer = func(req sdk.TextRequest, n int) (string, error) { return "```markdown\nBetter text.\n```", nil }
		body := jsonBody(map[string]any{"content": "Some text.", "improvePrompt": "Make it better", "metricType": "readability", "brandVoiceId": voiceID})
		d := b.rest(t, "/v1/ai/generate/improve-content-simple", b.alice, body).Want(t, 200).Data(t)
		if d["content"] != "Better text." || d["model"] != "gpt-4o-mini-2026" || d["metricType"] != "readability" ||
			d["usage"].(map[string]any)["totalTokens"] != float64(15) || d["brandVoice"].(map[string]any)["id"] != voiceID {
			t.Fatalf("data %v", d)
		}
		req := b.router.textCalls()[0]
		if !strings.Contains(req.System, "We write short, warm sentences.") || !strings.Contains(req.System, "careful editor") ||
			!strings.Contains(req.Prompt, "Make it better") || !strings.Contains(req.Prompt, "Some text.") {
			t.Fatalf("model request %+v", req)
		}
		if n := b.creditsUsed(t, b.aliceP); n != 1 {
			t.Fatalf("credits used %d, want 1", n)
		}

		// Connect face, no voice: data.brandVoice is null.
		c := b.connectCall(t, "ImproveContentSimple", b.alice, `{"content":"x","improvePrompt":"y","model":"gpt-4o"}`).Want(t, 200)
		if d := c.Body["data"].(map[string]any); d["model"] != "gpt-4o-2026" || d["brandVoice"] != nil {
			t.Fatalf("connect data %v", c.Raw)
		}

		// Queued: 202 {message, jobId}; the job's result has the same shape.
		q := b.rest(t, "/v1/ai/generate/improve-content-simple", b.alice, `{"content":"x","improvePrompt":"y","useWorker":true}`).Want(t, 202)
		if len(q.Body) != 2 || q.Body["jobId"] == nil {
			t.Fatalf("queued body %v", q.Body)
		}
		j := b.waitJob(t, b.aliceP.WorkspaceID, q.Body["jobId"].(string))
		if j.State != "completed" || j.Queue != "contentQueue" || j.Result == nil || !strings.Contains(*j.Result, `"content":"Better text."`) {
			t.Fatalf("job %+v", j)
		}
		// Three credits spent: the fourth improvement is refused before any model call.
		calls := len(b.router.textCalls())
		b.rest(t, "/v1/ai/generate/improve-content-simple", b.alice, `{"content":"x","improvePrompt":"y"}`).WantError(t, 403, "credit")
		b.connectCall(t, "ImproveContentSimple", b.alice, `{"content":"x","improvePrompt":"y","useWorker":true}`).WantError(t, 403, "credit")
		if len(b.router.textCalls()) != calls {
			t.Fatal("the model was called without a credit")
		}
	})
}

func TestImproveSimpleRefusesBadInputOtherVoicesAndRefundsFailures(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	foreign := b.voice(t, b.malP, "Other", "other style", "team")
	bobs := b.voice(t, b.bobP, "Bob's", "bob style", "personal")
	for _, face := range []func(string, string) apitest.Response{
		func(key, body string) apitest.Response {
			return b.rest(t, "/v1/ai/generate/improve-content-simple", key, body)
		},
		func(key, body string) apitest.Response { return b.connectCall(t, "ImproveContentSimple", key, body) },
	} {
		face(b.alice, `{"improvePrompt":"y"}`).WantError(t, 400, "content is required")
		face(b.alice, `{"content":"x"}`).WantError(t, 400, "improvePrompt is required")
		face(b.alice, `{"content":"x","improvePrompt":"y","model":"nope"}`).WantError(t, 400, "unknown model")
		face(b.alice, `{"content":"x","improvePrompt":"y","brandVoiceId":"`+foreign+`"}`).WantError(t, 404, foreign)
		face(b.alice, `{"content":"x","improvePrompt":"y","brandVoiceId":"`+bobs+`","useWorker":true}`).WantError(t, 404, bobs)
		face("", `{"content":"x","improvePrompt":"y"}`).Want(t, 401)
	}
	if n := len(b.router.textCalls()); n != 0 || b.creditsUsed(t, b.aliceP) != 0 {
		t.Fatalf("%d model calls, %d credits for refused requests", n, b.creditsUsed(t, b.aliceP))
	}
	// Bob may use his own personal voice (one credit of workspace acme).
	b.rest(t, "/v1/ai/generate/improve-content-simple", b.bob, `{"content":"x","improvePrompt":"y","brandVoiceId":"`+bobs+`"}`).Want(t, 200)

	b.router.answer = func(sdk.TextRequest, int) (string, error) {
		return "", &sdk.Error{Code: sdk.CodeUnavailable, Message: "upstream 502", Retryable: true}
	}
	b.rest(t, "/v1/ai/generate/improve-content-simple", b.alice, `{"content":"x","improvePrompt":"y"}`).WantError(t, 503, "the provider failed")
	q := b.rest(t, "/v1/ai/generate/improve-content-simple", b.alice, `{"content":"x","improvePrompt":"y","useWorker":true}`).Want(t, 202)
	if j := b.waitJob(t, b.aliceP.WorkspaceID, q.Body["jobId"].(string)); j.State != "failed" || !strings.Contains(*j.FailedReason, "the provider failed") || strings.Contains(*j.FailedReason, "upstream 502") {
		t.Fatalf("job %+v", j)
	}
	if n := b.creditsUsed(t, b.aliceP); n != 1 {
		t.Fatalf("credits used %d, want 1 (Bob's): failed improvements must give theirs back", n)
	}
}

// The text route takes brandVoiceId too (package generate), on both faces.
func TestTextGenerationInABrandVoice(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	team := b.voice(t, b.aliceP, "Plain", "We write short, warm sentences.", "team")
	bobs := b.voice(t, b.bobP, "Bob's", "bob style", "personal")
	d := b.rest(t, "/v1/ai/generate/text", b.alice, `{"model":"gpt-4o","text":"hi","brandVoiceId":"`+team+`"}`).Want(t, 200).Data(t)
	if v := d["brandVoice"].(map[string]any); v["id"] != team || v["name"] != "Plain" {
		t.Fatalf("data %v", d)
	}
	if sys := b.router.textCalls()[0].System; !strings.Contains(sys, "We write short, warm sentences.") {
		t.Fatalf("system %q", sys)
	}
	if d := b.rest(t, "/v1/ai/generate/text", b.alice, `{"model":"gpt-4o","text":"hi"}`).Want(t, 200).Data(t); d["brandVoice"] != nil {
		t.Fatalf("no voice asked, got %v", d["brandVoice"])
	}
	b.rest(t, "/v1/ai/generate/text", b.alice, `{"model":"gpt-4o","text":"hi","brandVoiceId":"`+bobs+`"}`).WantError(t, 404, bobs)
	b.rest(t, "/v1/ai/generate/text", b.mallory, `{"model":"gpt-4o","text":"hi","brandVoiceId":"`+team+`","useWorker":true}`).WantError(t, 404, team)
	b.srv.Do(t, "POST", "/herald.api.v1.GenerateService/GenerateText", b.mallory, `{"model":"gpt-4o","text":"hi","brandVoiceId":"`+team+`"}`).WantError(t, 404, team)
	c := b.srv.Do(t, "POST", "/herald.api.v1.GenerateService/GenerateText", b.bob, `{"model":"gpt-4o","text":"hi","brandVoiceId":"`+bobs+`"}`).Want(t, 200)
	if c.Body["data"].(map[string]any)["brandVoice"].(map[string]any)["id"] != bobs {
		t.Fatalf("connect: %s", c.Raw)
	}
}
