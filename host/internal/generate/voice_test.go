package generate_test

import (
	"context"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/voice"
)

// newVoices is voice.New for tests: a failure ends the test.
func newVoices(t *testing.T, d voice.Deps) *voice.Service {
	t.Helper()
	v, err := voice.New(d)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// voiceBundle adds brand voices to a test bundle: a team voice of the
// caller's workspace, a teammate's personal voice and another workspace's
// voice.
func voiceBundle(t *testing.T, s *store.Store) (b *testBundle, team, teammates, foreign voice.Voice) {
	t.Helper()
	ctx := context.Background()
	voices := newVoices(t, voice.Deps{Store: s})
	b = setup(t, s, "business", func(d *generate.Deps) { d.Voices = voices })
	var err error
	if team, err = voices.CreateFromText(ctx, b.p, voice.NewText{Name: "Plain", Content: "Short sentences. We say we, never the company."}); err != nil {
		t.Fatal(err)
	}
	ws, mate, err := s.EnsureWorkspaceUser(ctx, "acme", "business", "mate@acme.test")
	if err != nil || ws.ID != b.p.WorkspaceID {
		t.Fatalf("teammate: %v %v", ws, err)
	}
	matep := auth.Principal{WorkspaceID: ws.ID, UserID: mate.ID, Plan: "business"}
	if teammates, err = voices.CreateFromText(ctx, matep, voice.NewText{Name: "Mine", Content: "secret style", Scope: "personal"}); err != nil {
		t.Fatal(err)
	}
	ows, ou, err := s.EnsureWorkspaceUser(ctx, "globex", "business", "x@globex.test")
	if err != nil {
		t.Fatal(err)
	}
	if foreign, err = voices.CreateFromText(ctx, auth.Principal{WorkspaceID: ows.ID, UserID: ou.ID}, voice.NewText{Name: "Globex", Content: "globex style"}); err != nil {
		t.Fatal(err)
	}
	return b, team, teammates, foreign
}

func TestBrandVoiceGoesIntoTheSystemPrompt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b, team, _, _ := voiceBundle(t, s)
		res, used, err := b.svc.GenerateText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "hi", BrandVoiceID: team.ID,
			Options: map[string]any{"system": "be brief"}})
		if err != nil {
			t.Fatal(err)
		}
		if used == nil || used.ID != team.ID || used.Name != "Plain" || res.Text != "echo: hi" {
			t.Fatalf("voice used %+v, result %+v", used, res)
		}
		sys := b.router.prompts[0].System
		if !strings.Contains(sys, "We say we, never the company.") || !strings.HasSuffix(sys, "be brief") {
			t.Fatalf("system prompt %q lacks the voice or the caller's system", sys)
		}

		id, err := b.svc.QueueText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "queued", BrandVoiceID: team.ID})
		if err != nil {
			t.Fatal(err)
		}
		j := waitJob(t, b.queue, b.p.WorkspaceID, id)
		if j.Result == nil || !strings.Contains(*j.Result, `"brandVoice":{"id":"`+team.ID+`","name":"Plain"}`) {
			t.Fatalf("job result %v", j.Result)
		}
		if last := b.router.prompts[len(b.router.prompts)-1].System; !strings.Contains(last, "We say we") {
			t.Fatalf("queued system prompt %q", last)
		}
	})
}

func TestOtherPeoplesVoicesAreNotFound(t *testing.T) {
	t.Parallel()
	b, _, teammates, foreign := voiceBundle(t, storetest.SQLite(t))
	for name, id := range map[string]string{"teammate's personal": teammates.ID, "other workspace's": foreign.ID, "unknown": "nope"} {
		_, _, err := b.svc.GenerateText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "hi", BrandVoiceID: id})
		if code(err) != connect.CodeNotFound || !strings.Contains(err.Error(), id) {
			t.Errorf("%s voice inline: got %v, want 404 naming it", name, err)
		}
		if _, err := b.svc.QueueText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "hi", BrandVoiceID: id}); code(err) != connect.CodeNotFound {
			t.Errorf("%s voice queued: got %v, want 404", name, err)
		}
	}
	if len(b.router.prompts) != 0 {
		t.Fatalf("the model was called: %v", b.router.prompts)
	}
	res, used, err := b.svc.GenerateText(context.Background(), b.p, generate.TextInput{Model: "gpt-4o", Text: "hi"})
	if err != nil || used != nil || b.router.prompts[0].System != "" || res.Text == "" {
		t.Fatalf("no voice: used %+v, system %q, err %v", used, b.router.prompts[0].System, err)
	}
}
