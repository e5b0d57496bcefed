package dashboard_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// gapQuestion is a buyer's question both scripted engines answer with a
// competitor and not Acme: the tracker's gap.
const gapQuestion = "Which company makes the best industrial widgets for factories in Europe?"

// TestAGapWrittenScoredAndScheduledWithItsTargets: a tracker whose run
// has a gap → "Write for this gap" opens the content editor with a short
// keyphrase taken from the gap's question (not the question) → its "Write
// for this gap" card runs the draft route (the scripted writer: a thin
// first round, a full post when asked to improve it) → every round's
// score is shown, as the scorer scores each version, and the editor holds
// the draft → "Send to the post form" → the form shows the gap's targets
// with "measure its impact" checked → the post the server stores carries
// the tracker and the gap's prompts.
func TestAGapWrittenScoredAndScheduledWithItsTargets(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	b.call(t, "POST", "/v1/ai/generate/brand-voice/text", `{"name":"Plain","content":"We write plainly. Short sentences. No jargon."}`, 201)
	voices := b.call(t, "GET", "/v1/ai/brand-voice/", "", 200)["data"].([]any)
	if len(voices) != 1 {
		t.Fatalf("voices: %v", voices)
	}
	voiceID := voices[0].(map[string]any)["id"].(string)
	// Two saved webhooks: the draft's picker chooses neither for the user.
	for _, name := range []string{"Launch channel", "Archive"} {
		b.call(t, "POST", "/v1/webhooks", fmt.Sprintf(`{"url":"http://127.0.0.1:9/%s","name":%q}`, strings.ToLower(name[:1]), name), 201)
	}
	p := open(t, b, 1280, 900)
	p.signIn("#/trackers")

	// A tracker on the one question, created and run from the page.
	p.run("suggest",
		chromedp.WaitVisible(chromedp.CSS("#tracker-website")),
		chromedp.SendKeys(chromedp.CSS("#tracker-website"), "https://example.com"),
		chromedp.Click(chromedp.CSS("#tracker-suggest")),
		chromedp.WaitVisible(chromedp.CSS("#prompts-list input")))
	p.run("the gap's question",
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#prompts-list button').forEach((b) => b.click())`),
		chromedp.Click(chromedp.CSS("#prompts-add")),
		chromedp.SendKeys(chromedp.CSS("#prompts-list li:nth-child(1) input"), gapQuestion),
		chromedp.Click(chromedp.CSS("#tracker-save")))
	p.until("the first run completes", `document.querySelectorAll('#trend-engines figure[data-rendered="true"]').length === 2`)
	trackers := b.call(t, "GET", "/v1/visibility/trackers", "", 200)["trackers"].([]any)
	if len(trackers) != 1 {
		t.Fatalf("%d trackers, want 1", len(trackers))
	}
	trackerID := trackers[0].(map[string]any)["id"].(string)
	brief := b.call(t, "POST", "/v1/visibility/trackers/"+trackerID+"/brief", `{}`, 200)["brief"].(map[string]any)
	targets := brief["targetPrompts"].([]any)
	if len(targets) != 1 {
		t.Fatalf("the brief's targets: %v", brief)
	}

	// Write for this gap: the editor opens on the gap with a short keyphrase.
	p.run("write for this gap",
		chromedp.WaitVisible(chromedp.CSS("#write-gap")),
		chromedp.Click(chromedp.CSS("#write-gap")),
		chromedp.WaitVisible(chromedp.CSS("#gap-draft")))
	const keyphrase = "industrial widgets for factories"
	if got := eval[string](t, p.ctx, `document.getElementById('content-keyphrase').value`); got != keyphrase {
		t.Fatalf("keyphrase proposed for the gap %q, want %q", got, keyphrase)
	}
	if got := eval[string](t, p.ctx, `document.getElementById('content-title').value`); got != gapQuestion {
		t.Fatalf("title %q, want the gap's question", got)
	}
	if got := p.text("#gap-draft"); !strings.Contains(got, "targets 1 prompt(s)") {
		t.Fatalf("the card does not say what the post targets: %q", got)
	}
	p.until("the pickers load", fmt.Sprintf(`!!document.querySelector('#gap-voice option[value=%q]') && !!document.querySelector('#gap-export option[value="wordpress"]')`, voiceID))

	// A webhook export with no webhook chosen is refused on the page,
	// before the request (a draft costs credits).
	p.until("the webhooks load", `document.querySelectorAll('#gap-webhook option').length === 3`)
	p.run("a draft to no webhook",
		selectValue("#gap-voice", voiceID),
		selectValue("#gap-export", "webhook"),
		chromedp.Click(chromedp.CSS("#gap-draft-run")))
	p.until("the page asks for the webhook", `document.getElementById('gap-draft-result').textContent === 'Choose the webhook the post goes to.' && document.getElementById('gap-webhook').value === ''`)

	// The scores the scorer gives the two versions the writer writes.
	scoreOf := func(content string) int {
		title, body, _ := strings.Cut(content, "\n")
		req := fmt.Sprintf(`{"content":%q,"title":%q,"keywords":[%q]}`, strings.TrimSpace(body), strings.TrimPrefix(title, "# "), keyphrase)
		return int(b.call(t, "POST", "/v1/ai/generate/calculate-seo-score", req, 200)["data"].(map[string]any)["score"].(float64))
	}
	first, second := scoreOf("# Widgets\n\nWe make them."), scoreOf(improvedText)
	if first >= second {
		t.Fatalf("the scripted rounds do not improve: %d then %d", first, second)
	}
	p.run("run the draft",
		selectValue("#gap-voice", voiceID),
		selectValue("#gap-export", "wordpress"),
		chromedp.SetValue(chromedp.CSS("#gap-min-score"), fmt.Sprint(second)),
		chromedp.Click(chromedp.CSS("#gap-draft-run")),
		chromedp.WaitVisible(chromedp.CSS("#gap-to-post")))
	rounds := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#gap-draft-result tbody tr')].map((r) => [...r.children].slice(0, 2).map((c) => c.textContent).join(':'))`)
	if want := []string{fmt.Sprintf("1:%d", first), fmt.Sprintf("2:%d", second)}; strings.Join(rounds, ",") != strings.Join(want, ",") {
		t.Fatalf("rounds shown %v, want %v", rounds, want)
	}
	if got := p.text("#gap-draft-result"); !strings.Contains(got, fmt.Sprintf("reached %d in 2 round(s) (2 AI credit(s))", second)) {
		t.Fatalf("draft result: %q", got)
	}
	_, improvedBody, _ := strings.Cut(improvedText, "\n")
	p.until("the editor holds the draft, scored", fmt.Sprintf(`document.getElementById('content-title').value === 'Industrial widgets for factories' && document.getElementById('content-text').value === %q && document.querySelector('#score-overall .stat-value')?.textContent === %q`,
		strings.TrimSpace(improvedBody), fmt.Sprint(second)))
	if n := b.call(t, "GET", "/v1/scheduler", "", 200)["total"]; n != float64(0) {
		t.Fatalf("the draft scheduled %v posts before the post form", n)
	}
	p.shot("gap-draft", true)
	p.accessible("content with a gap's draft")

	// The post form: the gap's targets, measured; the stored post has them.
	p.run("send to the post form", chromedp.Click(chromedp.CSS("#gap-to-post")),
		chromedp.WaitVisible(chromedp.CSS("#post-targets")))
	form := eval[struct {
		Title, Dest, Targets string
		Measure, Draft       bool
	}](t, p.ctx, `({Title: document.getElementById('title').value, Dest: [...document.getElementById('exportTo').selectedOptions].map((o) => o.value).join(','),
		Targets: document.getElementById('post-targets').textContent, Measure: document.getElementById('measure-impact').checked, Draft: document.getElementById('draft').checked})`)
	if form.Title != "Industrial widgets for factories" || form.Dest != "wordpress" || !form.Measure || !form.Draft || !strings.Contains(form.Targets, "measure its impact on 1 target prompt(s)") {
		t.Fatalf("post form: %+v", form)
	}
	p.shot("gap-post-form", true)
	p.accessible("post form with a gap's targets")
	p.run("schedule", chromedp.Click(chromedp.CSS("#create-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#schedule-notice .ok")))
	list := b.call(t, "GET", "/v1/scheduler", "", 200)["schedulers"].([]any)
	if len(list) != 1 {
		t.Fatalf("want exactly one schedule, got %v", list)
	}
	sc := b.call(t, "GET", "/v1/scheduler/"+list[0].(map[string]any)["id"].(string), "", 200)["schedule"].(map[string]any)
	if sc["status"] != "draft" || sc["trackerId"] != trackerID || fmt.Sprint(sc["targetPrompts"]) != fmt.Sprint(targets) {
		t.Fatalf("the post the server stored does not carry the gap's targets (tracker %s, prompts %v): %v", trackerID, targets, sc)
	}
	if c := sc["contentToExport"].(map[string]any); c["title"] != "Industrial widgets for factories" || c["content"] != strings.TrimSpace(improvedBody) {
		t.Fatalf("the stored post is not the draft: %v", c)
	}
	if got := eval[string](t, p.ctx, `sessionStorage.getItem('herald.gapTargets') || ''`); got != "" {
		t.Fatalf("the gap's targets outlive the post: %s", got)
	}
}
