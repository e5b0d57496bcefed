package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/finetunestore"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

func TestSessionsPageTenAtATimeAndBlocksThree(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 12 {
		res := b.srv.Do(t, "POST", "/v1/ai/chat/session", b.acme, fmt.Sprintf(`{"sessionId":"s-%02d"}`, i)).Want(t, 201)
		if res.Body["sessionId"] != fmt.Sprintf("s-%02d", i) || res.Body["session"].(map[string]any)["messageCount"] != float64(0) {
			t.Fatalf("create: %s", res.Raw)
		}
	}
	// Two messages in s-03 (4 blocks) make it the most recent.
	b.chat(t, b.acme, `{"model":"gpt-4o","text":"first question","sessionId":"s-03"}`).Want(t, 200)
	b.chat(t, b.acme, `{"model":"gpt-4o","text":"second","sessionId":"s-03"}`).Want(t, 200)
	calls := b.fake.calls()
	var history []string
	for _, m := range calls[len(calls)-1].Messages[1:] {
		history = append(history, fmt.Sprintf("%s:%v", m["role"], m["content"]))
	}
	if got := strings.Join(history, " | "); got != "user:first question | assistant:Hello world | user:second" {
		t.Fatalf("the session's history was not sent: %s", got)
	}

	page := b.srv.Do(t, "GET", "/v1/ai/chat/sessions", b.acme, "").Want(t, 200)
	list := page.Body["chatHistory"].([]any)
	if len(list) != 10 || page.Body["total"] != float64(12) {
		t.Fatalf("first page: %d sessions of %v", len(list), page.Body["total"])
	}
	first := list[0].(map[string]any)
	if first["sessionId"] != "s-03" || first["title"] != "first question" || first["messageCount"] != float64(4) || first["model"] != "gpt-4o-2026-01-01" {
		t.Fatalf("newest session first, with title and count: %v", first)
	}
	if rest := b.srv.Do(t, "GET", "/v1/ai/chat/sessions?skip=10", b.acme, "").Want(t, 200); len(rest.Body["chatHistory"].([]any)) != 2 {
		t.Fatalf("second page: %s", rest.Raw)
	}

	latest := b.srv.Do(t, "GET", "/v1/ai/chat/session", b.acme, "").Want(t, 200)
	bs := blocks(t, latest.Body["blocks"])
	if latest.Body["sessionId"] != "s-03" || len(bs) != 3 || bs[0]["content"] != "Hello world" || bs[1]["content"] != "second" {
		t.Fatalf("latest session, 3 blocks newest first: %s", latest.Raw)
	}
	more := b.srv.Do(t, "GET", "/v1/ai/chat/session/s-03?skip=3", b.acme, "").Want(t, 200)
	if bs := blocks(t, more.Body["blocks"]); len(bs) != 1 || bs[0]["content"] != "first question" || more.Body["session"].(map[string]any)["sessionId"] != "s-03" {
		t.Fatalf("second block page: %s", more.Raw)
	}
	none := b.srv.Do(t, "GET", "/v1/ai/chat/session", b.other, "").Want(t, 200)
	if v, ok := none.Body["sessionId"]; !ok || v != nil || len(none.Body["blocks"].([]any)) != 0 {
		t.Fatalf("no session: %s", none.Raw)
	}
}

func TestSessionsArePersonal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.chat(t, b.acme, `{"model":"gpt-4o","text":"mine","sessionId":"private-1"}`).Want(t, 200)
	for _, key := range []string{b.mate, b.other} {
		b.srv.Do(t, "GET", "/v1/ai/chat/session/private-1", key, "").Want(t, 404)
		b.srv.Do(t, "DELETE", "/v1/ai/chat/session/private-1", key, "").Want(t, 404)
		b.srv.Do(t, "DELETE", "/v1/ai/chat/chatSession/private-1", key, "").Want(t, 404)
		b.chat(t, key, `{"model":"gpt-4o","text":"let me in","sessionId":"private-1"}`).Want(t, 404)
		b.srv.Do(t, "POST", "/v1/ai/chat/session", key, `{"sessionId":"private-1"}`).Want(t, 409)
		if list := b.srv.Do(t, "GET", "/v1/ai/chat/sessions", key, "").Want(t, 200); list.Body["total"] != float64(0) {
			t.Fatalf("a teammate sees sessions: %s", list.Raw)
		}
	}
	// The owner's own id answers the same session again.
	again := b.srv.Do(t, "POST", "/v1/ai/chat/session", b.acme, `{"sessionId":"private-1"}`).Want(t, 200)
	if again.Body["session"].(map[string]any)["messageCount"] != float64(2) {
		t.Fatalf("create with an own id: %s", again.Raw)
	}
	got := b.srv.Do(t, "GET", "/v1/ai/chat/session/private-1", b.acme, "").Want(t, 200)
	if len(got.Body["blocks"].([]any)) != 2 {
		t.Fatalf("the teammate's attempts changed the session: %s", got.Raw)
	}
	del := b.srv.Do(t, "DELETE", "/v1/ai/chat/session/private-1", b.acme, "").Want(t, 200)
	if del.Body["sessionId"] != "private-1" {
		t.Fatalf("delete: %s", del.Raw)
	}
	b.srv.Do(t, "GET", "/v1/ai/chat/session/private-1", b.acme, "").Want(t, 404)
	b.srv.Do(t, "POST", "/v1/ai/chat/session", b.acme, `{"sessionId":"other-path"}`).Want(t, 201)
	b.srv.Do(t, "DELETE", "/v1/ai/chat/chatSession/other-path", b.acme, "").Want(t, 200)
	b.srv.Do(t, "GET", "/v1/ai/chat/session/other-path", b.acme, "").Want(t, 404)
	b.srv.Do(t, "POST", "/v1/ai/chat/session", b.acme, `{}`).Want(t, 400)
	// A client-made id may be MaxSessionIDChars long, not one more.
	edge := strings.Repeat("s", agent.MaxSessionIDChars)
	b.srv.Do(t, "POST", "/v1/ai/chat/session", b.acme, fmt.Sprintf(`{"sessionId":%q}`, edge)).Want(t, 201)
	b.srv.Do(t, "POST", "/v1/ai/chat/session", b.acme, fmt.Sprintf(`{"sessionId":%q}`, edge+"s")).Want(t, 400)
	// A message may be MaxTextChars long, not one more.
	text := strings.Repeat("w", agent.MaxTextChars)
	b.chat(t, b.acme, fmt.Sprintf(`{"model":"gpt-4o","text":%q}`, text+"w")).Want(t, 400)
	b.chat(t, b.acme, fmt.Sprintf(`{"model":"gpt-4o","text":%q}`, text)).Want(t, 200)
}

func TestTheConnectStreamDeliversDeltasInOrderThenDone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	client := apiv1connect.NewChatServiceClient(http.DefaultClient, b.url)
	req := connect.NewRequest(&apiv1.ChatRequest{Model: "gpt-4o", Text: "hello"})
	req.Header().Set("api-key", b.acme)
	stream, err := client.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	var done *apiv1.ChatReply
	for stream.Receive() {
		ev := stream.Msg()
		if done != nil {
			t.Fatalf("event after done: %v", ev)
		}
		if ev.SessionId == "" {
			t.Fatalf("event without sessionId: %v", ev)
		}
		switch k := ev.Kind.(type) {
		case *apiv1.ChatEvent_TextDelta:
			deltas = append(deltas, k.TextDelta)
		case *apiv1.ChatEvent_Done:
			done = k.Done
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "Hel|lo |world" || done == nil || done.Text != "Hello world" || len(done.Blocks) != 2 {
		t.Fatalf("deltas %q, done %v", deltas, done)
	}

	// Errors arrive as Connect errors.
	bad := connect.NewRequest(&apiv1.ChatRequest{Text: "no model"})
	bad.Header().Set("api-key", b.acme)
	s2, err := client.Chat(context.Background(), bad)
	if err == nil {
		for s2.Receive() {
		}
		err = s2.Err()
	}
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("bad request: %v", err)
	}
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	name string
	data map[string]any
}

func (b *bundle) sse(t *testing.T, body string) (int, []sseEvent) {
	t.Helper()
	req, _ := http.NewRequest("POST", b.url+"/v1/ai/generate/chat", strings.NewReader(body))
	req.Header.Set("api-key", b.acme)
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return res.StatusCode, nil
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	var out []sseEvent
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data); err != nil {
				t.Fatalf("data is not JSON: %q", line)
			}
		case line == "":
			out = append(out, ev)
			ev = sseEvent{}
		}
	}
	return res.StatusCode, out
}

func TestRESTStreamsServerSentEventsWhenAsked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.aiVisits(t, 2)
	status, events := b.sse(t, `{"model":"gpt-4o","text":"traffic: please"}`)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	var names []string
	var text string
	for _, ev := range events {
		names = append(names, ev.name)
		if ev.name == "text_delta" {
			text += ev.data["textDelta"].(string)
		}
	}
	if got := strings.Join(names, " "); got != "tool_call tool_result text_delta text_delta text_delta done" {
		t.Fatalf("events %s", got)
	}
	if text != "You had 2 AI visits this week." || events[0].data["toolCall"].(map[string]any)["toolName"] != "get_ai_traffic_stats" {
		t.Fatalf("events: %v", events)
	}
	done := events[len(events)-1].data
	if done["done"].(map[string]any)["text"] != text || done["sessionId"] == "" {
		t.Fatalf("done: %v", done)
	}
	// A refused request is an ordinary JSON error before any event.
	if status, _ := b.sse(t, `{"model":"gpt-4o"}`); status != 400 {
		t.Fatalf("bad request over SSE: %d", status)
	}
}

func TestContextSummaryHasNullPartsWithoutData(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.srv.Do(t, "GET", "/v1/ai/generate/assistant/context", b.acme, "").Want(t, 200)
	d := res.Data(t)
	for _, k := range []string{"visibility", "traffic"} {
		if v, ok := d[k]; !ok || v != nil {
			t.Fatalf("%s: want null, got %v", k, v)
		}
	}
	if d["workspace"].(map[string]any)["name"] != "acme" || d["credits"].(map[string]any)["used"] != float64(0) || d["schedules"].(map[string]any)["pending"] != float64(0) {
		t.Fatalf("context: %s", res.Raw)
	}
	b.aiVisits(t, 2)
	b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.acme, `{"content":"Plain and warm.","name":"Warm"}`)
	b.chat(t, b.acme, `{"model":"gpt-4o","text":"hi"}`).Want(t, 200)
	d = b.srv.Do(t, "GET", "/v1/ai/generate/assistant/context", b.acme, "").Want(t, 200).Data(t)
	if d["credits"].(map[string]any)["used"] != float64(1) {
		t.Fatalf("credits after one message: %v", d["credits"])
	}
	tr := d["traffic"].(map[string]any)
	if tr["aiVisits"] != float64(2) || tr["days"] != float64(30) || tr["topSources"].([]any)[0].(map[string]any)["source"] != "chatgpt" {
		t.Fatalf("traffic: %v", tr)
	}
}

func TestFeedbackIsStoredCountedAndScopedToTheWorkspace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.chat(t, b.acme, `{"model":"gpt-4o","text":"hi","sessionId":"fb-1"}`).Want(t, 200)
	block := blocks(t, res.Data(t)["blocks"])[1]["id"].(string)
	if res.Body["message"] != "Reply generated" {
		t.Errorf("message %v", res.Body["message"])
	}
	// A comment may be MaxCommentChars long, not one more.
	long := strings.Repeat("c", agent.MaxCommentChars)
	b.srv.Do(t, "POST", "/v1/ai/chat/feedback", b.acme, fmt.Sprintf(`{"sessionId":"fb-1","blockId":%q,"rating":"down","comment":%q}`, block, long+"c")).Want(t, 400)
	b.srv.Do(t, "POST", "/v1/ai/chat/feedback", b.acme, fmt.Sprintf(`{"sessionId":"fb-1","blockId":%q,"rating":"down","comment":%q}`, block, long)).Want(t, 201)
	fb := b.srv.Do(t, "POST", "/v1/ai/chat/feedback", b.acme, fmt.Sprintf(`{"sessionId":"fb-1","blockId":%q,"rating":"up","comment":"nice"}`, block)).Want(t, 201)
	if id, _ := fb.Body["id"].(string); id == "" || fb.Body["message"] == nil {
		t.Fatalf("feedback: %s", fb.Raw)
	}
	got := b.srv.Do(t, "GET", "/v1/ai/chat/session/fb-1", b.acme, "").Want(t, 200)
	if f := blocks(t, got.Body["blocks"])[0]["feedback"].(map[string]any); f["rating"] != "up" || f["comment"] != "nice" {
		t.Fatalf("block feedback: %s", got.Raw)
	}
	b.srv.Do(t, "POST", "/v1/ai/chat/feedback", b.other, fmt.Sprintf(`{"sessionId":"fb-1","blockId":%q,"rating":"up"}`, block)).Want(t, 404)
	b.srv.Do(t, "POST", "/v1/ai/chat/feedback", b.acme, fmt.Sprintf(`{"sessionId":"fb-1","blockId":%q,"rating":"meh"}`, block)).Want(t, 400)
	if n := b.feedbackCount(t, "chat_block", "up"); n != 1 {
		t.Fatalf("herald_feedback_total{chat_block,up} = %v", n)
	}

	// An inline generation carries the id that rates it.
	text := b.srv.Do(t, "POST", "/v1/ai/generate/text", b.acme, `{"model":"gpt-4o","text":"write"}`).Want(t, 200).Data(t)
	gen, _ := text["generationId"].(string)
	if text["text"] != "Plain text." || gen == "" {
		t.Fatalf("inline text without generationId: %v", text)
	}
	b.srv.Do(t, "POST", "/v1/ai/generate/feedback", b.acme, fmt.Sprintf(`{"generationId":%q,"rating":"down"}`, gen)).Want(t, 201)
	b.srv.Do(t, "POST", "/v1/ai/generate/feedback", b.other, fmt.Sprintf(`{"generationId":%q,"rating":"down"}`, gen)).Want(t, 404)
	b.srv.Do(t, "POST", "/v1/ai/generate/feedback", b.acme, `{"jobId":"nope","rating":"up"}`).Want(t, 404)
	b.srv.Do(t, "POST", "/v1/ai/generate/feedback", b.acme, `{"rating":"up"}`).Want(t, 400)
	if n := b.feedbackCount(t, "generation", "down"); n != 1 {
		t.Fatalf("herald_feedback_total{generation,down} = %v", n)
	}
}

// feedbackCount reads herald_feedback_total{target, rating} from /metrics'
// registry.
func (b *bundle) feedbackCount(t *testing.T, target, rating string) float64 {
	t.Helper()
	families, err := b.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "herald_feedback_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if got["target"] == target && got["rating"] == rating {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func TestFineTuningJobIsNullUntilOneExists(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.srv.Do(t, "GET", "/v1/ai/chat/getFineTuningJob", b.acme, "").Want(t, 200)
	if v, ok := res.Body["data"]; !ok || v != nil {
		t.Fatalf("no job: %s", res.Raw)
	}
	ft := "ft:gpt-4o:acme"
	if err := finetunestore.New(b.store).InsertFineTuningJob(context.Background(), &finetunestore.FineTuningJob{WorkspaceID: b.acmeP.WorkspaceID, Provider: "openai",
		ProviderJobID: "ftjob-1", BaseModel: "gpt-4o-mini", Status: "succeeded", FineTunedModel: &ft}); err != nil {
		t.Fatal(err)
	}
	d := b.srv.Do(t, "GET", "/v1/ai/chat/getFineTuningJob", b.acme, "").Want(t, 200).Data(t)
	if d["status"] != "succeeded" || d["fineTunedModel"] != ft || d["finishedAt"] != nil || d["provider"] != "openai" {
		t.Fatalf("job: %v", d)
	}
	if other := b.srv.Do(t, "GET", "/v1/ai/chat/getFineTuningJob", b.other, "").Want(t, 200); other.Body["data"] != nil {
		t.Fatalf("another workspace's job leaked: %s", other.Raw)
	}
}

func TestDeltasReachTheClientBeforeTheModelFinishes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.fake.gate = make(chan struct{})
	client := apiv1connect.NewChatServiceClient(http.DefaultClient, b.url)
	req := connect.NewRequest(&apiv1.ChatRequest{Model: "gpt-4o", Text: "gated"})
	req.Header().Set("api-key", b.acme)
	// Opening the stream waits for the response headers, which come with
	// the first event: both must happen before the model finishes.
	var stream *connect.ServerStreamForClient[apiv1.ChatEvent]
	first := make(chan string, 1)
	go func() {
		defer close(first)
		var err error
		if stream, err = client.Chat(context.Background(), req); err != nil {
			t.Error(err)
			return
		}
		if stream.Receive() {
			first <- stream.Msg().GetTextDelta()
		}
	}()
	select {
	case d := <-first:
		if d != "first " {
			t.Fatalf("first event %q", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no delta before the model finished: the stream is buffered")
	}
	close(b.fake.gate)
	<-first
	var rest []string
	for stream.Receive() {
		if d := stream.Msg().GetDone(); d != nil {
			rest = append(rest, "done:"+d.Text)
		} else {
			rest = append(rest, stream.Msg().GetTextDelta())
		}
	}
	if err := stream.Err(); err != nil || strings.Join(rest, "|") != "then the rest|done:first then the rest" {
		t.Fatalf("rest %q %v", rest, err)
	}
}

func TestServerSentEventsAreFlushedAsTheyCome(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.fake.gate = make(chan struct{})
	first := make(chan string, 1)
	go func() {
		defer close(first)
		req, _ := http.NewRequest("POST", b.url+"/v1/ai/generate/chat", strings.NewReader(`{"model":"gpt-4o","text":"gated"}`))
		req.Header.Set("api-key", b.acme)
		req.Header.Set("Accept", "text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				first <- d
				break
			}
		}
		io.Copy(io.Discard, res.Body)
	}()
	select {
	case d := <-first:
		if !strings.Contains(d, `"textDelta":"first "`) {
			t.Fatalf("first event %s", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event before the model finished: the stream is buffered")
	}
	close(b.fake.gate)
}

// The context lists the workspace's recent documents: generated texts
// (aiQueue jobs), generated blog posts (blog jobs) and the scheduler's
// drafts, and published posts with their URL, newest first; never another
// workspace's, and never what is not finished or not a document.
func TestContextListsTheWorkspacesRecentDocuments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ws := b.acmeP.WorkspaceID
	job := func(id, wsID, queue, name, state, data, result string, at int64) {
		t.Helper()
		if _, err := storetest.Exec(ctx, b.store, `INSERT INTO jobs (id, workspace_id, queue, name, state, data, result, max_attempts, run_at, created_at, finished_on)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 3, $8, $8, $8)`, id, wsID, queue, name, state, data, result, at); err != nil {
			t.Fatal(err)
		}
	}
	post := func(id, wsID, status, content string, at int64, url *string) {
		t.Helper()
		if _, err := storetest.Exec(ctx, b.store, `INSERT INTO schedules (id, workspace_id, user_id, export_to, status, content, external_url, published_at, created_at, updated_at)
			VALUES ($1, $2, 'u', 'webhook', $3, $4, $5, $6, $6, $6)`, id, wsID, status, content, url, at); err != nil {
			t.Fatal(err)
		}
	}
	day := int64(86_400_000)
	t0 := int64(1_790_000_000_000)
	job("j-text", ws, "aiQueue", "social_post", "completed", `{"model":"gpt-4o","text":"Write a launch post"}`, `{"text":"## Launch day is here\n\nWe shipped.","model":"gpt-4o"}`, t0)
	job("j-blog", ws, "contentQueue", agent.JobBlogPost, "completed", `{"title":"Ten widget tips"}`, `{"title":"Ten widget tips","content":"..."}`, t0+day)
	job("j-running", ws, "aiQueue", "text_generation", "active", `{"text":"not yet"}`, `null`, t0+2*day)
	job("j-improve", ws, "contentQueue", "improve_simple", "completed", `{}`, `{"text":"x"}`, t0+2*day)
	job("j-other", "another-workspace", "aiQueue", "text_generation", "completed", `{"text":"theirs"}`, `{"text":"Their text"}`, t0+3*day)
	url := "https://blog.acme.test/widgets"
	post("s-pub", ws, "published", `{"title":"Widgets, explained","text":"t"}`, t0+4*day, &url)
	post("s-draft", ws, "draft", `{"text":"A draft without a title\nsecond line"}`, t0+5*day, nil)
	post("s-pending", ws, "pending", `{"title":"Not yet"}`, t0+6*day, nil)
	post("s-other", "another-workspace", "published", `{"title":"Theirs"}`, t0+7*day, &url)

	res := b.srv.Do(t, "GET", "/v1/ai/generate/assistant/context", b.acme, "").Want(t, 200)
	got, _ := json.Marshal(res.Data(t)["documents"])
	want := `[{"date":"2026-09-26T14:13:20.000Z","id":"s-draft","kind":"blog_draft","link":"/v1/scheduler/s-draft","title":"A draft without a title"},` +
		`{"date":"2026-09-25T14:13:20.000Z","id":"s-pub","kind":"published_post","link":"https://blog.acme.test/widgets","title":"Widgets, explained"},` +
		`{"date":"2026-09-22T14:13:20.000Z","id":"j-blog","kind":"blog_draft","link":"/v1/ai/generate/job/j-blog","title":"Ten widget tips"},` +
		`{"date":"2026-09-21T14:13:20.000Z","id":"j-text","kind":"generated_text","link":"/v1/ai/generate/job/j-text","title":"Launch day is here"}]`
	if string(got) != want {
		t.Fatalf("documents =\n%s\nwant\n%s", got, want)
	}
}
