package agent_test

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"slices"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/traffic"
)

func (b *bundle) aiVisits(t *testing.T, n int) {
	t.Helper()
	ctx := context.Background()
	site, _, err := b.traffic.CreateSite(ctx, b.acmeP, traffic.NewSite{Domain: "acme.test", Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		_, err := b.traffic.Collect(ctx, traffic.Beacon{SiteKey: site.SiteKey, Path: "/pricing", Referrer: "https://chatgpt.com/",
			SessionID: fmt.Sprintf("visit-%d", i), UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0"}, "")
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestAMessageAboutTrafficCallsTheToolThenAnswersWithItsNumbers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.aiVisits(t, 3)
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"traffic: how are AI assistants sending visitors?"}`).Want(t, 200)
	d := res.Data(t)
	if d["text"] != "You had 3 AI visits this week." {
		t.Fatalf("text %q: the tool's result did not reach the model", d["text"])
	}
	bs := blocks(t, d["blocks"])
	if got := types(bs); got != "user/text assistant/tool_call tool/tool_result assistant/text" {
		t.Fatalf("blocks %s", got)
	}
	if bs[1]["toolName"] != "get_ai_traffic_stats" || bs[2]["content"].(map[string]any)["aiVisits"] != float64(3) {
		t.Fatalf("tool blocks: %v %v", bs[1], bs[2])
	}
	if d["model"] != "gpt-4o-2026-01-01" || d["usage"].(map[string]any)["totalTokens"] != float64(24) {
		t.Fatalf("model and usage over two rounds: %v %v", d["model"], d["usage"])
	}
	calls := b.fake.calls()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want 2", len(calls))
	}
	var offered []string
	for _, tl := range calls[0].Tools {
		offered = append(offered, tl.Function.Name)
	}
	// Wired: traffic, schedules, voices. Not wired: visibility, SEO, images.
	if want := []string{"get_ai_traffic_stats", "list_schedules", "list_brand_voices", "schedule_content"}; !slices.Equal(offered, want) {
		t.Fatalf("tools offered %v, want %v", offered, want)
	}
	if sid, _ := res.Body["sessionId"].(string); sid == "" || res.Body["message"] == nil {
		t.Fatalf("response: %s", res.Raw)
	}
}

func TestScheduleContentCreatesNothingUntilConfirmedAndExactlyOneAfter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"schedule: {\"exportTo\":\"wordpress\",\"status\":\"draft\",\"title\":\"Launch\",\"content\":\"We launched.\"}"}`).Want(t, 200)
	sid := res.Body["sessionId"].(string)
	var token string
	for _, bl := range blocks(t, res.Data(t)["blocks"]) {
		if bl["type"] == "proposal" {
			token, _ = bl["confirmToken"].(string)
			if bl["action"] != "schedule_content" || bl["args"].(map[string]any)["title"] != "Launch" {
				t.Fatalf("proposal %v", bl)
			}
		}
	}
	if !strings.HasPrefix(token, "ct_") {
		t.Fatalf("no proposal with a confirmToken: %s", res.Raw)
	}
	if list := b.srv.Do(t, "GET", "/v1/scheduler", b.acme, "").Want(t, 200); list.Body["total"] != float64(0) {
		t.Fatalf("a proposal scheduled something: %s", list.Raw)
	}
	// Another user cannot confirm it, and a wrong token confirms nothing.
	b.chat(t, b.mate, fmt.Sprintf(`{"sessionId":%q,"confirm":%q}`, sid, token)).Want(t, 404)
	b.chat(t, b.acme, fmt.Sprintf(`{"sessionId":%q,"confirm":"ct_nope"}`, sid)).Want(t, 404)

	conf := b.chat(t, b.acme, fmt.Sprintf(`{"sessionId":%q,"confirm":%q}`, sid, token)).Want(t, 200)
	if !strings.Contains(conf.Data(t)["text"].(string), "draft to wordpress") {
		t.Fatalf("confirmation: %s", conf.Raw)
	}
	b.chat(t, b.acme, fmt.Sprintf(`{"sessionId":%q,"confirm":%q}`, sid, token)).Want(t, 409)
	list := b.srv.Do(t, "GET", "/v1/scheduler", b.acme, "").Want(t, 200)
	if list.Body["total"] != float64(1) {
		t.Fatalf("want exactly one schedule after confirming (twice): %s", list.Raw)
	}
}

func TestAFailingToolReturnsItsErrorToTheModelNotTheUser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.aiVisits(t, 1)
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"broken: stats for 9999 days"}`).Want(t, 200)
	if text := res.Data(t)["text"].(string); !strings.Contains(text, "days must be between 1 and 365") {
		t.Fatalf("the model was not told the tool's error: %q", text)
	}
	// Tools keep the route's plan rule: the pro plan has no scheduler API.
	res = b.chat(t, b.pro, `{"model":"gpt-4o","text":"schedules: list them"}`).Want(t, 200)
	if text := res.Data(t)["text"].(string); !strings.Contains(text, "needs the business plan") {
		t.Fatalf("list_schedules ran past the plan rule: %q", text)
	}
}

func TestToolRoundsStopAtEightAndTheLastCallMustAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"loop forever"}`).Want(t, 200)
	calls := b.fake.calls()
	// Pinned as a number: 8 rounds offer tools, a 9th must answer.
	if len(calls) != 9 || len(calls[8].Tools) != 0 {
		t.Fatalf("%d model calls (want 9, the last without tools)", len(calls))
	}
	for i, c := range calls[:8] {
		if len(c.Tools) == 0 {
			t.Fatalf("round %d offered no tools", i+1)
		}
	}
	if n := countBlocks(blocks(t, res.Data(t)["blocks"]), "tool_call", "list_brand_voices"); n != 8 {
		t.Fatalf("%d tool calls ran, want 8", n)
	}
	if res.Data(t)["text"] != "Gave up." {
		t.Fatalf("text: %s", res.Raw)
	}
}

func TestAMessageCostsOneCreditAndIsRefusedWhenSpent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.chat(t, b.acme, `{"model":"gpt-4o","text":"hi"}`).Want(t, 200)
	month := b.quota.Month()
	if used, _ := creditstore.New(b.store).CreditsUsed(ctx, b.acmeP.WorkspaceID, month); used != 1 {
		t.Fatalf("credits used %d, want 1", used)
	}
	business, _ := b.plans.Get("business")
	limit := business.MonthlyAICredits
	if _, ok, err := creditstore.New(b.store).ReserveCredits(ctx, b.acmeP.WorkspaceID, month, limit-1, limit); !ok || err != nil {
		t.Fatal("could not spend the rest", err)
	}
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"one more","sessionId":"spent-1"}`).Want(t, 403)
	if !strings.Contains(res.Body["message"].(string), "credit") {
		t.Fatalf("message: %s", res.Raw)
	}
	b.srv.Do(t, "GET", "/v1/ai/chat/session/spent-1", b.acme, "").Want(t, 404)
}

func TestBadMessagesAreRefusedNamingTheField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct{ body, want string }{
		{`{"text":"hi"}`, "model is required"},
		{`{"model":"llama","text":"hi"}`, `unknown model "llama"`},
		{`{"model":"gpt-4o"}`, "text is required"},
		{`{"model":"gpt-4o","text":"hi","sessionId":"a/b"}`, "sessionId must be"},
		{`{"confirm":"ct_x"}`, "sessionId is required with confirm"},
		{`{"model":"gpt-4o","text":"hi","brandVoiceId":"nope"}`, "not found"},
	} {
		res := b.chat(t, b.acme, tc.body)
		if res.Status/100 != 4 || !strings.Contains(fmt.Sprint(res.Body["message"]), tc.want) {
			t.Errorf("%s: %d %s, want a 4xx naming %q", tc.body, res.Status, res.Raw, tc.want)
		}
	}
	if list := b.srv.Do(t, "GET", "/v1/ai/chat/sessions", b.acme, "").Want(t, 200); list.Body["total"] != float64(0) {
		t.Fatalf("refused messages stored sessions: %s", list.Raw)
	}
}

func TestABrandVoiceJoinsTheSystemPromptUnderTheVoiceRules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	v := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.acme, `{"content":"Speak like a lighthouse keeper.","name":"Keeper","scope":"personal"}`).Want(t, 201)
	id := v.Body["data"].(map[string]any)["id"].(string)
	b.chat(t, b.acme, fmt.Sprintf(`{"model":"gpt-4o","text":"hi","brandVoiceId":%q}`, id)).Want(t, 200)
	calls := b.fake.calls()
	system := fmt.Sprint(calls[len(calls)-1].Messages[0]["content"])
	if !strings.Contains(system, "Speak like a lighthouse keeper.") || !strings.Contains(system, `"name":"acme"`) {
		t.Fatalf("system prompt lacks the voice or the workspace context: %s", system)
	}
	// A teammate cannot use another user's personal voice.
	b.chat(t, b.mate, fmt.Sprintf(`{"model":"gpt-4o","text":"hi","brandVoiceId":%q}`, id)).Want(t, 404)
}

func TestAConfirmationTheSchedulerRefusesCanBeRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// The tool runs the scheduler's checks of the request before it
	// proposes: an unknown destination gets no proposal.
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"schedule: {\"exportTo\":\"myspace\",\"status\":\"draft\",\"title\":\"T\"}"}`).Want(t, 200)
	for _, bl := range blocks(t, res.Data(t)["blocks"]) {
		if _, ok := bl["confirmToken"].(string); ok {
			t.Fatalf("a post to an unknown destination was proposed: %s", res.Raw)
		}
	}
	if !strings.Contains(res.Raw, `exportTo \"myspace\" is not a configured destination`) {
		t.Fatalf("the tool's refusal is not the scheduler's message: %s", res.Raw)
	}
	// What only the confirmation checks (the saved webhook) refuses there.
	res = b.chat(t, b.acme, `{"model":"gpt-4o","text":"schedule: {\"exportTo\":\"webhook\",\"webhookId\":\"nope\",\"status\":\"draft\",\"title\":\"T\"}"}`).Want(t, 200)
	sid := res.Body["sessionId"].(string)
	var token string
	for _, bl := range blocks(t, res.Data(t)["blocks"]) {
		if tok, ok := bl["confirmToken"].(string); ok {
			token = tok
		}
	}
	for range 2 { // released after each refusal, so refused again rather than 409
		conf := b.chat(t, b.acme, fmt.Sprintf(`{"sessionId":%q,"confirm":%q}`, sid, token)).Want(t, 400)
		if !strings.Contains(conf.Body["message"].(string), `webhookId "nope" is not a saved webhook`) {
			t.Fatalf("confirmation: %s", conf.Raw)
		}
	}
	if list := b.srv.Do(t, "GET", "/v1/scheduler", b.acme, "").Want(t, 200); list.Body["total"] != float64(0) {
		t.Fatalf("a refused confirmation scheduled: %s", list.Raw)
	}
}

func TestATurnRunsAtMostSixteenToolCallsThenMustAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"flood the tools"}`).Want(t, 200)
	calls := b.fake.calls()
	// 4 calls a round: 4 rounds reach 16, and the 5th offers no tools.
	if len(calls) != 5 || len(calls[4].Tools) != 0 {
		t.Fatalf("%d model calls (want 5, the last without tools)", len(calls))
	}
	if n := countBlocks(blocks(t, res.Data(t)["blocks"]), "tool_call", ""); n != 16 {
		t.Fatalf("%d tool calls ran in one turn, want 16", n)
	}
}

func TestAFailedTurnGivesItsCreditBackAndStoresNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.chat(t, b.acme, `{"model":"gpt-4o","text":"hi","sessionId":"s-1"}`).Want(t, 200)
	if used := b.creditsUsed(t); used != 1 {
		t.Fatalf("credits used %d after one answered message, want 1", used)
	}
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"fail: the provider refuses","sessionId":"s-1"}`)
	if res.Status/100 != 4 {
		t.Fatalf("status %d: %s", res.Status, res.Raw)
	}
	if used := b.creditsUsed(t); used != 1 {
		t.Fatalf("credits used %d after a failed turn, want 1: its credit was not given back", used)
	}
	b.chat(t, b.acme, `{"model":"gpt-4o","text":"fail again","sessionId":"s-2"}`)
	if used := b.creditsUsed(t); used != 1 {
		t.Fatalf("credits used %d after a failed first turn, want 1", used)
	}
	b.srv.Do(t, "GET", "/v1/ai/chat/session/s-2", b.acme, "").Want(t, 404)
	sess := b.srv.Do(t, "GET", "/v1/ai/chat/session/s-1", b.acme, "").Want(t, 200)
	if bs := blocks(t, sess.Body["blocks"]); len(bs) != 2 {
		t.Fatalf("session s-1 holds %d blocks, want the 2 of the answered message", len(bs))
	}
}
