package content_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/sdk"
)

const original = `# Garden tools guide

Good garden tools make the work easy. We tested rakes, spades and hoes over one season. See [our tests](/tests) and the [RHS advice](https://www.rhs.org.uk/).

## Choosing garden tools

Pick garden tools with a solid handle. A light tool is easier to use for long hours.`

// faithful keeps the links, headings, keywords and facts.
const faithful = `# Garden tools guide

Good garden tools make the work easy. We tested rakes, spades and hoes for one season. See [our tests](/tests) and the [RHS advice](https://www.rhs.org.uk/).

## Choosing garden tools

Select garden tools with a solid handle. A light tool is easier to use for long hours.`

// unfaithful drops a link and a heading and invents a number and a name.
const unfaithful = `# Garden tools guide

Good garden tools make the work easy. In 2031 we tested 47 rakes with Professor Zanzibar. See [our tests](/tests).

Pick garden tools with a solid handle. A light tool is easier to use.`

func TestImproveWithValidationRetriesOnceWithTheFailures(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	b.router.answer = func(req sdk.TextRequest, n int) (string, error) {
		if n == 1 {
			return unfaithful, nil
		}
		return faithful, nil
	}
	body := jsonBody(map[string]any{"content": original, "keywords": []string{"garden tools"}, "title": "Garden tools guide: choose well"})
	d := b.rest(t, "/v1/ai/generate/improve-content-with-validation", b.alice, body).Want(t, 200).Data(t)
	if d["attempts"] != float64(2) || d["content"] != faithful || d["validation"].(map[string]any)["passed"] != true {
		t.Fatalf("data %v", d)
	}
	if d["before"].(map[string]any)["score"] == nil || d["after"].(map[string]any)["seo"] == nil || d["usage"].(map[string]any)["totalTokens"] != float64(30) {
		t.Fatalf("scores/usage %v", d)
	}
	calls := b.router.textCalls()
	retry := calls[1].Prompt
	for _, want := range []string{"links-preserved", "https://www.rhs.org.uk/", "headings-preserved", "no-new-facts", "2031", "zanzibar", "Previous version", "garden tools"} {
		if !strings.Contains(retry, want) {
			t.Errorf("retry prompt lacks %q:\n%s", want, retry)
		}
	}
	if n := b.creditsUsed(t, b.aliceP); n != 1 {
		t.Fatalf("credits used %d, want 1 for the whole request", n)
	}
}

func TestImproveWithValidationReportsFailedChecks(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	b.router.answer = func(sdk.TextRequest, int) (string, error) { return unfaithful, nil }
	c := b.connectCall(t, "ImproveContentWithValidation", b.alice, jsonBody(map[string]any{"content": original, "keywords": []string{"garden tools"}, "minScore": 95})).Want(t, 200)
	d := c.Body["data"].(map[string]any)
	if d["attempts"] != float64(2) || d["validation"].(map[string]any)["passed"] == true {
		t.Fatalf("data %v", c.Raw)
	}
	failed := map[string]bool{}
	for _, ch := range d["validation"].(map[string]any)["checks"].([]any) {
		m := ch.(map[string]any)
		if m["passed"] != true {
			failed[m["id"].(string)] = true
		}
	}
	for _, id := range []string{"links-preserved", "headings-preserved", "no-new-facts", "min-score"} {
		if !failed[id] {
			t.Errorf("check %s passed; failed: %v", id, failed)
		}
	}
	if failed["keywords-kept"] || failed["length"] {
		t.Errorf("keywords or length flagged wrongly: %v", failed)
	}
	// Length: an answer of a quarter of the words fails the ±30% rule,
	// unless maxLengthChange allows it.
	b.router.answer = func(sdk.TextRequest, int) (string, error) {
		return "# Garden tools guide\n\nGood garden tools help. See [our tests](/tests) and the [RHS advice](https://www.rhs.org.uk/).\n\n## Choosing garden tools\n\nPick solid ones.", nil
	}
	check := func(body string) map[string]bool {
		d := b.rest(t, "/v1/ai/generate/improve-content-with-validation", b.alice, body).Want(t, 200).Data(t)
		out := map[string]bool{}
		for _, ch := range d["validation"].(map[string]any)["checks"].([]any) {
			m := ch.(map[string]any)
			out[m["id"].(string)] = m["passed"] == true
		}
		return out
	}
	if got := check(jsonBody(map[string]any{"content": original})); got["length"] {
		t.Errorf("a 60%% shorter text passed the length check: %v", got)
	}
	if got := check(jsonBody(map[string]any{"content": original, "maxLengthChange": 80})); !got["length"] {
		t.Errorf("maxLengthChange 80 did not allow it: %v", got)
	}
}

func TestImproveWithValidationInputAndJobs(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), 5)
	foreign := b.voice(t, b.malP, "Other", "other style", "team")
	for _, face := range []func(string, string) apitest.Response{
		func(key, body string) apitest.Response {
			return b.rest(t, "/v1/ai/generate/improve-content-with-validation", key, body)
		},
		func(key, body string) apitest.Response {
			return b.connectCall(t, "ImproveContentWithValidation", key, body)
		},
	} {
		face(b.alice, `{"title":"x"}`).WantError(t, 400, "content is required")
		face(b.alice, `{"content":"x","minScore":101}`).WantError(t, 400, "minScore")
		face(b.alice, `{"content":"x","maxLengthChange":0}`).WantError(t, 400, "maxLengthChange")
		face(b.alice, `{"content":"x","brandVoiceId":"`+foreign+`"}`).WantError(t, 404, foreign)
		face("", `{"content":"x"}`).Want(t, 401)
	}
	if len(b.router.textCalls()) != 0 {
		t.Fatal("the model was called for refused requests")
	}
	b.router.answer = func(sdk.TextRequest, int) (string, error) { return faithful, nil }
	q := b.rest(t, "/v1/ai/generate/improve-content-with-validation", b.alice, jsonBody(map[string]any{"content": original, "useWorker": true})).Want(t, 202)
	j := b.waitJob(t, b.aliceP.WorkspaceID, q.Body["jobId"].(string))
	if j.State != "completed" || j.Result == nil || !strings.Contains(*j.Result, `"validation":{"passed":true`) || !strings.Contains(*j.Result, `"attempts":1`) {
		t.Fatalf("job %+v %v", j, *j.Result)
	}
}
