package dashboard_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// click dispatches a change event after setting a select's value.
func selectValue(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.SetValue(chromedp.CSS(sel), value),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new Event('change'))`, sel)))
}

// TestAReportRunFromThePageShowsItsEvidence: website → suggestions (the
// plan's prompt limit shown) → prompts edited → run, followed through the
// job → the report with the mentions marked in each answer; a refresh,
// then the plan's limit as a 429 with its Retry-After counting down; a
// one-off listed apart.
func TestAReportRunFromThePageShowsItsEvidence(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	p := open(t, b, 1280, 900)
	p.signIn("#/visibility")
	p.run("suggest",
		chromedp.WaitVisible(chromedp.CSS("#no-report")),
		chromedp.SendKeys(chromedp.CSS("#vis-website"), "https://example.com"),
		chromedp.Click(chromedp.CSS("#prefill-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#prompts-list input")))
	if got := p.text("#prompts-count"); !strings.Contains(got, "of at most 3 prompts") {
		t.Fatalf("the plan's prompt limit is not shown: %q", got)
	}
	comps := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#competitors-list input')].map((x) => x.value)`)
	if strings.Join(comps, ",") != "Globex Corp,Initech" {
		t.Fatalf("suggested competitors: %v", comps)
	}
	p.shot("visibility-prefill", true)
	p.accessible("visibility prefill")
	// Keep two prompts: remove every suggestion, add ours.
	p.run("edit the prompts",
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#prompts-list button').forEach((b) => b.click())`),
		chromedp.Click(chromedp.CSS("#prompts-add")),
		chromedp.SendKeys(chromedp.CSS("#prompts-list li:nth-child(1) input"), "best widget supplier"),
		chromedp.Click(chromedp.CSS("#prompts-add")),
		chromedp.SendKeys(chromedp.CSS("#prompts-list li:nth-child(2) input"), "widgets for factories"),
		// Record whether the job's progress was shown while it ran.
		chromedp.Evaluate[chromedp.Void](`window.sawProgress = false; new MutationObserver(() => {
			if (document.querySelector('#report-progress progress')) window.sawProgress = true;
		}).observe(document.body, {subtree: true, childList: true})`),
		chromedp.Click(chromedp.CSS("#run-report")))
	// 2 prompts × 2 engines × 3 samples (the plan's report_samples).
	p.until("the report is shown", `document.querySelector('#evidence h2')?.textContent === 'Evidence (12 answers)'`)
	if !eval[bool](t, p.ctx, `window.sawProgress`) {
		t.Fatal("the job's progress was never shown")
	}
	marks := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#evidence mark')].map((m) => m.className + ':' + m.textContent)`)
	joined := strings.Join(marks, ",")
	for _, want := range []string{"m-self:Acme", "m-comp:Globex Corp", "m-comp:Initech"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("evidence marks %v lack %s", marks, want)
		}
	}
	report := b.call(t, "GET", "/v1/ai/generate/seo-site-report", "", 200)
	want := fmt.Sprintf("%.1f", report["scores"].(map[string]any)["aiVisibility"].(map[string]any)["score"])
	if got := p.text("#stat-visibility .stat-value"); got != want {
		t.Fatalf("visibility card %q, API %s", got, want)
	}
	if n := eval[int](t, p.ctx, `document.querySelectorAll('#engines .bars li').length`); n != 2 {
		t.Fatalf("%d engine bars, want 2", n)
	}
	p.shot("visibility-report", true)
	p.accessible("visibility report")

	p.run("refresh once", chromedp.Click(chromedp.CSS("#refresh-report")))
	p.until("the refreshed report", `/0 of 1 refreshes left/.test(document.getElementById('refresh-rule')?.textContent || '')`)
	p.run("refresh beyond the plan", chromedp.Click(chromedp.CSS("#refresh-report")),
		chromedp.WaitVisible(chromedp.CSS("#retry-countdown")))
	if got := p.text("#retry-countdown"); !strings.Contains(got, "Next refresh possible in") || !strings.Contains(got, " h ") {
		t.Fatalf("countdown: %q", got)
	}
	if disabled := eval[bool](t, p.ctx, `document.getElementById('refresh-report').disabled`); !disabled {
		t.Fatal("refresh stays enabled during the countdown")
	}
	p.shot("visibility-refresh-limit", false)

	p.run("a one-off",
		chromedp.Click(chromedp.CSS("#new-report summary")),
		chromedp.SetValue(chromedp.CSS("#vis-website"), "https://example.com"),
		chromedp.Click(chromedp.CSS("#prefill-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#vis-oneoff")),
		chromedp.Click(chromedp.CSS("#vis-oneoff")),
		chromedp.Click(chromedp.CSS("#run-report")))
	p.until("the one-off is shown and listed", `!!document.querySelector('#oneoff-view h3') && document.querySelectorAll('#oneoffs > .table-wrap tbody tr').length === 1`)
	if got := len(b.call(t, "GET", "/v1/ai/generate/seo-site-report/history", "", 200)["points"].([]any)); got != 2 {
		t.Fatalf("history has %d points; the one-off must not be one", got)
	}
	p.shot("visibility-oneoff", true)
}

// TestAWordPressConnectionRefusedThenAcceptedAndAWebhookCreatedTestedDeleted:
// the form comes from the plugin's declared credentials; a wrong password
// is refused with WordPress's answer and nothing is stored; the right one
// is stored with its check. A webhook is created (secret shown once),
// tested (the receiver's refusal, then a delivery), and deleted: 409 with
// the pending post listed, then forced.
func TestAWordPressConnectionRefusedThenAcceptedAndAWebhookCreatedTestedDeleted(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	wp := scheduletest.NewFakeWordPress(t)
	rc := scheduletest.NewReceiver(t, 400)
	p := open(t, b, 1280, 900)
	p.signIn("#/destinations")
	p.run("the form", chromedp.WaitVisible(chromedp.CSS("#dest-form-wordpress")))
	if typ := eval[string](t, p.ctx, `document.getElementById('cred-wordpress-application_password').type`); typ != "password" {
		t.Fatalf("the application password is not masked: %s", typ)
	}
	if card := p.text("#dest-wordpress"); !strings.Contains(card, "Application password") || !strings.Contains(card, "Users → Profile → Application Passwords") {
		t.Fatalf("labels and descriptions of the declared credentials: %q", card)
	}
	p.run("a wrong password",
		chromedp.SendKeys(chromedp.CSS("#cred-wordpress-site_url"), wp.Srv.URL),
		chromedp.SendKeys(chromedp.CSS("#cred-wordpress-username"), scheduletest.WPUser),
		chromedp.SendKeys(chromedp.CSS("#cred-wordpress-application_password"), "wrong password"),
		chromedp.Click(chromedp.CSS("#dest-form-wordpress button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#dest-status-wordpress .error")))
	if got := p.text("#dest-status-wordpress"); !strings.Contains(got, "invalid application password") {
		t.Fatalf("refusal shown: %q", got)
	}
	if wpEntry(t, b)["connected"] == true {
		t.Fatal("refused credentials were stored")
	}
	p.shot("destinations-refused", true)
	p.run("the right password",
		chromedp.Evaluate[chromedp.Void](`document.getElementById('cred-wordpress-application_password').value = ''`),
		chromedp.SendKeys(chromedp.CSS("#cred-wordpress-application_password"), scheduletest.WPPassword),
		chromedp.Click(chromedp.CSS("#dest-form-wordpress button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#dest-status-wordpress .ok")),
		chromedp.WaitVisible(chromedp.CSS(`#dest-wordpress [data-last-check="ok"]`)))
	if e := wpEntry(t, b); e["connected"] != true {
		t.Fatalf("accepted credentials not stored: %v", e)
	}
	if got := p.text("#dest-wordpress"); !strings.Contains(got, "accepted") || !strings.Contains(got, "connected") {
		t.Fatalf("connected card: %q", got)
	}
	p.shot("destinations-connected", true)
	p.accessible("destinations")

	p.run("create a webhook",
		chromedp.SendKeys(chromedp.CSS("#webhook-url"), rc.URL+"/in"),
		chromedp.SendKeys(chromedp.CSS("#webhook-name"), "Launch hook"),
		chromedp.Click(chromedp.CSS("#webhook-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#webhook-secret")))
	if secret := p.text("#webhook-secret"); !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown: %q", secret)
	}
	hooks := b.call(t, "GET", "/v1/webhooks", "", 200)["webhooks"].([]any)
	if len(hooks) != 1 {
		t.Fatalf("webhooks: %v", hooks)
	}
	hook := hooks[0].(map[string]any)["id"].(string)
	p.shot("webhook-created", true)
	p.run("test: the receiver refuses", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-test-webhook=%q]`, hook))),
		chromedp.WaitVisible(chromedp.CSS("#webhook-test-result.error")))
	if got := p.text("#webhook-test-result"); !strings.Contains(got, "400") {
		t.Fatalf("the receiver's answer is not shown: %q", got)
	}
	p.run("test: delivered", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-test-webhook=%q]`, hook))),
		chromedp.WaitVisible(chromedp.CSS("#webhook-test-result.ok")))
	if d := rc.Deliveries(); len(d) != 2 || !strings.HasPrefix(d[1].ID, "test_") || !strings.Contains(p.text("#webhook-test-result"), d[1].ID) {
		t.Fatalf("deliveries %+v, shown %q", d, p.text("#webhook-test-result"))
	}
	sc := b.call(t, "POST", "/v1/scheduler/create", fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"Later","whenToExport":%q}`, hook, scheduletest.In(30*24*time.Hour)), 200)["schedule"].(map[string]any)["id"].(string)
	p.run("delete: in use", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-delete-webhook=%q]`, hook))),
		chromedp.WaitVisible(chromedp.CSS("#webhook-in-use")))
	if got := p.text("#webhook-in-use"); !strings.Contains(got, sc) {
		t.Fatalf("the 409's pending posts are not listed: %q", got)
	}
	p.shot("webhook-in-use", true)
	p.run("delete anyway", chromedp.Click(chromedp.CSS("#webhook-force-delete")),
		chromedp.WaitVisible(chromedp.CSS("#webhook-status .ok")))
	if n := len(b.call(t, "GET", "/v1/webhooks", "", 200)["webhooks"].([]any)); n != 0 {
		t.Fatalf("%d webhooks after the forced delete", n)
	}
	if st := b.call(t, "GET", "/v1/scheduler/"+sc, "", 200)["schedule"].(map[string]any)["status"]; st != "failed" {
		t.Fatalf("the pending post is %v after the forced delete", st)
	}
	p.run("disconnect", chromedp.Click(chromedp.CSS("#dest-disconnect-wordpress")),
		chromedp.WaitVisible(chromedp.CSS("#dest-status-wordpress .ok")))
	if wpEntry(t, b)["connected"] == true {
		t.Fatal("still connected after Disconnect")
	}
}

func wpEntry(t *testing.T, b *bundle) map[string]any {
	t.Helper()
	for _, d := range b.call(t, "GET", "/v1/destinations", "", 200)["destinations"].([]any) {
		if m := d.(map[string]any); m["name"] == "wordpress" {
			return m
		}
	}
	t.Fatal("no wordpress destination")
	return nil
}

const originalText = `# Industrial widgets for factories

Acme makes industrial widgets for factories, and those industrial widgets, which are made in our plant in Lyon by people who have been doing this kind of careful work for a very long time, last for many years in the hardest conditions that factories can offer.

Every widget is tested.`

// TestATextScoredAsTypedAndImproved: the editor's text is scored as typed,
// as the API scores it, assessments grouped and rated; an improvement with
// validation shows before/after scores and a diff and can be taken; a blog
// post with images runs as a job and goes to the post form.
func TestATextScoredAsTypedAndImproved(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	p := open(t, b, 1280, 900)
	p.signIn("#/content")
	p.run("type",
		chromedp.WaitVisible(chromedp.CSS("#content-text")),
		chromedp.SendKeys(chromedp.CSS("#content-title"), "Industrial widgets for factories"),
		chromedp.SendKeys(chromedp.CSS("#content-keyphrase"), "industrial widgets"),
		chromedp.SendKeys(chromedp.CSS("#content-text"), originalText))
	scoreOf := func(text string) string {
		body := fmt.Sprintf(`{"content":%q,"title":"Industrial widgets for factories","keywords":["industrial widgets"]}`, text)
		return fmt.Sprint(b.call(t, "POST", "/v1/ai/generate/calculate-seo-score", body, 200)["data"].(map[string]any)["score"])
	}
	before := scoreOf(originalText)
	p.until("scored as the API scores it", fmt.Sprintf(`document.querySelector('#score-overall .stat-value')?.textContent === %q`, before))
	lights := eval[[]string](t, p.ctx, `[...document.querySelectorAll('#assessments-seo li, #assessments-readability li')].map((li) => li.className)`)
	if len(lights) < 4 {
		t.Fatalf("assessments: %v", lights)
	}
	for _, c := range lights {
		if !strings.Contains(c, "rating-good") && !strings.Contains(c, "rating-ok") && !strings.Contains(c, "rating-bad") {
			t.Fatalf("an assessment without a traffic light: %q", c)
		}
	}
	p.shot("content-scored", true)
	p.accessible("content")

	p.run("improve with validation", chromedp.Click(chromedp.CSS("#improve-validated")),
		chromedp.WaitVisible(chromedp.CSS("#improve-diff")))
	after := scoreOf(improvedText)
	if got := p.text("#improve-overall .stat-value"); got != before+" → "+after {
		t.Fatalf("before/after %q, want %s → %s", got, before, after)
	}
	if n := eval[int](t, p.ctx, `document.querySelectorAll('#improve-diff ins').length * document.querySelectorAll('#improve-diff del').length`); n == 0 {
		t.Fatal("the diff shows no change")
	}
	if v := p.text("#improve-validation"); !strings.Contains(v, "Validation") {
		t.Fatalf("validation: %q", v)
	}
	p.shot("content-improved", true)
	p.run("take it", chromedp.Click(chromedp.CSS("#improve-accept")))
	p.until("the editor holds the improved text, scored", fmt.Sprintf(`document.getElementById('content-text').value === %q && document.querySelector('#score-overall .stat-value')?.textContent === %q`, improvedText, after))
	edits := b.engines.count("edit")
	p.run("improve simply", chromedp.Click(chromedp.CSS("#improve-simple")),
		chromedp.WaitVisible(chromedp.CSS("#improve-diff")))
	if b.engines.count("edit") != edits+1 {
		t.Fatal("the simple improvement did not reach the editor model")
	}

	p.run("blog post", chromedp.Click(chromedp.CSS("#blog-run")),
		chromedp.WaitVisible(chromedp.CSS("#blog-result img")))
	if src := eval[string](t, p.ctx, `document.querySelector('#blog-result img').src`); !strings.HasPrefix(src, b.URL+"/v1/blobs/") {
		t.Fatalf("blog image %q", src)
	}
	p.shot("content-blog", true)
	p.accessible("content with a blog post")
	p.run("to the post form", chromedp.Click(chromedp.CSS("#blog-to-post")),
		chromedp.WaitVisible(chromedp.CSS("#post-draft-note")))
	if got := eval[string](t, p.ctx, `document.getElementById('title').value`); got != "Industrial widgets for factories" {
		t.Fatalf("post form title %q", got)
	}
	if got := eval[string](t, p.ctx, `document.getElementById('text').value`); !strings.Contains(got, "Industrial widgets") || !strings.Contains(got, "/v1/blobs/") {
		t.Fatalf("post form text %q", got)
	}
	p.shot("content-to-post", false)
}

// TestAnAgentProposalConfirmedFromItsCard: a streamed reply with its tool
// activity, the proposal as a card that schedules nothing until Confirm,
// exactly one schedule after it (a second confirm is refused), thumbs
// stored.
func TestAnAgentProposalConfirmedFromItsCard(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	hook := b.call(t, "POST", "/v1/webhooks", `{"url":"http://127.0.0.1:9/hook","name":"Launch channel"}`, 201)["webhook"].(map[string]any)["id"].(string)
	p := open(t, b, 1280, 900)
	// Eleven earlier conversations: the list pages by ten.
	for i := range 11 {
		b.call(t, "POST", "/v1/ai/generate/chat", fmt.Sprintf(`{"model":"gpt-4o","text":"Hello number %d"}`, i), 200)
	}
	p.signIn("#/agent")
	p.run("the list pages", chromedp.WaitVisible(chromedp.CSS("#sessions .pager")))
	if got := p.text("#sessions .pager"); !strings.Contains(got, "1–10 of 11") {
		t.Fatalf("pager: %q", got)
	}
	p.run("older", chromedp.Click(chromedp.CSS("#sessions .pager button:last-child")))
	p.until("the 11th conversation", `document.querySelectorAll('#sessions button.session').length === 1 && /11–11 of 11/.test(document.querySelector('#sessions .pager').textContent)`)
	p.run("newer", chromedp.Click(chromedp.CSS("#sessions .pager button:first-child")))
	p.until("the first ten again", `document.querySelectorAll('#sessions button.session').length === 10`)
	p.run("a new conversation", chromedp.Click(chromedp.CSS("#new-chat")))
	// Typed and sent with Enter, as a keyboard user does.
	p.run("ask",
		chromedp.WaitVisible(chromedp.CSS("#chat-input")),
		chromedp.SendKeys(chromedp.CSS("#chat-input"), "Please schedule our launch post to webhook "+hook+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(".proposal .confirm")))
	if tool := eval[string](t, p.ctx, `document.querySelector('#chat-log .tool')?.dataset.tool || ''`); tool != "schedule_content" {
		t.Fatalf("tool activity: %q", tool)
	}
	if reply := p.text("#chat-log .msg-assistant .msg-text"); reply != "I have prepared the post. Confirm the card to schedule it." {
		t.Fatalf("streamed reply: %q", reply)
	}
	if deltas := eval[string](t, p.ctx, `document.getElementById('chat-log').dataset.deltas || '0'`); deltas != "2" {
		t.Fatalf("the reply came in %s streamed pieces, want the engine's 2", deltas)
	}
	// The turn is over (Send is enabled again); nothing is scheduled and
	// the card still waits for the user.
	p.until("the turn ends", `!document.getElementById('chat-send').disabled`)
	if pending := eval[bool](t, p.ctx, `!document.querySelector('.proposal .confirm').disabled && !document.querySelector('.proposal.confirmed')`); !pending {
		t.Fatal("the proposal was acted on without the user")
	}
	if n := b.call(t, "GET", "/v1/scheduler", "", 200)["total"]; n != float64(0) {
		t.Fatalf("a proposal scheduled %v posts", n)
	}
	p.shot("agent-proposal", true)
	p.accessible("agent")
	p.run("thumbs up", chromedp.Click(chromedp.CSS(`.msg-assistant .thumb[data-rating="up"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.msg-assistant .thumb[data-rating="up"][aria-pressed="true"]`)))
	p.run("confirm", chromedp.Click(chromedp.CSS(".proposal .confirm")),
		chromedp.WaitVisible(chromedp.CSS(".proposal.confirmed")))
	list := b.call(t, "GET", "/v1/scheduler", "", 200)
	if list["total"] != float64(1) {
		t.Fatalf("want exactly one schedule, got %v", list)
	}
	sc := list["schedulers"].([]any)[0].(map[string]any)
	if sc["webhookId"] != hook || sc["contentToExport"].(map[string]any)["title"] != "Launch day" {
		t.Fatalf("confirmed schedule: %v", sc)
	}
	p.shot("agent-confirmed", true)

	// The conversation is listed; opened again, its card cannot schedule twice.
	p.run("reopen", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#sessions button.session")),
		chromedp.Click(chromedp.CSS("#sessions li:first-child button.session")),
		chromedp.WaitVisible(chromedp.CSS(".proposal .confirm")))
	p.until("the older blocks loaded", `document.querySelectorAll('#chat-log .proposal').length === 1`)
	if pressed := eval[bool](t, p.ctx, `!!document.querySelector('.msg-assistant .thumb[data-rating="up"][aria-pressed="true"]')`); !pressed {
		t.Fatal("the stored thumbs up is not shown")
	}
	p.run("confirm again", chromedp.Click(chromedp.CSS(".proposal .confirm")),
		chromedp.WaitVisible(chromedp.CSS(".proposal .error")))
	if got := p.text(".proposal .error"); !strings.Contains(got, "already confirmed") {
		t.Fatalf("second confirm: %q", got)
	}
	if n := b.call(t, "GET", "/v1/scheduler", "", 200)["total"]; n != float64(1) {
		t.Fatalf("%v schedules after a second confirm", n)
	}
}

// TestBrandVoicesFromAWebsiteAndAFile: both run as jobs followed on the
// page; the website voice shows its fetch interval and last fetch.
func TestBrandVoicesFromAWebsiteAndAFile(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	p := open(t, b, 1280, 900)
	p.signIn("#/voices")
	p.run("from a website",
		chromedp.WaitVisible(chromedp.CSS("#voice-form")),
		selectValue("#voice-mode", "website"),
		chromedp.SendKeys(chromedp.CSS("#voice-url"), "https://example.com"),
		selectValue("#voice-interval", "weekly"),
		chromedp.Click(chromedp.CSS("#voice-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#voice-last-fetch")))
	if got := p.text("#voice-last-fetch"); !strings.Contains(got, "worked") {
		t.Fatalf("last fetch: %q", got)
	}
	if got := eval[string](t, p.ctx, `document.getElementById('voice-interval-edit').value`); got != "weekly" {
		t.Fatalf("fetch interval shown: %q", got)
	}
	p.shot("voice-website", true)
	p.accessible("voices")
	p.run("from a file",
		selectValue("#voice-mode", "file"),
		chromedp.SendKeys(chromedp.CSS("#voice-file"), "https://example.com/voice.md"),
		chromedp.Click(chromedp.CSS("#voice-form button[type=submit]")))
	p.until("the file voice", `/file · https:\/\/example\.com\/voice\.md/.test(document.getElementById('voice-view').textContent) && /plain words/.test(document.querySelector('#voice-view pre')?.textContent || '')`)
	if n := len(b.call(t, "GET", "/v1/ai/brand-voice/", "", 200)["data"].([]any)); n != 2 {
		t.Fatalf("%d voices", n)
	}
}
