package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// The chat route's Server-Sent Events, the Connect face's streaming auth
// and the trend's CSV download, over stand-in areas: the
// transport's own rules, whatever the agent and the trackers answer.

// fakeChat answers a chat turn with what stream sends, on both faces.
type fakeChat struct {
	apiv1connect.UnimplementedChatServiceHandler
	stream func(ctx context.Context, req *apiv1.ChatRequest, send func(*apiv1.ChatEvent) error) error
}

func (f *fakeChat) Send(_ context.Context, req *connect.Request[apiv1.ChatRequest]) (*connect.Response[apiv1.ChatResponse], error) {
	return connect.NewResponse(&apiv1.ChatResponse{Message: "ok", SessionId: "s1", Data: &apiv1.ChatReply{Text: "unary " + req.Msg.GetText()}}), nil
}

func (f *fakeChat) Stream(ctx context.Context, req *apiv1.ChatRequest, send func(*apiv1.ChatEvent) error) error {
	return f.stream(ctx, req, send)
}

func (f *fakeChat) Chat(ctx context.Context, req *connect.Request[apiv1.ChatRequest], st *connect.ServerStream[apiv1.ChatEvent]) error {
	return f.stream(ctx, req.Msg, st.Send)
}

// fakeTrackers exports a trend as CSV and remembers the request.
type fakeTrackers struct {
	apiv1connect.UnimplementedTrackerServiceHandler
	mu   sync.Mutex
	last *apiv1.GetTrackerTrendRequest
}

const trendCSV = "day,brand,mentions\n2026-11-01,\"Acme, Inc\",3\n"

func (f *fakeTrackers) ExportTrackerTrend(_ context.Context, req *connect.Request[apiv1.GetTrackerTrendRequest]) (*connect.Response[apiv1.ExportTrackerTrendResponse], error) {
	f.mu.Lock()
	f.last = req.Msg
	f.mu.Unlock()
	if req.Msg.GetId() != "t1" {
		return nil, apierr.NotFound("tracker %s not found", req.Msg.GetId())
	}
	return connect.NewResponse(&apiv1.ExportTrackerTrendResponse{Filename: "acme \"trend\"\\2026\x01\r\n\x7f.csv", Csv: trendCSV}), nil
}

func streamServer(t *testing.T, chat *fakeChat, trackers *fakeTrackers) (*apitest.Server, string) {
	t.Helper()
	s := storetest.SQLite(t)
	key, err := auth.CreateKey(t.Context(), s, "acme", "business", "alice@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	return apitest.Start(t, api.Deps{Store: s, Agent: chat, Trackers: trackers}), key
}

func chatRequest(t *testing.T, url, key, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/v1/ai/generate/chat", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if key != "" {
		req.Header.Set("api-key", key)
	}
	return req
}

// sseEvent is one parsed event: its name and its data as JSON.
type sseEvent struct {
	name string
	data map[string]any
}

// parseSSE splits a stream into events, failing on any other framing than
// "event: NAME\ndata: JSON\n\n".
func parseSSE(t *testing.T, raw string) []sseEvent {
	t.Helper()
	if !strings.HasSuffix(raw, "\n\n") {
		t.Fatalf("stream does not end with a blank line: %q", raw)
	}
	var out []sseEvent
	for _, frame := range strings.Split(strings.TrimSuffix(raw, "\n\n"), "\n\n") {
		lines := strings.Split(frame, "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("frame %q: want an event line and a data line", frame)
		}
		var data map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "data: ")), &data); err != nil {
			t.Fatalf("frame %q: data is not a JSON object: %v", frame, err)
		}
		out = append(out, sseEvent{strings.TrimPrefix(lines[0], "event: "), data})
	}
	return out
}

func TestChatEventsAreServerSentEventsNamedByKind(t *testing.T) {
	t.Parallel()
	chat := &fakeChat{}
	srv, key := streamServer(t, chat, &fakeTrackers{})
	turn := []*apiv1.ChatEvent{
		{SessionId: "s1", Kind: &apiv1.ChatEvent_TextDelta{TextDelta: "Hel"}},
		{SessionId: "s1", Kind: &apiv1.ChatEvent_ToolCall{ToolCall: &apiv1.ChatBlock{Id: "b1", Type: "tool_call"}}},
		{SessionId: "s1", Kind: &apiv1.ChatEvent_ToolResult{ToolResult: &apiv1.ChatBlock{Id: "b2", Type: "tool_result"}}},
		{SessionId: "s1", Kind: &apiv1.ChatEvent_Done{Done: &apiv1.ChatReply{Text: "Hello"}}},
	}
	var fail error
	chat.stream = func(_ context.Context, req *apiv1.ChatRequest, send func(*apiv1.ChatEvent) error) error {
		if req.GetText() != "hi" || req.GetModel() != "m" {
			return apierr.Invalid("request %v", req)
		}
		for _, ev := range turn {
			if err := send(ev); err != nil {
				return err
			}
		}
		return fail
	}
	res := apitest.Send(t, chatRequest(t, srv.URL, key, `{"model":"m","text":"hi"}`)).Want(t, 200)
	if ct, cc := res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"); ct != "text/event-stream" || cc != "no-cache" {
		t.Errorf("Content-Type %q, Cache-Control %q", ct, cc)
	}
	events := parseSSE(t, res.Raw)
	var names []string
	for _, ev := range events {
		names = append(names, ev.name)
		if ev.data["sessionId"] != "s1" {
			t.Errorf("event %s: %v, want sessionId s1", ev.name, ev.data)
		}
	}
	if got := strings.Join(names, ","); got != "text_delta,tool_call,tool_result,done" {
		t.Errorf("events %s", got)
	}
	if events[0].data["textDelta"] != "Hel" {
		t.Errorf("text_delta data %v", events[0].data)
	}

	// An error once events went out ends the stream with an error event,
	// internal detail hidden.
	fail = apierr.Unavailable("the model provider is down")
	events = parseSSE(t, apitest.Send(t, chatRequest(t, srv.URL, key, `{"model":"m","text":"hi"}`)).Want(t, 200).Raw)
	if last := events[len(events)-1]; len(events) != 5 || last.name != "error" || last.data["message"] != "the model provider is down" {
		t.Errorf("after a late error: %v", events)
	}
	fail = errors.New("dial tcp 10.0.0.7: password=hunter2")
	raw := apitest.Send(t, chatRequest(t, srv.URL, key, `{"model":"m","text":"hi"}`)).Want(t, 200).Raw
	if events = parseSSE(t, raw); events[len(events)-1].data["message"] != "internal error" || strings.Contains(raw, "hunter2") {
		t.Errorf("after a late internal error: %s", raw)
	}

	// Before any event an error keeps its status and JSON body; so do a
	// missing key and a body of the wrong type.
	apitest.Send(t, chatRequest(t, srv.URL, key, `{"model":"x","text":"hi"}`)).WantError(t, 400, "request")
	apitest.Send(t, chatRequest(t, srv.URL, "", `{"model":"m","text":"hi"}`)).WantMessage(t, 401)
	apitest.Send(t, chatRequest(t, srv.URL, key, `{"model":"m","text":5}`)).WantError(t, 400, "field text must be a string")

	// Without Accept: text/event-stream the route is the unary JSON call.
	res = srv.Do(t, http.MethodPost, "/v1/ai/generate/chat", key, `{"model":"m","text":"hi"}`).WantMessage(t, 200)
	if res.Data(t)["text"] != "unary hi" {
		t.Errorf("unary answer %s", res.Raw)
	}
}

// TestChatEventsReachTheClientAsTheyHappen: each event is flushed, so the
// client reads the first before the turn goes on.
func TestChatEventsReachTheClientAsTheyHappen(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	chat := &fakeChat{stream: func(_ context.Context, _ *apiv1.ChatRequest, send func(*apiv1.ChatEvent) error) error {
		if err := send(&apiv1.ChatEvent{SessionId: "s1", Kind: &apiv1.ChatEvent_TextDelta{TextDelta: "first"}}); err != nil {
			return err
		}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
			return apierr.Unavailable("the first event never reached the client")
		}
		return send(&apiv1.ChatEvent{SessionId: "s1", Kind: &apiv1.ChatEvent_TextDelta{TextDelta: "second"}})
	}}
	srv, key := streamServer(t, chat, &fakeTrackers{})
	res, err := http.DefaultClient.Do(chatRequest(t, srv.URL, key, `{"model":"m","text":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	var first []string
	for len(first) < 3 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the first event: %v (so far %q)", err, first)
		}
		first = append(first, line)
	}
	close(release)
	if !strings.Contains(first[1], `"first"`) || first[2] != "\n" {
		t.Fatalf("first event %q", first)
	}
	rest := new(strings.Builder)
	if _, err := bufio.NewReader(r).WriteTo(rest); err != nil {
		t.Fatal(err)
	}
	if events := parseSSE(t, rest.String()); len(events) != 1 || events[0].data["textDelta"] != "second" {
		t.Errorf("after the first event: %q", rest)
	}
}

func TestConnectStreamsNeedTheKeyAndHideInternalErrors(t *testing.T) {
	t.Parallel()
	var fail error
	chat := &fakeChat{stream: func(_ context.Context, _ *apiv1.ChatRequest, send func(*apiv1.ChatEvent) error) error {
		if err := send(&apiv1.ChatEvent{SessionId: "s1", Kind: &apiv1.ChatEvent_TextDelta{TextDelta: "Hel"}}); err != nil {
			return err
		}
		return fail
	}}
	srv, key := streamServer(t, chat, &fakeTrackers{})
	client := apiv1connect.NewChatServiceClient(http.DefaultClient, srv.URL)
	receive := func(key string) ([]*apiv1.ChatEvent, error) {
		st, err := client.Chat(t.Context(), withKey(&apiv1.ChatRequest{Model: "m", Text: "hi"}, key))
		if err != nil {
			return nil, err
		}
		defer st.Close()
		var evs []*apiv1.ChatEvent
		for st.Receive() {
			evs = append(evs, st.Msg())
		}
		return evs, st.Err()
	}
	if evs, err := receive(key); err != nil || len(evs) != 1 || evs[0].GetTextDelta() != "Hel" {
		t.Errorf("with a key: %v, %v", evs, err)
	}
	if evs, err := receive("hk_wrong"); connect.CodeOf(err) != connect.CodeUnauthenticated || len(evs) != 0 {
		t.Errorf("wrong key: %v, %v; want unauthenticated and no event", evs, err)
	}
	fail = errors.New("dial tcp 10.0.0.7: password=hunter2")
	if _, err := receive(key); connect.CodeOf(err) != connect.CodeInternal || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("internal failure: %v, want a bare internal error", err)
	}
	fail = apierr.Unavailable("the model provider is down")
	if _, err := receive(key); connect.CodeOf(err) != connect.CodeUnavailable || !strings.Contains(err.Error(), "the model provider is down") {
		t.Errorf("API error: %v, want it kept", err)
	}
}

func TestTheTrendCSVIsADownloadWithASafeFilename(t *testing.T) {
	t.Parallel()
	trackers := &fakeTrackers{}
	srv, key := streamServer(t, &fakeChat{}, trackers)
	res := srv.Do(t, http.MethodGet, "/v1/visibility/trackers/t1/trend.csv?days=7&answers=3", key, "").Want(t, 200)
	if res.Raw != trendCSV {
		t.Errorf("body %q, want the CSV as the method made it", res.Raw)
	}
	for h, want := range map[string]string{
		"Content-Type": "text/csv; charset=utf-8",
		// Quotes, backslashes and control characters cannot end the
		// filename or split the header.
		"Content-Disposition": `attachment; filename="acme trend2026.csv"`,
		"Content-Length":      strconv.Itoa(len(trendCSV)),
	} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	trackers.mu.Lock()
	last := trackers.last
	trackers.mu.Unlock()
	if last.GetId() != "t1" || last.GetDays() != 7 || last.GetAnswers() != 3 {
		t.Errorf("method got %v, want id t1, days 7, answers 3", last)
	}
	// Errors are JSON like on every route.
	srv.Do(t, http.MethodGet, "/v1/visibility/trackers/t1/trend.csv?days=week", key, "").
		WantError(t, 400, `query parameter days must be an integer, got "week"`)
	srv.Do(t, http.MethodGet, "/v1/visibility/trackers/t9/trend.csv", key, "").WantError(t, 404, "tracker t9 not found")
	srv.Do(t, http.MethodGet, "/v1/visibility/trackers/t1/trend.csv", "", "").WantMessage(t, 401)
}
