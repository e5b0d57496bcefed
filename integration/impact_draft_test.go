package integration_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// draftWriter answers the draft route's model calls in front of the engine
// fake: a weak first version, then (asked to improve it) a strong one, and
// it checks that the brief reaches it only as untrusted data.
type draftWriter struct {
	t        *testing.T
	mu       sync.Mutex
	rounds   int
	problems []string
}

var draftEnvelope = regexp.MustCompile(`(?s)<untrusted-data id="([0-9a-f]{32})" source="[^"]*">\n.*?\n</untrusted-data id="([0-9a-f]{32})">\n`)

// serve answers a draft call and reports whether it was one.
func (d *draftWriter) serve(w http.ResponseWriter, r *http.Request) bool {
	raw, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(raw))
	var body struct {
		Model    string           `json:"model"`
		Messages []map[string]any `json:"messages"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return false
	}
	system, user := "", ""
	for _, m := range body.Messages {
		switch m["role"] {
		case "system", "developer":
			system += fmt.Sprint(m["content"])
		case "user":
			user += fmt.Sprint(m["content"])
		}
	}
	if !strings.Contains(system, "You write blog posts for a brand's website") {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rounds++
	// The brief (the gap's questions, the competitors named, the cited
	// pages) is inside envelopes whose nonce the system's rule names.
	outside, n := user, 0
	for _, m := range draftEnvelope.FindAllStringSubmatch(user, -1) {
		n++
		if m[1] != m[2] || !strings.Contains(system, `Text enclosed in <untrusted-data id="`+m[1]+`"`) {
			d.problems = append(d.problems, "an envelope the system's rule does not name")
		}
		outside = strings.Replace(outside, m[0], "", 1)
	}
	if n == 0 {
		d.problems = append(d.problems, "no untrusted envelope in "+user)
	}
	for _, s := range []string{"Matomo", "Which ", "What "} {
		if strings.Contains(outside, s) {
			d.problems = append(d.problems, fmt.Sprintf("%q reaches the model outside the untrusted envelope", s))
		}
	}
	if !strings.Contains(system, "Write in the brand voice \"Warm\"") {
		d.problems = append(d.problems, "the draft is not written in the brand voice")
	}
	reply := "# Notes\n\nThis is a post."
	if strings.HasPrefix(user, "Improve the previous draft") {
		if !strings.Contains(user, "keyphrase-in-title") {
			d.problems = append(d.problems, "the improvement round lacks the scorer's failing checks")
		}
		reply = strongDraft()
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-d", "object": "chat.completion", "created": 1700000000, "model": body.Model + "-2026-01-01",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 200, "completion_tokens": 400, "total_tokens": 600},
	})
	return true
}

func (d *draftWriter) Problems() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.problems)
}

// strongDraft carries the keyphrase in the title, the first paragraph and
// the subheadings, with links, an image and short sentences.
func strongDraft() string {
	var b strings.Builder
	b.WriteString("# Privacy analytics for startups\n\nPrivacy analytics helps a startup learn what works. For example, you see visits without cookies. Therefore you keep your visitors' trust.\n\n")
	b.WriteString("![privacy analytics dashboard](/img/privacy-analytics.png)\n\n")
	for s := 0; s < 4; s++ {
		fmt.Fprintf(&b, "## Part %d of choosing privacy analytics\n\n", s+1)
		for i := 0; i < 6; i++ {
			b.WriteString("First, good tools count pages and sources. However, they keep data in the EU. Also, teams read one clear dashboard. Because of that, reports stay short. ")
			if i%3 == 2 {
				b.WriteString("In short, privacy analytics keeps it simple.\n\n")
			}
		}
	}
	b.WriteString("\n\n## How to choose\n\nCompare price, hosting and exports. Read [our guide](/guide) and [the docs](https://example.org/docs). Then decide.\n")
	return b.String()
}

// draftAndConfirm writes a post for the tracker's gap through the draft
// route, checks that nothing is scheduled until the proposal is posted,
// confirms it and returns the schedule's id. Bad requests are refused
// before the model is called.
func draftAndConfirm(t *testing.T, base, key, rival, trackerID string, wp *wpFake, writer *draftWriter) string {
	t.Helper()
	status, out := api(t, base, key, "POST", "/v1/ai/generate/brand-voice/text", map[string]any{"name": "Warm", "content": "We write short, warm sentences. We say you, not users."})
	if status != http.StatusCreated {
		t.Fatalf("create voice: %d %v", status, out)
	}
	voice := out["data"].(map[string]any)["id"].(string)
	req := func() map[string]any {
		return map[string]any{"voiceId": voice, "keyphrase": "privacy analytics", "minScore": 75, "exportTo": "wordpress",
			"publishAt": time.Now().UTC().Format(time.RFC3339)}
	}
	path := "/v1/visibility/trackers/" + trackerID + "/drafts"
	for field, bad := range map[string]any{"minScore": 101, "keyphrase": "", "maxRounds": 4, "publishAt": "tomorrow"} {
		in := req()
		in[field] = bad
		if status, out := api(t, base, key, "POST", path, in); status != 400 || !strings.Contains(fmt.Sprint(out["message"]), field) {
			t.Errorf("draft with %s %v: %d %v, want 400 naming %s", field, bad, status, out, field)
		}
	}
	// A webhook export names a saved webhook of the caller's workspace.
	writer.mu.Lock()
	calledBefore := writer.rounds
	writer.mu.Unlock()
	status, out = api(t, base, rival, "POST", "/v1/webhooks", map[string]any{"url": base + "/rival-hook"})
	if status != http.StatusCreated {
		t.Fatalf("the rival's webhook: %d %v", status, out)
	}
	rivalHook := out["webhook"].(map[string]any)["id"].(string)
	for name, hook := range map[string]any{"no webhookId": nil, "an empty webhookId": "", "another workspace's webhook": rivalHook} {
		in := req()
		in["exportTo"] = "webhook"
		if hook != nil {
			in["webhookId"] = hook
		}
		if status, out := api(t, base, key, "POST", path, in); status != 400 || !strings.Contains(fmt.Sprint(out["message"]), "webhookId") {
			t.Errorf("draft for a webhook with %s: %d %v, want 400 naming webhookId", name, status, out)
		}
	}
	if status, out := api(t, base, rival, "POST", path, req()); status != 404 {
		t.Errorf("another workspace's tracker draft: %d %v, want 404", status, out)
	}
	writer.mu.Lock()
	called := writer.rounds - calledBefore
	writer.mu.Unlock()
	if called != 0 {
		t.Errorf("the refused drafts called the model %d times: each check must come before any credit is spent", called)
	}
	_, list := api(t, base, key, "GET", "/v1/scheduler", nil)
	before := list["total"]
	wp.mu.Lock()
	posted := wp.posts
	wp.mu.Unlock()

	status, out = api(t, base, key, "POST", path, req())
	if status != http.StatusOK {
		t.Fatalf("draft: %d %v", status, out)
	}
	d := out["draft"].(map[string]any)
	rounds := d["rounds"].([]any)
	first, last := rounds[0].(map[string]any), rounds[len(rounds)-1].(map[string]any)
	if len(rounds) != 2 || first["score"].(float64) >= 75 || last["score"].(float64) < 75 || d["met"] != true || d["credits"] != float64(2) {
		t.Errorf("draft rounds %v, met %v, credits %v; want a first round below 75, a second at 75 or more, 2 credits", rounds, d["met"], d["credits"])
	}
	prop := d["proposal"].(map[string]any)
	targets := d["brief"].(map[string]any)["targetPrompts"]
	if prop["trackerId"] != trackerID || fmt.Sprint(prop["targetPrompts"]) != fmt.Sprint(targets) || len(targets.([]any)) != 3 ||
		prop["status"] != "pending" || prop["title"] != "Privacy analytics for startups" {
		t.Errorf("proposal %v, want the tracker, the brief's 3 targets, pending", prop)
	}
	// Nothing is scheduled or published before the human confirms.
	_, list = api(t, base, key, "GET", "/v1/scheduler", nil)
	wp.mu.Lock()
	nowPosted := wp.posts
	wp.mu.Unlock()
	if list["total"] != before || nowPosted != posted {
		t.Errorf("after the draft: %v schedules (was %v), %d WordPress posts (was %d): the draft must not schedule", list["total"], before, nowPosted, posted)
	}

	// The confirmation: the proposal posted as it is.
	status, out = api(t, base, key, "POST", "/v1/scheduler/create", prop)
	if status != http.StatusOK {
		t.Fatalf("confirm the proposal: %d %v", status, out)
	}
	sc := out["schedule"].(map[string]any)
	if sc["trackerId"] != trackerID || fmt.Sprint(sc["targetPrompts"]) != fmt.Sprint(targets) {
		t.Errorf("the confirmed schedule's targets: %v", sc)
	}
	return sc["id"].(string)
}
